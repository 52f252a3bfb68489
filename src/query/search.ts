/**
 * The search index: an inverted index over a catalog's tools with BM25F
 * scoring (BM25 with per-field weights and per-field length normalisation).
 *
 * Built once per catalog snapshot; a query touches only the postings of its
 * own terms. Term weights that do not depend on the query (field weight,
 * term frequency, length normalisation) are folded into each posting at
 * build time, so scoring a query is one multiply-add per posting.
 *
 * Matching goes beyond the query's own terms in two ways, each at a reduced
 * weight and recorded as an expansion: the vocabulary bridge adds the
 * catalog words a person's word stands for (./vocabulary.ts), and a term the
 * index has never seen is completed by prefix or corrected by edit distance
 * (./fallback.ts).
 * @module
 */
import type { Tool } from '../model/schema.js';
import { fallbackMatches, lexiconOf, type Lexicon } from './fallback.js';
import { tokenize } from './tokenize.js';
import { defaultVocabulary, type Vocabulary } from './vocabulary.js';

/** The fields indexed, each with its weight. */
export type SearchField = 'name' | 'title' | 'tags' | 'capabilities' | 'description' | 'parameters';

/**
 * Default field weights: the name and title say what the tool is; tags and
 * capabilities are curated; descriptions are longer and looser; parameter
 * names and descriptions mostly say what a tool acts on.
 */
export const DEFAULT_FIELD_WEIGHTS: Readonly<Record<SearchField, number>> = {
  name: 3,
  title: 2.5,
  tags: 2,
  capabilities: 2,
  description: 1,
  parameters: 0.5,
};

export interface SearchOptions {
  /** Field weights. @default DEFAULT_FIELD_WEIGHTS */
  weights?: Partial<Record<SearchField, number>>;
  /** BM25 saturation: how fast repeats of a term stop adding. @default 1.2 */
  k1?: number;
  /** BM25 length normalisation, 0 (none) to 1 (full). @default 0.75 */
  b?: number;
}

export interface SearchIndex {
  readonly tools: readonly Tool[];
  /** term -> parallel arrays of document numbers and pre-weighted term frequencies. */
  readonly postings: ReadonlyMap<string, { docs: number[]; tf: number[] }>;
  readonly k1: number;
  /** Every index term, sorted and bucketed by length, for prefix and fuzzy fallback. */
  readonly lexicon: Lexicon;
}

export interface SearchHit {
  /** Index of the tool in `index.tools`. */
  doc: number;
  tool: Tool;
  /** Raw BM25F score (unbounded; compare within one query). */
  score: number;
  /** Query terms the tool matched; expanded ones labelled, e.g. `"imag (from picture, bridge)"`. */
  matched: string[];
}

const FIELDS = Object.keys(DEFAULT_FIELD_WEIGHTS) as SearchField[];

/** The text of each field of a tool. */
function fieldText(tool: Tool): Record<SearchField, string> {
  const props = typeof tool.inputSchema === 'object' ? tool.inputSchema['properties'] : undefined;
  const params: string[] = [];
  if (props !== null && typeof props === 'object' && !Array.isArray(props)) {
    for (const [name, schema] of Object.entries(props as Record<string, unknown>)) {
      params.push(name);
      const d = schema !== null && typeof schema === 'object' ? (schema as Record<string, unknown>)['description'] : undefined;
      if (typeof d === 'string') params.push(d);
    }
  }
  return {
    name: tool.name,
    title: tool.title ?? '',
    tags: (tool.tags ?? []).join(' '),
    capabilities: (tool.capabilities ?? []).join(' '),
    description: tool.description ?? '',
    parameters: params.join(' '),
  };
}

/**
 * Build the index of a list of tools (a catalog snapshot, or one persona's view).
 *
 * @example
 * const index = buildSearchIndex(personaTools(catalog));
 * search(index, 'list calendar events')[0]?.tool.name
 */
export function buildSearchIndex(tools: readonly Tool[], options: SearchOptions = {}): SearchIndex {
  const weights = { ...DEFAULT_FIELD_WEIGHTS, ...options.weights } satisfies Record<SearchField, number>;
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  const terms: Array<Record<SearchField, string[]>> = tools.map((t) => {
    const text = fieldText(t);
    return Object.fromEntries(FIELDS.map((f) => [f, tokenize(text[f])])) as Record<SearchField, string[]>;
  });
  const average = Object.fromEntries(
    FIELDS.map((f) => [f, terms.reduce((sum, d) => sum + d[f].length, 0) / Math.max(1, tools.length) || 1]),
  ) as Record<SearchField, number>;
  const postings = new Map<string, { docs: number[]; tf: number[] }>();
  terms.forEach((doc, i) => {
    const weighted = new Map<string, number>();
    for (const f of FIELDS) {
      const list = doc[f];
      if (list.length === 0 || weights[f] === 0) continue;
      const norm = weights[f] / (1 - b + (b * list.length) / average[f]);
      for (const term of list) weighted.set(term, (weighted.get(term) ?? 0) + norm);
    }
    for (const [term, tf] of weighted) {
      let p = postings.get(term);
      if (!p) postings.set(term, (p = { docs: [], tf: [] }));
      p.docs.push(i);
      p.tf.push(tf);
    }
  });
  return { tools, postings, k1, lexicon: lexiconOf(postings.keys()) };
}

/** Inverse document frequency (BM25's, never negative). */
function idf(total: number, df: number): number {
  return Math.log(1 + (total - df + 0.5) / (df + 0.5));
}

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

/** The raw scores of one query: what `search` and the ranker build on. */
export interface QueryScores {
  /** The query's distinct terms, in order. */
  terms: string[];
  /** BM25F score per document (0 where untouched). */
  scores: Float64Array;
  /** Documents matching at least one term, in the order first matched. */
  touched: number[];
  /** Terms scored on the query's behalf (bridge, prefix, fuzzy), for explanations. */
  expansions: Expansion[];
}

/**
 * How much a bridged term counts against a direct match of the same term,
 * before the association's own weight: a bridged term never outweighs the word itself.
 */
export const BRIDGE_FACTOR = 0.5;

/**
 * A bridged term found in more than this share of the tools is not added:
 * it says little (its idf is low) and would touch much of the catalog.
 */
export const BRIDGE_MAX_SHARE = 0.05;

/**
 * At most `perTerm` bridged terms per query term (its strongest that the
 * catalog has) and `perQuery` per query (the strongest): a long task would
 * otherwise bring dozens of weak terms and touch much of the catalog.
 */
export const BRIDGE_LIMITS: Readonly<{ perTerm: number; perQuery: number }> = { perTerm: 3, perQuery: 12 };

/** Options of one query. */
export interface QueryOptions {
  /** The vocabulary bridge, or `false` for none. @default the shipped bridge (data/vocabulary.json) */
  vocabulary?: Vocabulary | false;
  /** Multiplier on bridged terms (times each association's weight). @default BRIDGE_FACTOR */
  bridgeFactor?: number;
  /** Bridged terms in more than this share of the tools are left out. @default BRIDGE_MAX_SHARE */
  bridgeMaxShare?: number;
  /** Bridged terms per query term and per query. @default BRIDGE_LIMITS */
  bridgeLimits?: { perTerm?: number; perQuery?: number };
  /** Prefix and fuzzy matching for query terms the index has no postings for. @default true */
  fallback?: boolean;
}

/**
 * The expansions of a query's terms: bridged terms the query does not
 * already contain (one entry per index term, its strongest association), and
 * fallback matches for terms without postings. Only terms the index has are kept.
 */
export function expandTerms(index: SearchIndex, terms: readonly string[], options: QueryOptions = {}): Expansion[] {
  const out: Expansion[] = [];
  const own = new Set(terms);
  const vocabulary = options.vocabulary ?? defaultVocabulary();
  if (vocabulary !== false) {
    const factor = options.bridgeFactor ?? BRIDGE_FACTOR;
    const most = (options.bridgeMaxShare ?? BRIDGE_MAX_SHARE) * index.tools.length;
    const limits = { ...BRIDGE_LIMITS, ...options.bridgeLimits } satisfies { perTerm: number; perQuery: number };
    const best = new Map<string, Expansion>();
    for (const from of terms) {
      let taken = 0;
      for (const { term, weight, sources } of vocabulary.bridge(from)) {
        if (taken === limits.perTerm) break;
        const df = index.postings.get(term)?.docs.length ?? 0;
        if (own.has(term) || df === 0 || df > most) continue;
        taken++;
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

/** The BM25 contribution of one posting. */
const contribution = (w: number, tf: number, k1: number) => (w * tf * (k1 + 1)) / (tf + k1);

/**
 * Score every document for a query: one pass over the postings of its
 * terms, no object per hit (the ranker keeps only its top candidates).
 * Expanded terms count at their weight, and the expansions of one query term
 * count once per document (their best), so a word with many stand-ins does
 * not outweigh a word matched directly.
 *
 * @example
 * scoreQuery(index, 'resize a picture').expansions // [{ from: 'pictur', term: 'imag', kind: 'bridge', ... }]
 */
export function scoreQuery(index: SearchIndex, query: string, options: QueryOptions = {}): QueryScores {
  const terms = [...new Set(tokenize(query))];
  const n = index.tools.length;
  const k1 = index.k1;
  const scores = new Float64Array(n);
  const touched: number[] = [];
  for (const term of terms) {
    const p = index.postings.get(term);
    if (!p) continue;
    const w = idf(n, p.docs.length);
    for (let j = 0; j < p.docs.length; j++) {
      const doc = p.docs[j]!;
      if (scores[doc] === 0) touched.push(doc);
      scores[doc]! += contribution(w, p.tf[j]!, k1);
    }
  }
  const expansions = expandTerms(index, terms, options);
  if (expansions.length > 0) addExpansions(index, expansions, scores, touched);
  return { terms, scores, touched, expansions };
}

/** Scratch arrays per index, reused by every query (scoring never yields, so one set suffices). */
const scratch = new WeakMap<SearchIndex, { best: Float64Array; direct: Float64Array }>();

/**
 * Add expanded terms' scores. A query term counts once per document, through
 * its best match: the word itself or its best stand-in, so an expansion only
 * adds where it beats the direct match (a tool that already says the word
 * gains nothing from its synonyms).
 */
function addExpansions(index: SearchIndex, expansions: readonly Expansion[], scores: Float64Array, touched: number[]): void {
  const n = index.tools.length;
  let arrays = scratch.get(index);
  if (!arrays) scratch.set(index, (arrays = { best: new Float64Array(n), direct: new Float64Array(n) }));
  const { best, direct } = arrays;
  const hit: number[] = [];
  const groups = new Map<string, Expansion[]>();
  for (const e of expansions) {
    const group = groups.get(e.from);
    if (group) group.push(e);
    else groups.set(e.from, [e]);
  }
  for (const [from, group] of groups) {
    const own = index.postings.get(from);
    if (own) {
      const w = idf(n, own.docs.length);
      for (let j = 0; j < own.docs.length; j++) direct[own.docs[j]!] = contribution(w, own.tf[j]!, index.k1);
    }
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
    for (const doc of hit) {
      const gain = best[doc]! - direct[doc]!;
      if (gain > 0) {
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += gain;
      }
      best[doc] = 0;
    }
    hit.length = 0;
    if (own) for (const doc of own.docs) direct[doc] = 0;
  }
}

/** Is `doc` in a postings list (document order: binary search)? */
function hasDoc(docs: readonly number[], doc: number): boolean {
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = docs[mid]!;
    if (v === doc) return true;
    if (v < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * How an expansion reads in a list of matched terms.
 * @example expansionLabel({ from: 'pictur', term: 'imag', kind: 'bridge', weight: 0.2 }) // 'imag (from pictur, bridge)'
 */
export const expansionLabel = (e: Expansion): string => `${e.term} (from ${e.from}, ${e.kind})`;

/** The expansions a document matched, in the order given. */
export function matchedExpansions(index: SearchIndex, expansions: readonly Expansion[], doc: number): Expansion[] {
  return expansions.filter((e) => {
    const docs = index.postings.get(e.term)?.docs;
    return docs !== undefined && hasDoc(docs, doc);
  });
}

/**
 * The query terms a document matched, then the expansions it matched,
 * labelled with where they came from (`"imag (from pictur, bridge)"`).
 */
export function matchedTerms(index: SearchIndex, terms: readonly string[], doc: number, expansions: readonly Expansion[] = []): string[] {
  const out: string[] = [];
  for (const term of terms) {
    const docs = index.postings.get(term)?.docs;
    if (docs && hasDoc(docs, doc)) out.push(term);
  }
  for (const e of matchedExpansions(index, expansions, doc)) out.push(expansionLabel(e));
  return out;
}

/** Best first: higher score, then name, then document number. */
export function compareHits(index: SearchIndex, scoreA: number, docA: number, scoreB: number, docB: number): number {
  if (scoreA !== scoreB) return scoreB - scoreA;
  const a = index.tools[docA]!.name;
  const b = index.tools[docB]!.name;
  return a < b ? -1 : a > b ? 1 : docA - docB;
}

/**
 * Tools matching at least one query term (or an expansion of one), best
 * first (ties by name).
 *
 * @example
 * search(index, 'diff a branch', { limit: 5 })
 */
export function search(index: SearchIndex, query: string, options: QueryOptions & { limit?: number } = {}): SearchHit[] {
  const { terms, scores, touched, expansions } = scoreQuery(index, query, options);
  const order = [...touched].sort((a, b) => compareHits(index, scores[a]!, a, scores[b]!, b));
  const kept = options.limit === undefined ? order : order.slice(0, options.limit);
  return kept.map((doc) => ({ doc, tool: index.tools[doc]!, score: scores[doc]!, matched: matchedTerms(index, terms, doc, expansions) }));
}
