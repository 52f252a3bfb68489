/**
 * A snapshot's sorted views (registry/views.ts) made from the previous
 * snapshot's when a reload only replaced tool values: the same keys in the
 * same merge order, and no replaced tool enabled or disabled. Every view then
 * holds the same tools at the same places, so each is the previous one with
 * the replaced values put in, instead of being built again from the names:
 * each replaced value is found by a binary search on its name (the views are
 * sorted by name) and the view copied once, not mapped tool by tool.
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
 * `before` maps the previous keys to their entries; `inPlace`: the caller
 * found every key of `tools` at its place in `previousTools` already.
 */
export function replacedViews(
  previous: ToolViews,
  previousTools: ReadonlyArray<Entry<Tool>>,
  tools: ReadonlyArray<Entry<Tool>>,
  changed: ReadonlyArray<Entry<Tool>>,
  before: ReadonlyMap<string, Entry<Tool>>,
  inPlace = false,
): ToolViews | undefined {
  if (tools.length !== previousTools.length) return undefined;
  if (!inPlace) for (let i = 0; i < tools.length; i++) if (tools[i]!.key !== previousTools[i]!.key) return undefined;
  const put = new Map<Tool, Tool>();
  for (const entry of changed) {
    const old = before.get(entry.key)?.value;
    if (!old || old.name !== entry.value.name || (old.enabled === false) !== (entry.value.enabled === false) || !samePersonas(old, entry.value)) return undefined;
    put.set(old, entry.value);
  }
  if (put.size === 0) return previous;
  const swap = (view: readonly Tool[]): readonly Tool[] => {
    let out: Tool[] | undefined;
    for (const [old, value] of put) {
      const i = placeOf(view, old.name, (t) => t.name, (t) => t === old);
      if (i >= 0) (out ??= copyOf(view))[i] = value;
    }
    return out ? Object.freeze(out) : view; // a view none of them is in stays as it was
  };
  let pairs: Array<{ readonly key: string; readonly value: Tool }> | undefined;
  for (const [old, value] of put) {
    const i = placeOf(previous.ordered, old.name, (p) => p.value.name, (p) => p.value === old);
    if (i < 0) return undefined; // every tool is in the order: not the previous views after all
    (pairs ??= copyOf(previous.ordered))[i] = Object.freeze({ key: previous.ordered[i]!.key, value });
  }
  const ordered = Object.freeze(pairs!);
  const personas = new Map<string, readonly Tool[]>();
  for (const [persona, view] of previous.personas) personas.set(persona, swap(view));
  return { ordered, all: swap(previous.all), shared: swap(previous.shared), personas };
}

/**
 * A writable copy of a (frozen) view. Not `slice()`: V8 copies a frozen
 * array's elements one by one on that path, about 0.8 ms for 10,000 tools,
 * against a few microseconds for a spread; a reload copies several views.
 */
const copyOf = <T>(view: readonly T[]): T[] => [...view];

/**
 * Where the item `is` picks is in `view`, sorted by `nameOf` (code unit
 * order, as views.ts sorts): a binary search for `name`, then a scan of the
 * items with that name. -1 when it is not there.
 */
function placeOf<T>(view: readonly T[], name: string, nameOf: (item: T) => string, is: (item: T) => boolean): number {
  let lo = 0;
  let hi = view.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (nameOf(view[mid]!) < name) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < view.length && nameOf(view[i]!) === name; i++) if (is(view[i]!)) return i;
  return -1;
}

/** The same personas in the tools' scopes (the views only ask whether one is included). */
function samePersonas(a: Tool, b: Tool): boolean {
  const x = a.scope?.personas ?? [];
  const y = b.scope?.personas ?? [];
  return x.length === y.length && x.every((p) => y.includes(p));
}
