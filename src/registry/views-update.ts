/**
 * A snapshot's sorted views (registry/views.ts) made from the previous
 * snapshot's when a reload only replaced tool values: the same keys in the
 * same merge order, and no replaced tool enabled or disabled. Every view then
 * holds the same tools at the same places, so each is the previous one with
 * the replaced values put in, instead of being built again from the names.
 * The result equals `toolViews` for the new entries (a test holds them equal).
 * @module
 */
import type { Tool } from '../model/schema.js';
import type { Entry } from './merge.js';
import type { ToolViews } from './views.js';

/**
 * The views of `tools` from `previous` (the views of `previousTools`), or
 * undefined when `tools` is not `previousTools` with some values replaced
 * (a key added, dropped or moved, a replaced tool enabled or disabled or
 * scoped otherwise): the caller then builds them afresh.
 * `before` maps the previous keys to their entries.
 */
export function replacedViews(
  previous: ToolViews,
  previousTools: ReadonlyArray<Entry<Tool>>,
  tools: ReadonlyArray<Entry<Tool>>,
  changed: ReadonlyArray<Entry<Tool>>,
  before: ReadonlyMap<string, Entry<Tool>>,
): ToolViews | undefined {
  if (tools.length !== previousTools.length) return undefined;
  for (let i = 0; i < tools.length; i++) if (tools[i]!.key !== previousTools[i]!.key) return undefined;
  const put = new Map<Tool, Tool>();
  for (const entry of changed) {
    const old = before.get(entry.key)?.value;
    if (!old || old.name !== entry.value.name || (old.enabled === false) !== (entry.value.enabled === false) || !samePersonas(old, entry.value)) return undefined;
    put.set(old, entry.value);
  }
  if (put.size === 0) return previous;
  const swap = (view: readonly Tool[]) => Object.freeze(view.map((t) => put.get(t) ?? t));
  const ordered = Object.freeze(
    previous.ordered.map((pair) => {
      const value = put.get(pair.value);
      return value === undefined ? pair : Object.freeze({ key: pair.key, value });
    }),
  );
  const personas = new Map<string, readonly Tool[]>();
  for (const [persona, view] of previous.personas) personas.set(persona, swap(view));
  return { ordered, all: swap(previous.all), shared: swap(previous.shared), personas };
}

/** The same personas in the tools' scopes (the views only ask whether one is included). */
function samePersonas(a: Tool, b: Tool): boolean {
  const x = a.scope?.personas ?? [];
  const y = b.scope?.personas ?? [];
  return x.length === y.length && x.every((p) => y.includes(p));
}
