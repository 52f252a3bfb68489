/**
 * A snapshot's indexes (tools by name, by key, the personas, the sorted
 * views), built on their own so that a registry can build them a few
 * milliseconds at a time, yielding to the event loop between slices, before
 * it makes the snapshot: the main thread's share of a reload stays in short
 * blocks. `createSnapshot` builds them in one go when not given.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { hasSchemaDefs } from '../model/schema-defs.js';
import type { Tool } from '../model/schema.js';
import type { Entry } from './merge.js';
import { toolViews, toolViewSteps, type ToolViews } from './views.js';

/** The indexes of one snapshot, for `SnapshotInit.index`. */
export interface SnapshotIndex {
  /** The entries indexed (a snapshot checks it is given its own). */
  tools: ReadonlyArray<Entry<Tool>>;
  /** Never changed once made (a reload's are the previous ones with changes laid over, registry/overlay-map.ts). */
  byName: ReadonlyMap<string, readonly Tool[]>;
  byKey: ReadonlyMap<string, Tool>;
  entries: ReadonlyMap<string, Entry<Tool>>;
  personas: readonly string[];
  views: ToolViews;
  /** The tools' values in merge order: the snapshot document's `tools` (as `catalogDocument(catalog).tools`). */
  values: Tool[];
  /** Some tool carries schema definitions (model/schema-defs.ts `hasSchemaDefs`): the etag hashes the shared form. */
  sharesDefs: boolean;
}

const isScoped = (t: Tool) => (t.scope?.personas?.length ?? 0) > 0;

interface Collected {
  byName: Map<string, Tool[]>;
  byKey: Map<string, Tool>;
  entries: Map<string, Entry<Tool>>;
  personas: Set<string>;
  values: Tool[];
  sharesDefs: boolean;
}

function collect(into: Collected, entry: Entry<Tool>): void {
  const value = entry.value;
  into.values.push(value);
  if (!into.sharesDefs && hasSchemaDefs(value)) into.sharesDefs = true;
  into.byKey.set(entry.key, value);
  into.entries.set(entry.key, entry);
  const list = into.byName.get(value.name);
  if (!list) into.byName.set(value.name, [value]);
  else if (isScoped(value)) list.push(value);
  else list.unshift(value); // the shared version first
  const scope = value.scope?.personas;
  if (scope) for (const p of scope) into.personas.add(p);
}

function freezeNames(c: Collected): readonly string[] {
  for (const list of c.byName.values()) Object.freeze(list);
  return Object.freeze([...c.personas].sort());
}

function finish(tools: ReadonlyArray<Entry<Tool>>, c: Collected, order?: ArrayLike<number>): SnapshotIndex {
  const personas = freezeNames(c);
  return { tools, byName: c.byName, byKey: c.byKey, entries: c.entries, personas, views: toolViews(tools, personas, order), values: c.values, sharesDefs: c.sharesDefs };
}

const empty = (): Collected => ({ byName: new Map(), byKey: new Map(), entries: new Map(), personas: new Set(), values: [], sharesDefs: false });

/**
 * Index `tools` in slices of at most about `sliceMs`, awaiting `yieldNow`
 * between them (the sorted views too, registry/views.ts `toolViewSteps`),
 * and once more before returning, so what the caller does next starts a
 * fresh turn of the event loop; `order` (registry/views.ts `nameOrder`, from
 * the worker) saves the sort by name.
 */
export async function indexTools(tools: ReadonlyArray<Entry<Tool>>, yieldNow: () => Promise<void>, order?: ArrayLike<number>, sliceMs = 6): Promise<SnapshotIndex> {
  const c = empty();
  let sliceStart = performance.now();
  const pause = async () => {
    if (performance.now() - sliceStart > sliceMs) {
      await yieldNow();
      sliceStart = performance.now();
    }
  };
  for (let i = 0; i < tools.length; i++) {
    if ((i & 255) === 0) await pause();
    collect(c, tools[i]!);
  }
  await pause();
  const personas = freezeNames(c);
  const steps = toolViewSteps(tools, personas, order);
  let step = steps.next();
  while (!step.done) {
    await pause();
    step = steps.next();
  }
  await yieldNow();
  return { tools, byName: c.byName, byKey: c.byKey, entries: c.entries, personas, views: step.value, values: c.values, sharesDefs: c.sharesDefs };
}

/** {@link indexTools} in one go (no yielding): what a snapshot made without an index uses. */
export function indexToolsNow(tools: ReadonlyArray<Entry<Tool>>): SnapshotIndex {
  const c = empty();
  for (const entry of tools) collect(c, entry);
  return finish(tools, c);
}
