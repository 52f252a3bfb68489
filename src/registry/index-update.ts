/**
 * A snapshot's indexes made from the previous snapshot's, when most tool
 * entries are the very objects the previous build had (the build worker's
 * decoder hands back unchanged entries as they were): the maps are the
 * previous ones with the changed keys and names laid over them
 * (registry/overlay-map.ts), instead of indexing every tool again or copying
 * every map. The previous indexes are not touched (snapshots stay
 * immutable); the result equals what `indexTools` gives for the same tools
 * (a test holds the two equal).
 * @module
 */
import { performance } from 'node:perf_hooks';
import { hasSchemaDefs } from '../model/schema-defs.js';
import type { Tool } from '../model/schema.js';
import type { Entry } from './merge.js';
import { OverlayMap } from './overlay-map.js';
import type { SnapshotIndex } from './snapshot-index.js';
import { toolViewSteps } from './views.js';
import { replacedViews } from './views-update.js';

/** Above this share of changed entries, indexing afresh is as cheap: {@link updateIndex} declines. */
const MOST_CHANGED = 0.25;

const scoped = (t: Tool | undefined) => (t?.scope?.personas?.length ?? 0) > 0;

/** Whether the keys of `tools` are not those of `previous`, in the same order, less the keys in `gone`. */
function moved(previous: ReadonlyArray<Entry<Tool>>, tools: ReadonlyArray<Entry<Tool>>, gone: ReadonlySet<string>): boolean {
  let j = 0;
  for (const entry of tools) {
    while (j < previous.length && gone.has(previous[j]!.key)) j++;
    if (previous[j]?.key !== entry.key) return true;
    j++;
  }
  return false;
}

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
  // the entry at the same place as before is the one its key held, when no key was repeated: no lookup
  // (the maps may be overlays, a few lookups deep)
  const last = before.size === previous.tools.length ? previous.tools : [];
  // every key where it was (the same entry, or a new one with the same key): nothing added, dropped or moved
  let inPlace = tools.length === last.length;
  for (let i = 0; i < tools.length; i++) {
    if ((i & 1023) === 0) await pause();
    const entry = tools[i]!;
    values[i] = entry.value;
    if (last[i] === entry) kept++;
    else {
      if (last[i]?.key !== entry.key) inPlace = false;
      if (before.get(entry.key) === entry) kept++;
      else changed.push(entry);
    }
  }
  if (changed.length > tools.length * MOST_CHANGED || changed.some((e) => hasSchemaDefs(e.value))) return undefined;
  // what was there before and is replaced (same key) or gone (key dropped); keys new to the catalog
  const replaced: Array<Entry<Tool>> = [];
  let refill = false; // a key new to the catalog, or keys that moved: the maps are made afresh
  for (const entry of changed) {
    const old = before.get(entry.key);
    if (old) replaced.push(old);
    else refill = true; // a new key
  }
  const gone: Array<Entry<Tool>> = [];
  if (before.size > kept + replaced.length) {
    // some keys were dropped: find them (rare, so a set of the new keys only then)
    const now = new Set<string>();
    for (const entry of tools) now.add(entry.key);
    for (const [key, old] of before) if (!now.has(key)) gone.push(old);
  }
  // the maps keep merge order, as a fresh indexing makes them: replacing a key keeps its place and
  // dropping one keeps the others' order; a new key has its place in merge order, and keys that moved
  // (tools reordered in a file) have new places, so then they are refilled
  if (!refill && !inPlace) refill = moved(previous.tools, tools, new Set(gone.map((old) => old.key)));
  await pause();
  let entries: ReadonlyMap<string, Entry<Tool>>;
  let byKey: ReadonlyMap<string, Tool>;
  if (refill) {
    const [newEntries, newByKey] = [new Map<string, Entry<Tool>>(), new Map<string, Tool>()];
    for (let i = 0; i < tools.length; i++) {
      if ((i & 1023) === 0) await pause();
      const entry = tools[i]!;
      newEntries.set(entry.key, entry);
      newByKey.set(entry.key, entry.value);
    }
    [entries, byKey] = [newEntries, newByKey];
  } else {
    const goneKeys = gone.map((old) => old.key);
    entries = OverlayMap.over(before, changed.map((entry) => [entry.key, entry] as const), goneKeys);
    byKey = OverlayMap.over(previous.byKey, changed.map((entry) => [entry.key, entry.value] as const), goneKeys);
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
  if (!refill && gone.length === 0) {
    // the same keys in the same places: each list is the previous one with the replaced values put in
    const put = new Map<Tool, Tool>();
    changed.forEach((entry, k) => put.set(replaced[k]!.value, entry.value));
    for (const name of names) lists.set(name, previous.byName.get(name)!.map((t) => put.get(t) ?? t));
  } else {
    for (let i = 0; i < values.length; i++) {
      if ((i & 1023) === 0) await pause();
      const value = values[i]!;
      if (!names.has(value.name)) continue;
      const list = lists.get(value.name);
      if (!list) lists.set(value.name, [value]);
      else if (scoped(value)) list.push(value);
      else list.unshift(value); // the shared version first
    }
  }
  for (const list of lists.values()) Object.freeze(list);
  let byName: ReadonlyMap<string, readonly Tool[]>;
  if (refill) {
    // names in order of first appearance, as indexTools adds them
    const newByName = new Map<string, readonly Tool[]>();
    for (let i = 0; i < values.length; i++) {
      if ((i & 1023) === 0) await pause();
      const name = values[i]!.name;
      if (!newByName.has(name)) newByName.set(name, lists.get(name) ?? previous.byName.get(name)!);
    }
    byName = newByName;
  } else {
    byName = OverlayMap.over(
      previous.byName,
      [...lists],
      [...names].filter((name) => !lists.has(name)),
    );
  }
  // personas change only when a scoped tool came or went (a replaced entry has its key, so its personas)
  let personas = previous.personas;
  const cameOrWent = refill || gone.length > 0;
  if (cameOrWent && (changed.some((e) => scoped(e.value)) || replaced.some((e) => scoped(e.value)) || gone.some((e) => scoped(e.value)))) {
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
  let views = personas === previous.personas ? replacedViews(previous.views, previous.tools, tools, changed, before, inPlace) : undefined;
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
