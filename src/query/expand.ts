/**
 * Query expansion: index terms scored on a query's behalf, each at a reduced
 * weight and recorded so an explanation can say where it came from. The
 * vocabulary bridge adds the catalog words a person's word stands for
 * (./vocabulary.ts, learned from real query-tool pairs); a term the index has
 * never seen is completed by prefix or corrected by edit distance
 * (./fallback.ts). A query term counts once per tool, through its best match.
 * @module
 */
import { fallbackMatches, type Lexicon } from './fallback.js';
import { defaultVocabulary, type BridgeTerm, type Vocabulary } from './vocabulary.js';

/** What expansion needs of a search index (./search.ts's `SearchIndex` has it all). */
export interface ExpandableIndex {
  readonly tools: { readonly length: number };
  /** term -> parallel arrays of document numbers (ascending) and pre-weighted term frequencies. */
  readonly postings: ReadonlyMap<string, { docs: number[]; tf: number[] }>;
  readonly k1: number;
  /** Every index term, sorted and bucketed by length, for prefix and fuzzy fallback. */
  readonly lexicon: Lexicon;
}

/** Inverse document frequency (BM25's, never negative). */
export function idf(total: number, df: number): number {
  return Math.log(1 + (total - df + 0.5) / (df + 0.5));
}

/** The BM25 contribution of one posting (term weight `w`, pre-weighted frequency `tf`). */
export const contribution = (w: number, tf: number, k1: number): number => (w * tf * (k1 + 1)) / (tf + k1);

/** How an expanded term came into a query. */
export type ExpansionKind = 'bridge' | 'prefix' | 'fuzzy';

/** An index term scored for a query that does not contain it. */
export interface Expansion {
  /** The query term it stands for. */
  from: string;
  /** The index term scored. */
  term: string;
  kind: ExpansionKind;
  /** Multiplier on the term's normal score, in (0, 1): association weight x bridge factor, or the fallback weight. */
  weight: number;
  /** For the bridge: the data sets the association comes from (short codes, see data/vocabulary.json). */
  sources?: string;
}

/**
 * How much a bridged term counts against a direct match of the same term,
 * before the association's own weight: a bridged term never outweighs the word itself.
 */
export const BRIDGE_FACTOR = 0.5;

/**
 * A bridged term found in more than this many tools is not added: it would
 * touch much of a large catalog for a small score (its idf is low). With
 * `BRIDGE_LIMITS.perQuery` this bounds the work the bridge adds to a query
 * (at most 8 x 100 postings).
 */
export const BRIDGE_MAX_POSTINGS = 100;

/**
 * At most `perTerm` bridged terms per query term (its strongest that the
 * catalog has) and `perQuery` per query (the strongest): a long task would
 * otherwise bring dozens of weak terms and touch much of the catalog.
 */
export const BRIDGE_LIMITS: Readonly<{ perTerm: number; perQuery: number }> = { perTerm: 3, perQuery: 8 };

/** Options of one query. */
export interface QueryOptions {
  /** The vocabulary bridge, or `false` for none. @default the shipped bridge (data/vocabulary.json) */
  vocabulary?: Vocabulary | false;
  /** Multiplier on bridged terms (times each association's weight). @default BRIDGE_FACTOR */
  bridgeFactor?: number;
  /** Bridged terms per query term and per query. @default BRIDGE_LIMITS */
  bridgeLimits?: { perTerm?: number; perQuery?: number };
  /** Prefix and fuzzy matching for query terms the index has no postings for. @default true */
  fallback?: boolean;
}

/** The bridge as one index sees it, per vocabulary and limits (built on first use). */
const resolvedBridges = new WeakMap<ExpandableIndex, Map<Vocabulary, { key: string; map: Map<string, BridgeTerm[]> }>>();

/**
 * A vocabulary's associations cut to what an index can use: per query term,
 * its strongest `perTerm` targets that the index has in at most
 * `BRIDGE_MAX_POSTINGS` tools. Built once per index and
 * vocabulary, so a query looks up each of its terms once.
 */
function bridgeOf(index: ExpandableIndex, vocabulary: Vocabulary, perTerm: number): Map<string, BridgeTerm[]> {
  let byVocabulary = resolvedBridges.get(index);
  if (!byVocabulary) resolvedBridges.set(index, (byVocabulary = new Map()));
  const key = String(perTerm);
  const cached = byVocabulary.get(vocabulary);
  if (cached?.key === key) return cached.map;
  const map = new Map<string, BridgeTerm[]>();
  for (const from of vocabulary.terms()) {
    const kept: BridgeTerm[] = [];
    for (const target of vocabulary.bridge(from)) {
      if (kept.length === perTerm) break;
      const df = index.postings.get(target.term)?.docs.length ?? 0;
      if (df > 0 && df <= BRIDGE_MAX_POSTINGS) kept.push(target);
    }
    if (kept.length > 0) map.set(from, kept);
  }
  byVocabulary.set(vocabulary, { key, map });
  return map;
}

/**
 * The expansions of a query's terms: bridged terms the query does not
 * already contain (one entry per index term, its strongest association), and
 * fallback matches for terms without postings. Only terms the index has are kept.
 */
export function expandTerms(index: ExpandableIndex, terms: readonly string[], options: QueryOptions = {}): Expansion[] {
  const out: Expansion[] = [];
  const own = new Set(terms);
  const vocabulary = options.vocabulary ?? defaultVocabulary();
  if (vocabulary !== false) {
    const factor = options.bridgeFactor ?? BRIDGE_FACTOR;
    const limits = { ...BRIDGE_LIMITS, ...options.bridgeLimits } satisfies { perTerm: number; perQuery: number };
    const resolved = bridgeOf(index, vocabulary, limits.perTerm);
    const best = new Map<string, Expansion>();
    for (const from of terms) {
      for (const { term, weight, sources } of resolved.get(from) ?? []) {
        if (own.has(term)) continue;
        const old = best.get(term);
        if (!old || old.weight < weight * factor) best.set(term, { from, term, kind: 'bridge', weight: weight * factor, sources });
      }
    }
    // the strongest, when a long query brings many (ties: the query's order)
    out.push(...[...best.values()].sort((a, b) => b.weight - a.weight).slice(0, limits.perQuery));
  }
  if (options.fallback !== false) {
    const has = (t: string) => index.postings.has(t);
    for (const from of terms) {
      if (has(from)) continue;
      for (const m of fallbackMatches(index.lexicon, from, has)) if (!own.has(m.term)) out.push({ from, term: m.term, kind: m.kind, weight: m.weight });
    }
  }
  return out;
}

/** A scratch array per index, reused by every query (scoring never yields, so one suffices). */
const scratch = new WeakMap<ExpandableIndex, Float64Array>();

/**
 * Add expanded terms' scores. A query term counts once per document, through
 * its best match: the word itself or its best stand-in, so an expansion only
 * adds where it beats the direct match (a tool that already says the word
 * gains nothing from its synonyms).
 */
export function addExpansions(index: ExpandableIndex, expansions: readonly Expansion[], scores: Float64Array, touched: number[]): void {
  const n = index.tools.length;
  let best = scratch.get(index);
  if (!best) scratch.set(index, (best = new Float64Array(n)));
  const hit: number[] = [];
  const groups = new Map<string, Expansion[]>();
  for (const e of expansions) {
    const group = groups.get(e.from);
    if (group) group.push(e);
    else groups.set(e.from, [e]);
  }
  for (const [from, group] of groups) {
    for (const { term, weight } of group) {
      const p = index.postings.get(term);
      if (!p) continue;
      const w = weight * idf(n, p.docs.length);
      for (let j = 0; j < p.docs.length; j++) {
        const doc = p.docs[j]!;
        const s = contribution(w, p.tf[j]!, index.k1);
        if (best[doc] === 0) hit.push(doc);
        if (s > best[doc]!) best[doc] = s;
      }
    }
    // the direct match of the same word, for the (few) documents an expansion reached
    const own = index.postings.get(from);
    const w = own ? idf(n, own.docs.length) : 0;
    for (const doc of hit) {
      const at = own ? indexOfDoc(own.docs, doc) : -1;
      const gain = best[doc]! - (at < 0 ? 0 : contribution(w, own!.tf[at]!, index.k1));
      if (gain > 0) {
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += gain;
      }
      best[doc] = 0;
    }
    hit.length = 0;
  }
}

/** Position of `doc` in a postings list (document order: binary search), or -1. */
export function indexOfDoc(docs: readonly number[], doc: number): number {
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = docs[mid]!;
    if (v === doc) return mid;
    if (v < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * How an expansion reads in a list of matched terms.
 * @example expansionLabel({ from: 'pictur', term: 'imag', kind: 'bridge', weight: 0.2 }) // 'imag (from pictur, bridge)'
 */
export const expansionLabel = (e: Expansion): string => `${e.term} (from ${e.from}, ${e.kind})`;

const has = (index: ExpandableIndex, term: string, doc: number): boolean => {
  const docs = index.postings.get(term)?.docs;
  return docs !== undefined && indexOfDoc(docs, doc) >= 0;
};

/**
 * The expansions a document matched that stood in for a word it does not
 * say itself (where it says the word, the word is what matched), in the order given.
 */
export function matchedExpansions(index: ExpandableIndex, expansions: readonly Expansion[], doc: number): Expansion[] {
  return expansions.filter((e) => has(index, e.term, doc) && !has(index, e.from, doc));
}

