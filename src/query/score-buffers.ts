/**
 * Per-index scratch for scoring a query, so a query allocates nothing in
 * proportion to the catalog: score arrays are taken from a pool and handed
 * back zeroed (only the documents a query touched are cleared), and each
 * term's BM25 contributions are computed once per index (they do not depend
 * on the query) and then only added up.
 * @module
 */
import { contribution, idf, type ExpandableIndex } from './expand.js';

/** Score arrays per index, free for the next query; scoring never yields, so a pool stays small (one per nested use). */
const pools = new WeakMap<ExpandableIndex, Float64Array[]>();
/** Free arrays kept per index beyond which a returned one is dropped (a `where` callback ranking again nests one more). */
const POOL_MAX = 8;

/** A zeroed score array of one entry per document of `index`; give it back with {@link releaseScores}. */
export function acquireScores(index: ExpandableIndex): Float64Array {
  const pool = pools.get(index);
  return pool?.pop() ?? new Float64Array(index.tools.length);
}

/**
 * Give back a score array taken with {@link acquireScores}, after zeroing
 * the documents in `touched` (every document it holds a score for). An array
 * not given back (an exception mid-query) is simply collected.
 */
export function releaseScores(index: ExpandableIndex, scores: Float64Array, touched: readonly number[]): void {
  if (touched.length > scores.length >>> 3) scores.fill(0);
  else for (let i = 0; i < touched.length; i++) scores[touched[i]!] = 0;
  let pool = pools.get(index);
  if (!pool) pools.set(index, (pool = []));
  if (pool.length < POOL_MAX) pool.push(scores);
}

/** Each term's contribution per posting, computed once per index (the index is immutable). */
const impactTables = new WeakMap<ExpandableIndex, Map<string, Float64Array>>();

/**
 * A term's BM25 contribution per posting, in postings order:
 * `contribution(idf(n, df), tf, k1)`, the very value (same operations, same
 * order) a query adds for it. Undefined when the index has no such term.
 */
export function impactsOf(index: ExpandableIndex, term: string): Float64Array | undefined {
  let table = impactTables.get(index);
  if (!table) impactTables.set(index, (table = new Map()));
  let impacts = table.get(term);
  if (impacts) return impacts;
  const p = index.postings.get(term);
  if (!p) return undefined;
  const w = idf(index.tools.length, p.docs.length);
  impacts = new Float64Array(p.docs.length);
  for (let j = 0; j < p.docs.length; j++) impacts[j] = contribution(w, p.tf[j]!, index.k1);
  table.set(term, impacts);
  return impacts;
}

const maxima = new WeakMap<Float64Array, number>();

/** The largest of a term's contributions ({@link impactsOf}): what the term can add to any one document, at most. */
export function maxImpactOf(impacts: Float64Array): number {
  let max = maxima.get(impacts);
  if (max === undefined) {
    max = 0;
    for (let j = 0; j < impacts.length; j++) if (impacts[j]! > max) max = impacts[j]!;
    maxima.set(impacts, max);
  }
  return max;
}
