/**
 * The sorted views a snapshot serves, from one sort of its tools by name:
 * each persona's view, the shared view, every enabled tool, and the order of
 * `/tools`. Sorting once and walking the sorted list per view keeps the
 * snapshot's construction (the main thread's share of a reload) linear in the
 * number of personas, not one sort each. The rules are `personaTools`'s
 * (registry/catalog.ts); a test holds the two equal.
 * @module
 */
import type { Tool } from '../model/schema.js';
import type { Entry } from './merge.js';


/** The views of one snapshot, frozen. */
export interface ToolViews {
  /** Every tool with its key, by name then key. */
  ordered: ReadonlyArray<{ readonly key: string; readonly value: Tool }>;
  /** Every enabled tool by name (merge order among equal names). */
  all: readonly Tool[];
  /** Enabled shared tools by name. */
  shared: readonly Tool[];
  /** Each persona's enabled tools by name, its own version shadowing a shared one. */
  personas: ReadonlyMap<string, readonly Tool[]>;
}

/**
 * Indexes of `entries` sorted by tool name, ties in merge order: the one sort
 * every view shares. The build worker computes it and sends it along, so the
 * main thread does not sort.
 */
export function nameOrder(entries: ReadonlyArray<Entry<Tool>>): Int32Array {
  const names = entries.map((e) => e.value.name);
  const order = Int32Array.from({ length: entries.length }, (_, i) => i);
  return order.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : a - b));
}

/**
 * {@link nameOrder} for consecutive builds: when the tool names are the same
 * as last time, in the same order (an edit that renames nothing), the last
 * order is reused (a copy: what is returned may be transferred) instead of
 * sorted again.
 */
export class NameOrder {
  #names: string[] = [];
  #order: Int32Array = new Int32Array(0);

  /** The order of `entries` by name, as {@link nameOrder} gives it. */
  of(entries: ReadonlyArray<Entry<Tool>>): Int32Array {
    const names = entries.map((e) => e.value.name);
    const last = this.#names;
    let same = names.length === last.length;
    for (let i = 0; same && i < names.length; i++) same = names[i] === last[i];
    if (!same) {
      this.#names = names;
      this.#order = nameOrder(entries);
    }
    return this.#order.slice();
  }
}

/** Iterations between two pause points of {@link toolViewSteps}. */
const STEP = 1024;

/** Is `order` a permutation of the entries that sorts them by name (a cheap check of what a worker sent)? Pauses every {@link STEP}. */
function* validOrder(order: ArrayLike<number>, names: readonly string[]): Generator<void, boolean> {
  if (order.length !== names.length) return false;
  const seen = new Uint8Array(names.length);
  for (let k = 0; k < order.length; k++) {
    if ((k & (STEP - 1)) === STEP - 1) yield;
    const i = order[k]!;
    if (i < 0 || i >= names.length || seen[i] === 1) return false;
    seen[i] = 1;
    if (k > 0 && names[order[k - 1]!]! > names[i]!) return false;
  }
  return true;
}

/**
 * Build every view from the merged entries (merge order) and the personas some
 * tool is scoped to; `order` (from {@link nameOrder}) saves the sort.
 */
export function toolViews(entries: ReadonlyArray<Entry<Tool>>, personas: readonly string[], given?: ArrayLike<number>): ToolViews {
  const steps = toolViewSteps(entries, personas, given);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * {@link toolViews} as a generator that pauses (yields) every
 * {@link STEP} iterations of its loops, so a caller can spread the work over
 * several turns of the event loop (registry/snapshot-index.ts `indexTools`).
 * Its return value is the views.
 */
export function* toolViewSteps(entries: ReadonlyArray<Entry<Tool>>, personas: readonly string[], given?: ArrayLike<number>): Generator<void, ToolViews> {
  // Tools differ in shape, so reading `value.name` inside a sort comparator is a slow (megamorphic) lookup
  // each time: read every name once, then sort indexes (ties by index: merge order among equal names).
  const n = entries.length;
  const names: string[] = new Array<string>(n);
  const values: Tool[] = new Array<Tool>(n);
  const scopes: Array<readonly string[] | undefined> = new Array<readonly string[] | undefined>(n);
  const enabled = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if ((i & (STEP - 1)) === STEP - 1) yield;
    const value = entries[i]!.value;
    values[i] = value;
    names[i] = value.name;
    const personasOf = value.scope?.personas;
    scopes[i] = personasOf !== undefined && personasOf.length > 0 ? personasOf : undefined;
    enabled[i] = value.enabled === false ? 0 : 1;
  }
  yield;
  const order = given !== undefined && (yield* validOrder(given, names)) ? given : Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : a - b));
  yield;
  const groups: number[][] = [];
  for (let k = 0; k < order.length; k++) {
    if ((k & (STEP - 1)) === STEP - 1) yield;
    const i = order[k]!;
    const last = groups[groups.length - 1];
    if (last && names[last[0]!] === names[i]) last.push(i);
    else groups.push([i]);
  }
  yield;
  const keyOrder = (a: number, b: number) => (entries[a]!.key < entries[b]!.key ? -1 : entries[a]!.key > entries[b]!.key ? 1 : 0);
  const ordered: Array<{ readonly key: string; readonly value: Tool }> = [];
  for (let g = 0; g < groups.length; g++) {
    if ((g & (STEP - 1)) === STEP - 1) yield;
    const group = groups[g]!;
    for (const i of group.length === 1 ? group : [...group].sort(keyOrder)) ordered.push(Object.freeze({ key: entries[i]!.key, value: values[i]! }));
  }
  yield;
  const all: Tool[] = [];
  const shared: Tool[] = [];
  for (let k = 0; k < order.length; k++) {
    if ((k & (STEP - 1)) === STEP - 1) yield;
    const i = order[k]!;
    if (enabled[i] === 0) continue;
    all.push(values[i]!);
    if (scopes[i] === undefined) shared.push(values[i]!);
  }
  const views = new Map<string, readonly Tool[]>();
  for (const persona of personas) {
    yield;
    const view: Tool[] = [];
    for (let g = 0; g < groups.length; g++) {
      if ((g & (STEP - 1)) === STEP - 1) yield;
      // the persona's own version (the last one) wins; else the last shared one
      let own = -1;
      let common = -1;
      for (const i of groups[g]!) {
        const scope = scopes[i];
        if (scope === undefined) common = i;
        else if (scope.includes(persona)) own = i;
      }
      const pick = own >= 0 ? own : common;
      if (pick >= 0 && enabled[pick] === 1) view.push(values[pick]!);
    }
    views.set(persona, Object.freeze(view));
  }
  return { ordered: Object.freeze(ordered), all: Object.freeze(all), shared: Object.freeze(shared), personas: views };
}
