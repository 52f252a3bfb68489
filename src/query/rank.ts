/**
 * Ranking: which tool is the best for a task. Semantic fit (the search
 * score) minus capability penalties, after the candidate scoring of the
 * capability-manifest seed (`score = fit * 100 - write 18 - approval 10 -
 * cost 8 - slow 6 - irreversible 12 - risk 5`), with the read/write intent of
 * the query deciding whether writing is a cost or the point.
 *
 * Every point taken off is recorded with its reason, so `explainRanking`
 * can show why a tool ranked where it did.
 * @module
 */
import { effectEvidence, inferWrites } from '../model/evidence.js';
import type { Tool } from '../model/schema.js';
import { RISK_LEVELS, rank as position } from '../model/vocabulary.js';
import { buildSearchIndex, compareHits, matchedTerms, scoreQuery, type SearchIndex } from './search.js';

/** Points per penalty (and the fit multiplier). */
export interface RankWeights {
  /** Fit (0..1) is multiplied by this. */
  fit: number;
  /** Mode `write` or `mixed`; waived when the query's intent is write. */
  write: number;
  /** Each call needs human approval. */
  approval: number;
  /** `cost.estimatedDollars` above COST_THRESHOLD_DOLLARS, or cost lane `high`. */
  cost: number;
  /** `latency.p95Ms` above SLOW_P95_MS. */
  slow: number;
  /** `effects.reversible: none`. */
  irreversible: number;
  /** Per risk level above `low` (medium 1x, high 2x, critical 3x), times `taskRisk`. */
  risk: number;
  /** The tool writes and the query reads, or the other way round. */
  intent: number;
}

/**
 * Default weights: the seed's 100/18/10/8/6/12/5, plus `intent`, chosen so
 * that under read intent a write tool loses at least 50 points (write +
 * intent): a read tool with half the best fit outranks it.
 */
export const DEFAULT_RANK_WEIGHTS: Readonly<RankWeights> = {
  fit: 100,
  write: 18,
  approval: 10,
  cost: 8,
  slow: 6,
  irreversible: 12,
  risk: 5,
  intent: 32,
};

/** A call costing more than this many dollars is expensive. */
export const COST_THRESHOLD_DOLLARS = 0.1;
/** A tool with a declared p95 above this many milliseconds is slow. */
export const SLOW_P95_MS = 3000;

export type Intent = 'read' | 'write' | 'unknown';

export interface RankOptions {
  /** Penalty weights. @default DEFAULT_RANK_WEIGHTS */
  weights?: Partial<RankWeights>;
  /** How much the task cares about risk: multiplies the risk penalty. @default 1 */
  taskRisk?: number;
  /** Override the intent read from the query's verbs. */
  intent?: Intent;
  /** Only rank tools passing this test (e.g. a filter from filterTools). */
  where?: (tool: Tool) => boolean;
  /** Candidates returned. @default 10 */
  limit?: number;
}

export type PenaltyCode = 'write' | 'intent' | 'approval' | 'cost' | 'slow' | 'irreversible' | 'risk';

export interface Penalty {
  code: PenaltyCode;
  /** Points taken off. */
  points: number;
  reason: string;
}

export interface Candidate {
  tool: Tool;
  /** Search score divided by the best score for this query, 0..1. */
  fit: number;
  /** Query terms the tool matched. */
  matched: string[];
  penalties: Penalty[];
  /** fit * weights.fit minus every penalty. */
  score: number;
  /** The manifest's safer alternatives. */
  alternatives: string[];
}

export interface Ranking {
  intent: Intent;
  /** What the intent was read from, e.g. `"list"`; empty when given or unknown. */
  intentEvidence: string[];
  weights: RankWeights;
  candidates: Candidate[];
}

/** Read or write intent from the verbs of a query (the evidence reader on a pseudo tool). */
export function queryIntent(query: string): { intent: Intent; evidence: string[] } {
  const evidence = effectEvidence({ name: '', description: query });
  return { intent: inferWrites(evidence), evidence: evidence.map((e) => `${e.says}: ${e.detail}`) };
}

/** Does the tool (completed) write? `mixed` counts as write, as in the model. */
const writes = (tool: Tool): boolean => (tool.effects?.mode ?? 'write') !== 'read';

/**
 * Total penalty points of a tool; with `out`, each penalty with its reason
 * is also recorded (reasons are built only then: ranking sums every hit but
 * explains only the candidates it returns).
 */
function assess(tool: Tool, intent: Intent, weights: RankWeights, taskRisk: number, out?: Penalty[]): number {
  let total = 0;
  const add = (code: PenaltyCode, points: number, reason: () => string) => {
    if (points === 0) return;
    total += points;
    out?.push({ code, points, reason: reason() });
  };
  const mode = tool.effects?.mode ?? 'write';
  if (writes(tool)) {
    if (intent !== 'write') add('write', weights.write, () => `mode is ${mode}`);
    if (intent === 'read') add('intent', weights.intent, () => `the query reads; the tool's mode is ${mode}`);
  } else if (intent === 'write') {
    add('intent', weights.intent, () => "the query writes; the tool's mode is read");
  }
  if (tool.approval?.required ?? writes(tool)) add('approval', weights.approval, () => 'each call needs human approval');
  const dollars = tool.cost?.estimatedDollars;
  if (dollars !== undefined && dollars > COST_THRESHOLD_DOLLARS) add('cost', weights.cost, () => `about $${dollars} per call (over $${COST_THRESHOLD_DOLLARS})`);
  else if (tool.cost?.lane === 'high') add('cost', weights.cost, () => 'cost lane is high');
  const p95 = tool.latency?.p95Ms;
  if (p95 !== undefined && p95 > SLOW_P95_MS) add('slow', weights.slow, () => `p95 latency ${p95} ms (over ${SLOW_P95_MS} ms)`);
  if (tool.effects?.reversible === 'none') add('irreversible', weights.irreversible, () => `cannot be undone${tool.effects?.rollbackHint ? '' : ' (no rollback hint)'}`);
  const level = position(RISK_LEVELS, tool.effects?.risk ?? 'high');
  if (level > 0) add('risk', weights.risk * level * taskRisk, () => `risk is ${RISK_LEVELS[level]}${taskRisk === 1 ? '' : ` (task risk x${taskRisk})`}`);
  return total;
}

/**
 * The penalties a tool gets for a query of this intent, each with its reason.
 * @example
 * penalties(tool, 'read', DEFAULT_RANK_WEIGHTS) // [{ code: 'write', points: 18, reason: 'mode is write' }, ...]
 */
export function penalties(tool: Tool, intent: Intent, weights: RankWeights = DEFAULT_RANK_WEIGHTS, taskRisk = 1): Penalty[] {
  const out: Penalty[] = [];
  assess(tool, intent, weights, taskRisk, out);
  return out;
}

const indexes = new WeakMap<readonly Tool[], SearchIndex>();

/** The index of a tool list, built once per list (a catalog snapshot is immutable). */
export function indexFor(tools: readonly Tool[] | SearchIndex): SearchIndex {
  if (!Array.isArray(tools)) return tools as SearchIndex;
  const list = tools as readonly Tool[];
  let index = indexes.get(list);
  if (!index) indexes.set(list, (index = buildSearchIndex(list)));
  return index;
}

/** Penalty totals per document of an index, for one intent, weights and task risk (ranking is a multiply-add per hit). */
const penaltyTables = new WeakMap<SearchIndex, Map<string, Float64Array>>();

function penaltyTable(index: SearchIndex, intent: Intent, weights: RankWeights, taskRisk: number): Float64Array {
  let tables = penaltyTables.get(index);
  if (!tables) penaltyTables.set(index, (tables = new Map()));
  const key = `${intent}|${taskRisk}|${weights.write},${weights.intent},${weights.approval},${weights.cost},${weights.slow},${weights.irreversible},${weights.risk}`;
  let table = tables.get(key);
  if (!table) {
    // a handful of keys per snapshot in practice; bound it anyway
    if (tables.size >= 64) tables.clear();
    table = new Float64Array(index.tools.length).fill(Number.NaN);
    tables.set(key, table);
  }
  return table;
}

/**
 * Rank tools for a task described in words: best first (ties by name).
 * Only tools that match at least one query term are candidates.
 *
 * Cost: one pass over the postings of the query's terms, then per matching
 * tool the filter, a table lookup for its penalties (computed once per tool,
 * intent and weights) and a comparison with the current top `limit`; only
 * the returned candidates get objects and explanations.
 *
 * @example
 * rankTools('show the diff of my branch', tools).candidates[0]?.tool.name // 'github.diff_branch'
 */
export function rankTools(query: string, tools: readonly Tool[] | SearchIndex, options: RankOptions = {}): Ranking {
  const weights = { ...DEFAULT_RANK_WEIGHTS, ...options.weights } satisfies RankWeights;
  const read = options.intent === undefined ? queryIntent(query) : { intent: options.intent, evidence: [] };
  const index = indexFor(tools);
  const taskRisk = options.taskRisk ?? 1;
  const limit = Math.max(0, options.limit ?? 10);
  const { terms, scores, touched } = scoreQuery(index, query);
  const where = options.where;
  // the documents that pass the filter, and the best raw score among them (fit is relative to it)
  const passing: number[] = [];
  let best = 0;
  for (const doc of touched) {
    if (where && !where(index.tools[doc]!)) continue;
    passing.push(doc);
    if (scores[doc]! > best) best = scores[doc]!;
  }
  const table = penaltyTable(index, read.intent, weights, taskRisk);
  const final = (doc: number) => {
    let p = table[doc]!;
    if (Number.isNaN(p)) table[doc] = p = assess(index.tools[doc]!, read.intent, weights, taskRisk);
    return (best > 0 ? scores[doc]! / best : 0) * weights.fit - p;
  };
  // top `limit` by final score (ties by name): a small sorted array, insertion from the end
  const top: Array<{ doc: number; score: number }> = [];
  for (const doc of limit === 0 ? [] : passing) {
    const score = final(doc);
    if (top.length === limit && compareHits(index, score, doc, top[limit - 1]!.score, top[limit - 1]!.doc) >= 0) continue;
    let i = Math.min(top.length, limit - 1);
    if (top.length < limit) top.push({ doc, score });
    while (i > 0 && compareHits(index, score, doc, top[i - 1]!.score, top[i - 1]!.doc) < 0) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = { doc, score };
  }
  const candidates = top.map(({ doc, score }): Candidate => {
    const tool = index.tools[doc]!;
    return {
      tool,
      fit: best > 0 ? scores[doc]! / best : 0,
      matched: matchedTerms(index, terms, doc),
      penalties: penalties(tool, read.intent, weights, taskRisk),
      score,
      alternatives: tool.alternatives ?? [],
    };
  });
  return { intent: read.intent, intentEvidence: read.evidence, weights, candidates };
}
