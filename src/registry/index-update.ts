/**
 * A snapshot's indexes made from the previous snapshot's, when most tool
 * entries are the very objects the previous build had (the build worker's
 * decoder hands back unchanged entries as they were): the maps are copied
 * and only the keys and names that changed are redone, instead of indexing
 * every tool again. The previous indexes are not touched (snapshots stay
 * immutable); the result equals what `indexTools` gives for the same tools
 * (a test holds the two equal).
 * @module
 */
import { performance } from 'node:perf_hooks';
import { hasSchemaDefs } from '../model/schema-defs.js';
import type { Tool } from '../model/schema.js';
import type { Entry } from './merge.js';
import type { SnapshotIndex } from './snapshot-index.js';
import { toolViewSteps } from './views.js';
import { replacedViews } from './views-update.js';

/** Above this share of changed entries, indexing afresh is as cheap: {@link updateIndex} declines. */
const MOST_CHANGED = 0.25;

const scoped = (t: Tool | undefined) => (t?.scope?.personas?.length ?? 0) > 0;

/**
 * The indexes of `tools` made from `previous` (the serving snapshot's), in
 * slices of about `sliceMs`, awaiting `yieldNow` between them and once at the
 * end. Undefined when that would not pay or cannot be done exactly (tools
 * sharing schema definitions, most entries changed, a repeated key): the
 * caller then indexes afresh (`indexTools`).
 */
export async function updateIndex(
  previous: SnapshotIndex,
  tools: ReadonlyArray<Entry<Tool>>,
  yieldNow: () => Promise<void>,
  order?: ArrayLike<number>,
  sliceMs = 6,
): Promise<SnapshotIndex | undefined> {
  if (previous.sharesDefs) return undefined;
  let sliceStart = performance.now();
  const pause = async () => {
    if (performance.now() - sliceStart > sliceMs) {
      await yieldNow();
      sliceStart = performance.now();
    }
  };
  const before = previous.entries;
  const changed: Array<Entry<Tool>> = [];
  const values: Tool[] = new Array<Tool>(tools.length);
  let kept = 0;
  for (let i = 0; i < tools.length; i++) {
    if ((i & 1023) === 0) await pause();
    const entry = tools[i]!;
    values[i] = entry.value;
    if (before.get(entry.key) === entry) kept++;
    else changed.push(entry);
  }
  if (changed.length > tools.length * MOST_CHANGED || changed.some((e) => hasSchemaDefs(e.value))) return undefined;
  // what was there before and is replaced (same key) or gone (key dropped); keys new to the catalog
  const replaced: Array<Entry<Tool>> = [];
  let added = false;
  for (const entry of changed) {
    const old = before.get(entry.key);
    if (old) replaced.push(old);
    else added = true;
  }
  const gone: Array<Entry<Tool>> = [];
  if (before.size > kept + replaced.length) {
    // some keys were dropped: find them (rare, so a set of the new keys only then)
    const now = new Set<string>();
    for (const entry of tools) now.add(entry.key);
    for (const [key, old] of before) if (!now.has(key)) gone.push(old);
  }
  await pause();
  // the maps keep merge order, as a fresh indexing makes them: replacing a key keeps its place and
  // dropping one keeps the others' order; a new key has its place in merge order, so then they are refilled
  let entries: Map<string, Entry<Tool>>;
  let byKey: Map<string, Tool>;
  if (added) {
    entries = new Map();
    byKey = new Map();
    for (let i = 0; i < tools.length; i++) {
      if ((i & 1023) === 0) await pause();
      const entry = tools[i]!;
      entries.set(entry.key, entry);
      byKey.set(entry.key, entry.value);
    }
  } else {
    entries = new Map(before);
    byKey = new Map(previous.byKey);
    for (const old of gone) {
      entries.delete(old.key);
      byKey.delete(old.key);
    }
    for (const entry of changed) {
      entries.set(entry.key, entry);
      byKey.set(entry.key, entry.value);
    }
  }
  // a repeated key: the maps would hold fewer than the tools; let a fresh indexing decide as it always has
  if (entries.size !== tools.length) return undefined;
  await pause();
  // names whose lists change, rebuilt from the tools in merge order as indexTools builds them (a key
  // holds its tool's name, so a replaced entry keeps its name: without new keys no name is new)
  const names = new Set<string>();
  for (const e of changed) names.add(e.value.name);
  for (const e of replaced) names.add(e.value.name);
  for (const e of gone) names.add(e.value.name);
  const lists = new Map<string, Tool[]>();
  for (let i = 0; i < values.length; i++) {
    if ((i & 1023) === 0) await pause();
    const value = values[i]!;
    if (!names.has(value.name)) continue;
    const list = lists.get(value.name);
    if (!list) lists.set(value.name, [value]);
    else if (scoped(value)) list.push(value);
    else list.unshift(value); // the shared version first
  }
  for (const list of lists.values()) Object.freeze(list);
  let byName: Map<string, Tool[]>;
  if (added) {
    // names in order of first appearance, as indexTools adds them
    byName = new Map();
    for (let i = 0; i < values.length; i++) {
      if ((i & 1023) === 0) await pause();
      const name = values[i]!.name;
      if (!byName.has(name)) byName.set(name, lists.get(name) ?? previous.byName.get(name)!);
    }
  } else {
    byName = new Map(previous.byName);
    for (const name of names) {
      const list = lists.get(name);
      if (list) byName.set(name, list);
      else byName.delete(name);
    }
  }
  // personas change only when a scoped tool came or went
  let personas = previous.personas;
  if (changed.some((e) => scoped(e.value)) || replaced.some((e) => scoped(e.value)) || gone.some((e) => scoped(e.value))) {
    const all = new Set<string>();
    for (let i = 0; i < values.length; i++) {
      if ((i & 1023) === 0) await pause();
      const scope = values[i]!.scope?.personas;
      if (scope) for (const p of scope) all.add(p);
    }
    const sorted = [...all].sort();
    // the same personas: keep the previous (frozen) list, so the views may be reused
    if (sorted.length !== personas.length || sorted.some((p, i) => p !== personas[i])) personas = Object.freeze(sorted);
  }
  await pause();
  // values replaced in place (an edit): the previous views with the new values in them; else built afresh
  let views = personas === previous.personas ? replacedViews(previous.views, previous.tools, tools, changed, before) : undefined;
  if (!views) {
    const steps = toolViewSteps(tools, personas, order);
    let step = steps.next();
    while (!step.done) {
      await pause();
      step = steps.next();
    }
    views = step.value;
  }
  await yieldNow();
  return { tools, byName, byKey, entries, personas, views, values, sharesDefs: false };
}
