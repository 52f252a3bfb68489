/**
 * Per-snapshot indexes for the `/tools` filters, so a filter never seen
 * before costs the size of its answer rather than a scan of every tool.
 *
 * Positions are indexes into `snapshot.ordered` (name, then key: the order
 * of `/tools`), so every answer comes out already in order. Fields with few
 * values (side effects, risk, mode, domain, operation, approval, enabled,
 * shared) are bitmaps, the "at most" ones cumulative (one bitmap per level
 * holding every tool at or below it); fields with many values (provider,
 * tag, capability and its dotted prefixes, version, persona) are sorted
 * postings. A query intersects them: the shortest postings list drives and
 * every other constraint is a bit test, or, with bitmaps only, a word-wise
 * AND. The semantics are `filterTools`' (test/query/filter-index.test.ts
 * checks every filter and combinations against that scan).
 *
 * An index is built on a snapshot's first filtered read and kept with the
 * snapshot in a WeakMap, so it lives and dies with it.
 * @module
 */
import semver from 'semver';
import type { Tool } from '../model/schema.js';
import { compareToolOrder } from '../model/tool-key.js';
import { RISK_LEVELS, SIDE_EFFECTS, rank } from '../model/vocabulary.js';
import type { HealthSource } from '../model/health.js';
import type { Snapshot } from '../registry/snapshot.js';
import { decodeCursor, NO_SHARED, type ToolFilter } from './filters.js';

/** A set of positions as bits, 32 per word. */
type Bitmap = Uint32Array;
/** A set of positions, ascending. */
type Postings = Uint32Array;

const bitmap = (n: number): Bitmap => new Uint32Array((n + 31) >>> 5);
const setBit = (b: Bitmap, i: number) => {
  b[i >>> 5] = (b[i >>> 5] as number) | (1 << (i & 31));
};
const clearBit = (b: Bitmap, i: number) => {
  b[i >>> 5] = (b[i >>> 5] as number) & ~(1 << (i & 31));
};
const hasBit = (b: Bitmap, i: number): boolean => ((b[i >>> 5] as number) & (1 << (i & 31))) !== 0;
const EMPTY_POSTINGS: Postings = new Uint32Array(0);

/** Positions grouped by a value, each group ascending (positions are added in order). */
class Groups {
  readonly #lists = new Map<string, number[]>();
  add(value: string, position: number): void {
    const list = this.#lists.get(value);
    if (!list) this.#lists.set(value, [position]);
    else if (list[list.length - 1] !== position) list.push(position);
  }
  freeze(): Map<string, Postings> {
    const out = new Map<string, Postings>();
    for (const [k, v] of this.#lists) out.set(k, Uint32Array.from(v));
    return out;
  }
}

/** The indexes of one snapshot's tools. */
export class FilterIndex {
  /** Tools counted. */
  readonly size: number;
  readonly #ordered: Snapshot['ordered'];
  readonly #provider: Map<string, Postings>;
  readonly #tag: Map<string, Postings>;
  readonly #capability: Map<string, Postings>;
  /** Capability `a.b.c` listed under `a`, `a.b` and `a.b.c`: what `a.b.*` asks for. */
  readonly #capabilityPrefix: Map<string, Postings>;
  /** By valid semver version; tools without one are in none. */
  readonly #version: Map<string, Postings>;
  /** Scoped tools by persona. */
  readonly #persona: Map<string, Postings>;
  readonly #shared: Bitmap;
  /** For a scoped tool, the position of the shared tool of its name (which it shadows), else -1. */
  readonly #twin: Int32Array;
  /** `sideEffects` at most level i. */
  readonly #sideEffects: Bitmap[];
  readonly #risk: Bitmap[];
  readonly #mode = new Map<string, Bitmap>();
  readonly #domain = new Map<string, Bitmap>();
  readonly #operation = new Map<string, Bitmap>();
  readonly #approval: Bitmap;
  readonly #enabled: Bitmap;

  constructor(ordered: Snapshot['ordered']) {
    const n = ordered.length;
    this.size = n;
    this.#ordered = ordered;
    const provider = new Groups();
    const tag = new Groups();
    const capability = new Groups();
    const prefix = new Groups();
    const version = new Groups();
    const persona = new Groups();
    this.#shared = bitmap(n);
    this.#twin = new Int32Array(n).fill(-1);
    const sharedAt = new Map<string, number>();
    this.#approval = bitmap(n);
    this.#enabled = bitmap(n);
    this.#sideEffects = SIDE_EFFECTS.map(() => bitmap(n));
    this.#risk = RISK_LEVELS.map(() => bitmap(n));
    const into = (map: Map<string, Bitmap>, value: string, i: number) => {
      let b = map.get(value);
      if (!b) map.set(value, (b = bitmap(n)));
      setBit(b, i);
    };
    const atMost = (levels: Bitmap[], r: number, i: number) => {
      // a tool at level r is "at most" r and every level above it; unknown (-1) is at most nothing
      if (r >= 0) for (let l = r; l < levels.length; l++) setBit(levels[l] as Bitmap, i);
    };
    for (let i = 0; i < n; i++) {
      const tool = (ordered[i] as { value: Tool }).value;
      for (const p of tool.providers ?? []) provider.add(p.name, i);
      for (const t of tool.tags ?? []) tag.add(t, i);
      for (const c of tool.capabilities ?? []) {
        capability.add(c, i);
        let dot = c.indexOf('.');
        while (dot >= 0) {
          prefix.add(c.slice(0, dot), i);
          dot = c.indexOf('.', dot + 1);
        }
        prefix.add(c, i);
      }
      const v = tool.version === undefined ? null : semver.valid(tool.version);
      if (v !== null) version.add(v, i);
      const personas = tool.scope?.personas ?? [];
      if (personas.length === 0) {
        setBit(this.#shared, i);
        sharedAt.set(tool.name, i);
      }
      for (const p of personas) persona.add(p, i);
      const e = tool.effects;
      atMost(this.#sideEffects, rank(SIDE_EFFECTS, e?.sideEffects), i);
      atMost(this.#risk, rank(RISK_LEVELS, e?.risk), i);
      if (e?.mode !== undefined) into(this.#mode, e.mode, i);
      for (const d of tool.surface?.domains ?? []) into(this.#domain, d, i);
      for (const o of tool.surface?.operations ?? []) into(this.#operation, o, i);
      // silence on approval reads as "required", as filterTools does
      if (tool.approval?.required ?? true) setBit(this.#approval, i);
      if (tool.enabled !== false) setBit(this.#enabled, i);
    }
    for (let i = 0; i < n; i++) if (!hasBit(this.#shared, i)) this.#twin[i] = sharedAt.get(this.tool(i).name) ?? -1;
    this.#provider = provider.freeze();
    this.#tag = tag.freeze();
    this.#capability = capability.freeze();
    this.#capabilityPrefix = prefix.freeze();
    this.#version = version.freeze();
    this.#persona = persona.freeze();
  }

  /**
   * Positions (into `snapshot.ordered`) of the tools passing the filter's
   * fields and persona rule, ascending: `filterTools` without health and
   * paging. With `health` (each position's success rate, NaN for none:
   * {@link successRates}), a candidate whose rate is below `minSuccessRate`
   * is dropped after the fields and before persona shadowing, as
   * `filterTools` does; tools without data pass.
   */
  match(filter: ToolFilter, health?: Float64Array): Postings {
    return positions(this.matchBits(filter, health));
  }

  /** {@link match} as a bitmap over `snapshot.ordered`: a page of it is read without listing every match ({@link pageOfBits}). */
  matchBits(filter: ToolFilter, health?: Float64Array): Uint32Array {
    const n = this.size;
    const lists: Postings[] = [];
    const maps: Bitmap[] = [];
    const f = filter;
    const exact = (index: Map<string, Postings>, value: string | undefined) => {
      if (value !== undefined) lists.push(index.get(value) ?? EMPTY_POSTINGS);
    };
    const bits = (b: Bitmap | undefined) => maps.push(b ?? bitmap(n));
    exact(this.#provider, f.provider);
    exact(this.#tag, f.tag);
    if (f.capability !== undefined) {
      if (f.capability.endsWith('.*')) exact(this.#capabilityPrefix, f.capability.slice(0, -2));
      else exact(this.#capability, f.capability);
    }
    if (f.version !== undefined) maps.push(this.#versions(f.version));
    if (f.sideEffects !== undefined) bits(this.#sideEffects[rank(SIDE_EFFECTS, f.sideEffects)]);
    if (f.maxRisk !== undefined) bits(this.#risk[rank(RISK_LEVELS, f.maxRisk)]);
    if (f.mode !== undefined) bits(this.#mode.get(f.mode));
    if (f.domain !== undefined) bits(this.#domain.get(f.domain));
    if (f.operation !== undefined) bits(this.#operation.get(f.operation));
    if (f.approval !== undefined) maps.push(f.approval ? this.#approval : this.#not(this.#approval));
    if (f.enabled !== undefined) maps.push(f.enabled ? this.#enabled : this.#not(this.#enabled));
    const personas = f.personas !== undefined && f.personas.length > 0 ? f.personas : undefined;
    if (personas) maps.push(this.#personaBits(personas));

    let candidates: Bitmap;
    if (lists.length > 0) {
      lists.sort((a, b) => a.length - b.length);
      const driver = lists[0] as Postings;
      const all = [...lists.slice(1).map((l) => this.#toBitmap(l)), ...maps];
      candidates = bitmap(n);
      outer: for (const i of driver) {
        for (const b of all) if (!hasBit(b, i)) continue outer;
        setBit(candidates, i);
      }
    } else if (maps.length > 0) {
      candidates = (maps[0] as Bitmap).slice();
      for (let m = 1; m < maps.length; m++) {
        const b = maps[m] as Bitmap;
        for (let w = 0; w < candidates.length; w++) candidates[w] = (candidates[w] as number) & (b[w] as number);
      }
    } else {
      candidates = this.#not(bitmap(n));
    }
    const min = f.minSuccessRate;
    if (health !== undefined && min !== undefined) {
      for (let w = 0; w < candidates.length; w++) {
        let word = candidates[w] as number;
        while (word !== 0) {
          const low = word & -word;
          const i = (w << 5) + (31 - Math.clz32(low));
          if ((health[i] as number) < min) clearBit(candidates, i);
          word ^= low;
        }
      }
    }
    if (personas) this.#shadow(candidates, personas);
    return candidates;
  }

  /** The tool at a position. */
  tool(position: number): Tool {
    return (this.#ordered[position] as { value: Tool }).value;
  }

  /**
   * Positions `start` to `end` (exclusive) among the set bits of `bits`, and
   * how many bits are set: a page costs a pass over the words, not a list of
   * every match. With a cursor, the page starts after the cursor's position.
   */
  pageOfBits(bits: Uint32Array, paging: { start: number; cursor?: string; limit?: number }): { total: number; start: number; positions: number[] } {
    let total = 0;
    for (const w of bits) total += popcount(w);
    let start = Math.max(0, paging.start);
    if (paging.cursor !== undefined) {
      const at = decodeCursor(paging.cursor);
      start = at === undefined ? 0 : rankBefore(bits, this.#firstAfter(at));
    }
    const end = paging.limit === undefined ? total : Math.min(total, start + Math.max(0, paging.limit));
    const out: number[] = [];
    let seen = 0;
    for (let w = 0; w < bits.length && seen < end; w++) {
      let word = bits[w] as number;
      const count = popcount(word);
      if (seen + count <= start) {
        seen += count;
        continue;
      }
      while (word !== 0 && seen < end) {
        const low = word & -word;
        if (seen >= start) out.push((w << 5) + (31 - Math.clz32(low)));
        seen++;
        word ^= low;
      }
    }
    return { total, start, positions: out };
  }

  /** The first position of `snapshot.ordered` after a cursor's (name, key). */
  #firstAfter(at: { name: string; key: string }): number {
    const probe = { key: at.key, tool: { name: at.name } as Tool };
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const entry = this.#ordered[mid] as { key: string; value: Tool };
      if (compareToolOrder({ key: entry.key, tool: entry.value }, probe) > 0) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Shared tools (unless `-shared`) and the listed personas' tools. */
  #personaBits(personas: readonly string[]): Bitmap {
    const out = personas.includes(NO_SHARED) ? bitmap(this.size) : this.#shared.slice();
    for (const p of personas) if (p !== NO_SHARED) for (const i of this.#persona.get(p) ?? EMPTY_POSTINGS) setBit(out, i);
    return out;
  }

  /** A persona's version shadows the shared tool of the same name, among the tools that passed: clear those shared tools. */
  #shadow(candidates: Bitmap, personas: readonly string[]): void {
    for (const p of personas) {
      if (p === NO_SHARED) continue;
      for (const i of this.#persona.get(p) ?? EMPTY_POSTINGS) {
        const twin = this.#twin[i] as number;
        if (twin >= 0 && hasBit(candidates, i)) clearBit(candidates, twin);
      }
    }
  }

  #versions(range: string): Bitmap {
    const out = bitmap(this.size);
    for (const [v, list] of this.#version) if (semver.satisfies(v, range)) for (const i of list) setBit(out, i);
    return out;
  }

  #toBitmap(list: Postings): Bitmap {
    const out = bitmap(this.size);
    for (const i of list) setBit(out, i);
    return out;
  }

  #not(b: Bitmap): Bitmap {
    const out = bitmap(this.size);
    for (let w = 0; w < out.length; w++) out[w] = ~(b[w] as number) >>> 0;
    const tail = this.size & 31;
    if (tail !== 0) out[out.length - 1] = (out[out.length - 1] as number) & ((1 << tail) - 1);
    return out;
  }
}

/** The set bits of a bitmap, ascending. */
function positions(words: Bitmap): Postings {
  let count = 0;
  for (const w of words) count += popcount(w);
  const out = new Uint32Array(count);
  let k = 0;
  for (let w = 0; w < words.length; w++) {
    let word = words[w] as number;
    while (word !== 0) {
      const low = word & -word;
      out[k++] = (w << 5) + (31 - Math.clz32(low));
      word ^= low;
    }
  }
  return out;
}

/** Set bits of `bits` before `position`. */
function rankBefore(bits: Uint32Array, position: number): number {
  let n = 0;
  const whole = position >>> 5;
  for (let w = 0; w < whole && w < bits.length; w++) n += popcount(bits[w] as number);
  const rest = position & 31;
  if (rest !== 0 && whole < bits.length) n += popcount((bits[whole] as number) & ((1 << rest) - 1));
  return n;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

const indexes = new WeakMap<Snapshot, FilterIndex>();
const rates = new WeakMap<Snapshot, { source: HealthSource; version: number; rates: Float64Array }>();

/**
 * Each tool's observed success rate by position (NaN: no data), read once
 * per snapshot, health source and health version, so a `min_success_rate`
 * filter reads an array instead of asking the health book for every tool.
 */
export function successRates(snapshot: Snapshot, health: HealthSource): Float64Array {
  const version = health.version();
  const cached = rates.get(snapshot);
  if (cached !== undefined && cached.source === health && cached.version === version) return cached.rates;
  const out = new Float64Array(snapshot.ordered.length);
  for (let i = 0; i < out.length; i++) {
    const rate = health.lookup((snapshot.ordered[i] as { value: Tool }).value.name)?.successRate;
    out[i] = typeof rate === 'number' && Number.isFinite(rate) ? rate : Number.NaN;
  }
  rates.set(snapshot, { source: health, version, rates: out });
  return out;
}

/** The filter index of a snapshot, built on first use and kept as long as the snapshot. */
export function filterIndex(snapshot: Snapshot): FilterIndex {
  let index = indexes.get(snapshot);
  if (!index) indexes.set(snapshot, (index = new FilterIndex(snapshot.ordered)));
  return index;
}
