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

/** Build every view from the merged entries (merge order) and the personas some tool is scoped to. */
export function toolViews(entries: ReadonlyArray<Entry<Tool>>, personas: readonly string[]): ToolViews {
  // Tools differ in shape, so reading `value.name` inside a sort comparator is a slow (megamorphic) lookup
  // each time: read every name once, then sort indexes (ties by index: merge order among equal names).
  const n = entries.length;
  const names: string[] = new Array<string>(n);
  const values: Tool[] = new Array<Tool>(n);
  const scopes: Array<readonly string[] | undefined> = new Array<readonly string[] | undefined>(n);
  const enabled = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const value = entries[i]!.value;
    values[i] = value;
    names[i] = value.name;
    const personasOf = value.scope?.personas;
    scopes[i] = personasOf !== undefined && personasOf.length > 0 ? personasOf : undefined;
    enabled[i] = value.enabled === false ? 0 : 1;
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : a - b));
  const groups: number[][] = [];
  for (const i of order) {
    const last = groups[groups.length - 1];
    if (last && names[last[0]!] === names[i]) last.push(i);
    else groups.push([i]);
  }
  const keyOrder = (a: number, b: number) => (entries[a]!.key < entries[b]!.key ? -1 : entries[a]!.key > entries[b]!.key ? 1 : 0);
  const ordered: Array<{ readonly key: string; readonly value: Tool }> = [];
  for (const group of groups) for (const i of group.length === 1 ? group : [...group].sort(keyOrder)) ordered.push(Object.freeze({ key: entries[i]!.key, value: values[i]! }));
  const all: Tool[] = [];
  const shared: Tool[] = [];
  for (const i of order) {
    if (enabled[i] === 0) continue;
    all.push(values[i]!);
    if (scopes[i] === undefined) shared.push(values[i]!);
  }
  const views = new Map<string, readonly Tool[]>();
  for (const persona of personas) {
    const view: Tool[] = [];
    for (const group of groups) {
      // the persona's own version (the last one) wins; else the last shared one
      let own = -1;
      let common = -1;
      for (const i of group) {
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
