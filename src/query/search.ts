/**
 * The search index: an inverted index over a catalog's tools with BM25F
 * scoring (BM25 with per-field weights and per-field length normalisation).
 *
 * Built once per catalog snapshot; a query touches only the postings of its
 * own terms. Term weights that do not depend on the query (field weight,
 * term frequency, length normalisation) are folded into each posting at
 * build time, so scoring a query is one multiply-add per posting.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { tokenize } from './tokenize.js';

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
}

export interface SearchHit {
  /** Index of the tool in `index.tools`. */
  doc: number;
  tool: Tool;
  /** Raw BM25F score (unbounded; compare within one query). */
  score: number;
  /** Query terms the tool matched. */
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
  return { tools, postings, k1 };
}

/** Inverse document frequency (BM25's, never negative). */
function idf(total: number, df: number): number {
  return Math.log(1 + (total - df + 0.5) / (df + 0.5));
}

/** The raw scores of one query: what `search` and the ranker build on. */
export interface QueryScores {
  /** The query's distinct terms, in order. */
  terms: string[];
  /** BM25F score per document (0 where untouched). */
  scores: Float64Array;
  /** Documents matching at least one term, in the order first matched. */
  touched: number[];
}

/**
 * Score every document for a query: one pass over the postings of its
 * terms, no object per hit (the ranker keeps only its top candidates).
 */
export function scoreQuery(index: SearchIndex, query: string): QueryScores {
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
      const tf = p.tf[j]!;
      if (scores[doc] === 0) touched.push(doc);
      scores[doc]! += (w * tf * (k1 + 1)) / (tf + k1);
    }
  }
  return { terms, scores, touched };
}

/** The query terms a document matched (postings are in document order: binary search). */
export function matchedTerms(index: SearchIndex, terms: readonly string[], doc: number): string[] {
  const out: string[] = [];
  for (const term of terms) {
    const docs = index.postings.get(term)?.docs;
    if (!docs) continue;
    let lo = 0;
    let hi = docs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = docs[mid]!;
      if (v === doc) {
        out.push(term);
        break;
      }
      if (v < doc) lo = mid + 1;
      else hi = mid - 1;
    }
  }
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
 * Tools matching at least one query term, best first (ties by name).
 *
 * @example
 * search(index, 'diff a branch', { limit: 5 })
 */
export function search(index: SearchIndex, query: string, options: { limit?: number } = {}): SearchHit[] {
  const { terms, scores, touched } = scoreQuery(index, query);
  const order = [...touched].sort((a, b) => compareHits(index, scores[a]!, a, scores[b]!, b));
  const kept = options.limit === undefined ? order : order.slice(0, options.limit);
  return kept.map((doc) => ({ doc, tool: index.tools[doc]!, score: scores[doc]!, matched: matchedTerms(index, terms, doc) }));
}
