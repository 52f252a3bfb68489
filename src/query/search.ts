/**
 * The search index: an inverted index over a catalog's tools with BM25F
 * scoring (BM25 with per-field weights and per-field length normalisation).
 *
 * Built once per catalog snapshot; a query touches only the postings of its
 * own terms. Term weights that do not depend on the query (field weight,
 * term frequency, length normalisation) are folded into each posting at
 * build time, so scoring a query is one multiply-add per posting.
 *
 * Matching goes beyond the query's own terms (./expand.ts): the vocabulary
 * bridge adds the catalog words a person's word stands for, and a term the
 * index has never seen is completed by prefix or corrected by edit distance,
 * each at a reduced weight and recorded as an expansion.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { addExpansions, expandTerms, expansionLabel, indexOfDoc, matchedExpansions, type Expansion, type QueryOptions } from './expand.js';
import { lexiconOf, type Lexicon } from './fallback.js';
import { impactsOf } from './score-buffers.js';
import { cjkTerms, numberTerms, tokenize } from './tokenize.js';

export { BRIDGE_FACTOR, BRIDGE_LIMITS, BRIDGE_MAX_POSTINGS, expandTerms, expansionLabel, matchedExpansions } from './expand.js';
export type { Expansion, ExpansionKind, QueryOptions } from './expand.js';

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
  // a parameter description's numbers are example values ("e.g., 2020, 2025"): indexed in that field only, and left
  // out of its length, so that a task's numbers (matched nowhere else) change no other score
  const numbers: string[][] = [];
  // a field's length counts its words, not the pairs of characters of its CJK runs (tokenize appends those last): a
  // run of n characters gives n - 1 overlapping pairs, so counted they would make a CJK text look several times
  // longer than the same text in words, and would shift every other text's length normalisation
  const lengths: Array<Record<SearchField, number>> = [];
  const terms: Array<Record<SearchField, string[]>> = tools.map((t) => {
    const text = fieldText(t);
    numbers.push(numberTerms(text.parameters));
    const fields = Object.fromEntries(FIELDS.map((f) => [f, tokenize(text[f])])) as Record<SearchField, string[]>;
    lengths.push(Object.fromEntries(FIELDS.map((f) => [f, fields[f].length - cjkTerms(text[f]).length])) as Record<SearchField, number>);
    return fields;
  });
  const average = Object.fromEntries(
    FIELDS.map((f) => [f, lengths.reduce((sum, d) => sum + d[f], 0) / Math.max(1, tools.length) || 1]),
  ) as Record<SearchField, number>;
  const postings = new Map<string, { docs: number[]; tf: number[] }>();
  terms.forEach((doc, i) => {
    const weighted = new Map<string, number>();
    for (const f of FIELDS) {
      const list = doc[f];
      if (list.length === 0 || weights[f] === 0) continue;
      const norm = weights[f] / (1 - b + (b * lengths[i]![f]) / average[f]);
      for (const term of list) weighted.set(term, (weighted.get(term) ?? 0) + norm);
      if (f === 'parameters') for (const term of numbers[i]!) weighted.set(term, (weighted.get(term) ?? 0) + norm);
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
 * Score every document for a query: one pass over the postings of its
 * terms, no object per hit (the ranker keeps only its top candidates).
 * Expanded terms (./expand.ts) count at their weight, and a query term
 * counts once per document through its best match, the word itself or one
 * stand-in: a tool never gains from a synonym of a word it already says.
 *
 * @example
 * scoreQuery(index, 'resize a picture').expansions // [{ from: 'pictur', term: 'imag', kind: 'bridge', ... }]
 */
export function scoreQuery(index: SearchIndex, query: string, options: QueryOptions = {}): QueryScores {
  const scores = new Float64Array(index.tools.length);
  const touched: number[] = [];
  const { terms, expansions } = scoreInto(index, query, options, scores, touched);
  return { terms, scores, touched, expansions };
}

/**
 * {@link scoreQuery} into a zeroed `scores` array of the caller's (e.g. one
 * from ./score-buffers.ts's pool), documents appended to `touched`: the same
 * scores, added in the same order, without allocating per document.
 */
export function scoreInto(index: SearchIndex, query: string, options: QueryOptions, scores: Float64Array, touched: number[]): { terms: string[]; expansions: Expansion[] } {
  const terms = [...new Set(tokenize(query))];
  for (const term of terms) {
    const docs = index.postings.get(term)?.docs;
    if (!docs) continue;
    const impacts = impactsOf(index, term)!;
    for (let j = 0; j < docs.length; j++) {
      const doc = docs[j]!;
      if (scores[doc] === 0) touched.push(doc);
      scores[doc]! += impacts[j]!;
    }
  }
  const expansions = expandTerms(index, terms, options);
  if (expansions.length > 0) addExpansions(index, expansions, scores, touched);
  return { terms, expansions };
}

/**
 * The query terms a document matched, then the expansions it matched,
 * labelled with where they came from (`"imag (from pictur, bridge)"`).
 */
export function matchedTerms(index: SearchIndex, terms: readonly string[], doc: number, expansions: readonly Expansion[] = []): string[] {
  const out: string[] = [];
  for (const term of terms) {
    const docs = index.postings.get(term)?.docs;
    if (docs && indexOfDoc(docs, doc) >= 0) out.push(term);
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
