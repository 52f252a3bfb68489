/**
 * Ranking: which tool is the best and safest for a task. Query
 * understanding (./understand.ts) reads the task; search (./search.ts)
 * scores the fit of every tool whose terms it shares (content terms at full
 * weight, generic verbs and entity kinds at WEAK_TERM_WEIGHT); penalties
 * (./penalties.ts) take off points for what a tool would cost, scaled by how
 * sure the reading is. Ties go to the safer tool (fewer penalty points),
 * then the better fit; the name only orders what is equal in every way.
 *
 * Every point taken off is recorded with its reason, so `explainRanking`
 * can show why a tool ranked where it did.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { DEFAULT_RANK_WEIGHTS, exclusiveConfidence, penaltiesOf, penaltyParts, safetyScale, taskPenalty, type Penalty, type PenaltyContext, type RankWeights } from './penalties.js';
import { releaseScores } from './score-buffers.js';
import { buildSearchIndex, matchedTerms, type SearchIndex } from './search.js';
import { inheritAlternatives, scoreTask } from './task-scores.js';
import { namesSpeak, toolkitPrefixes, toolSignals, type ToolSignals } from './tool-signals.js';
import { understand, type Intent, type Understanding } from './understand.js';

export { DEFAULT_RANK_WEIGHTS, COST_THRESHOLD_DOLLARS, SLOW_P95_MS } from './penalties.js';
export { ALTERNATIVE_FIT, STEP_BEST_BONUS, STEP_BEST_MIN_SENTENCES, STEP_FIT, WEAK_TERM_WEIGHT } from './task-scores.js';
export type { Penalty, PenaltyCode, RankWeights } from './penalties.js';
/** Tools with at least this share of the best raw score are scored first, so the top fills with strong matches and the rest can be skipped on their bound. */
const STRONG_FIRST = 0.5;
/** When the best match does not pass the filter, the best that does is looked for among matches down to these shares of it, band by band. */
const BEST_BANDS = [0.9, 0.7, 0.5, 0.25, 0];
export type { Intent } from './understand.js';

export interface RankOptions {
  /** Penalty weights. @default DEFAULT_RANK_WEIGHTS */
  weights?: Partial<RankWeights>;
  /** How much the task cares about risk: multiplies the risk penalty. @default 1 */
  taskRisk?: number;
  /** The intent, given by the caller: overrides the one read from the task (confidence 1). */
  intent?: Intent;
  /** Only rank tools passing this test (e.g. a filter from filterTools). */
  where?: (tool: Tool) => boolean;
  /** Candidates returned. @default 10 */
  limit?: number;
  /**
   * Rank every match the long way: no bound skipping, no strong-first order,
   * no band search for the best match that passes. The answer is the same
   * (tests compare the two); only slower.
   * @default false
   */
  exhaustive?: boolean;
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
  /** When its fit was inherited: the tool whose manifest names it as a safer alternative. */
  alternativeTo?: string;
}

export interface Ranking {
  intent: Intent;
  /** How sure the intent is, 0..1 (1 when given by the caller). */
  confidence: number;
  /** What the intent was read from, e.g. `verb: "list"`, or `given by the caller`. */
  intentEvidence: string[];
  /** The task's reading besides intent: list or item, destruction asked for or ruled out, values taken out of the terms. */
  understanding: Pick<Understanding, 'scope' | 'destroys' | 'mixed' | 'avoid' | 'entities'>;
  weights: RankWeights;
  candidates: Candidate[];
}

/**
 * Read or write intent of a task, with its evidence (query understanding;
 * see ./understand.ts).
 * @example queryIntent('which PRs are waiting on me?') // { intent: 'read', confidence: 0.8, evidence: ['question: "which"'] }
 */
export function queryIntent(query: string): { intent: Intent; confidence: number; evidence: string[] } {
  const u = understand(query);
  return { intent: u.intent, confidence: u.confidence, evidence: u.evidence };
}

/**
 * The penalties a tool gets for a task of this intent (sure of it), each with its reason.
 * @example
 * penalties(tool, 'read', DEFAULT_RANK_WEIGHTS) // [{ code: 'write', points: 18, reason: 'mode is write' }, ...]
 */
export function penalties(tool: Tool, intent: Intent, weights: RankWeights = DEFAULT_RANK_WEIGHTS, taskRisk = 1): Penalty[] {
  return penaltiesOf(tool, { intent, confidence: intent === 'unknown' ? 0 : 1, destroys: false, scope: 'unknown', avoid: [], weights, taskRisk });
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

/**
 * Base penalty parts per document of an index, for one intent, destruction,
 * step count, task risk and weights (3 numbers a document: safety, intent,
 * flat); the confidence only scales them, so it is not part of the key.
 */
const penaltyTables = new WeakMap<SearchIndex, Map<string, Float64Array>>();

function penaltyTable(index: SearchIndex, ctx: PenaltyContext): Float64Array {
  let tables = penaltyTables.get(index);
  if (!tables) penaltyTables.set(index, (tables = new Map()));
  const w = ctx.weights;
  const key = `${ctx.intent}|${ctx.destroys}|${Math.min(ctx.steps ?? 1, 2)}|${ctx.taskRisk}|${Object.values(w).join(',')}`;
  let table = tables.get(key);
  if (!table) {
    // a handful of keys per snapshot in practice; bound it anyway
    if (tables.size >= 64) tables.clear();
    table = new Float64Array(index.tools.length * 3).fill(Number.NaN);
    tables.set(key, table);
  }
  return table;
}

interface SignalTable {
  /** Toolkit prefix length per document ({@link toolkitPrefixes}). */
  prefixes: Uint8Array;
  /** Whether the catalog's names say what its tools do ({@link namesSpeak}). */
  speak: boolean;
  signals: Array<ToolSignals | undefined>;
}
const signalTables = new WeakMap<SearchIndex, SignalTable>();

/** A document's tool signals, read past its toolkit prefix, from a per-index array (the hot loop avoids a WeakMap lookup per document). */
function signalsAt(index: SearchIndex, doc: number): ToolSignals {
  let table = signalTables.get(index);
  if (!table) {
    const prefixes = toolkitPrefixes(index.tools);
    signalTables.set(index, (table = { prefixes, speak: namesSpeak(index.tools, prefixes), signals: new Array<ToolSignals | undefined>(index.tools.length) }));
  }
  return (table.signals[doc] ??= signalsIn(table, index.tools[doc]!, table.prefixes[doc]!));
}

/** A tool's signals as its catalog lets them count. */
function signalsIn(table: SignalTable, tool: Tool, prefix: number): ToolSignals {
  const signals = toolSignals(tool, prefix);
  return table.speak ? signals : { ...signals, namesSpeak: false };
}

/** The task as read, or with the caller's intent (confidence 1). */
function reading(query: string, intent: Intent | undefined): Understanding {
  const u = understand(query);
  return intent === undefined ? u : { ...u, intent, confidence: intent === 'unknown' ? 0 : 1, mixed: false, evidence: ['given by the caller'] };
}

/**
 * Steps per point at which scores, penalty points and fits are compared.
 * The same sum taken in another order, or a step's share (best × fit ÷
 * top), differs in its last binary digit (0.7674418604651164 against
 * …162); compared exactly, that noise, not the tie-break, would order tools
 * equal in meaning. Rounding to a grid keeps the order transitive (an
 * equality within a tolerance would not be) and monotone, so a bound on a
 * score bounds its rounded value too. A billionth of a point is far above
 * float noise on scores of up to `weights.fit` (100) and far below any
 * difference the words or penalties make; two values a noise apart can still
 * fall either side of a grid line, about once in ten million pairs.
 */
const SCORE_STEPS = 1e9;

/** A score, penalty or fit on the comparison grid: monotone, so `x ≤ y` implies `onGrid(x) ≤ onGrid(y)`. */
const onGrid = (x: number): number => Math.round(x * SCORE_STEPS);

interface Scored {
  doc: number;
  /** The score as reported: fit × weights.fit − penalties. */
  score: number;
  /** The score on the comparison grid ({@link onGrid}). */
  level: number;
  /** Penalty points on the grid: the safer of two equal scores goes first. */
  cost: number;
  /** Fit on the grid: then the better match. */
  fit: number;
  /** The fit of the task's words alone (before a step's lift or an inherited share), on the grid: then the better match to the whole task. */
  own: number;
}

/** Best first: score, then fewer penalty points, then fit, then the fit of the task's words alone (each on the comparison grid), then name, then document number. */
function better(index: SearchIndex, a: Scored, b: Scored): number {
  if (a.level !== b.level) return b.level - a.level;
  if (a.cost !== b.cost) return a.cost - b.cost;
  if (a.fit !== b.fit) return b.fit - a.fit;
  if (a.own !== b.own) return b.own - a.own;
  const x = index.tools[a.doc]!.name;
  const y = index.tools[b.doc]!.name;
  return x < y ? -1 : x > y ? 1 : a.doc - b.doc;
}

/**
 * Rank tools for a task described in words: best first.
 * Only tools that match at least one query term are candidates.
 *
 * Cost: one pass over the postings of the query's terms, then per matching
 * tool a bound check (with no negative weight its score is at most its fit
 * times `weights.fit`: a tool that cannot beat the current last of the top
 * `limit` is skipped; strong matches go first so the bound bites early),
 * then the filter, a table lookup for its base penalties (computed once per
 * tool and context), its task penalties and a comparison with the current
 * top; only the returned candidates get objects and explanations.
 *
 * @example
 * rankTools('show the diff of my branch', tools).candidates[0]?.tool.name // 'github.diff_branch'
 */
export function rankTools(query: string, tools: readonly Tool[] | SearchIndex, options: RankOptions = {}): Ranking {
  const weights = { ...DEFAULT_RANK_WEIGHTS, ...options.weights } satisfies RankWeights;
  const u = reading(query, options.intent);
  const index = indexFor(tools);
  const ctx: PenaltyContext = { intent: u.intent, confidence: u.confidence, mixed: u.mixed, steps: u.steps, destroys: u.destroys, scope: u.scope, avoid: u.avoid, weights, taskRisk: options.taskRisk ?? 1 };
  const limit = Math.max(0, options.limit ?? 10);
  const where = options.where;
  const passes = (doc: number) => !where || where(index.tools[doc]!);
  const table = penaltyTable(index, ctx);
  const taskCosts = ctx.avoid.length > 0 || ctx.scope !== 'unknown';
  const safety = safetyScale(ctx.intent, ctx.confidence);
  const exclusive = exclusiveConfidence(ctx);
  const costOf = (doc: number): number => {
    const at = doc * 3;
    const tool = index.tools[doc]!;
    if (Number.isNaN(table[at]!)) {
      const parts = penaltyParts(tool, ctx, undefined, signalsAt(index, doc));
      table[at] = parts.safety;
      table[at + 1] = parts.intent;
      table[at + 2] = parts.flat;
    }
    const p = table[at]! * safety + table[at + 1]! * exclusive + table[at + 2]!;
    return taskCosts ? p + taskPenalty(tool, ctx, undefined, signalsAt(index, doc)) : p;
  };
  const exhaustive = options.exhaustive === true;
  // with no negative weight (the task's risk multiplies a penalty too) no penalty is negative: a tool's score is at
  // most its fit × weights.fit, so a tool that cannot beat the current last of the top is skipped before its filter
  // and penalties (the strong matches go first so the bound bites early); the exhaustive way skips nothing
  const bounded = !exhaustive && Object.values(weights).every((w) => w >= 0) && ctx.taskRisk >= 0;
  const { scores, touched, terms, expansions, own } = scoreTask(index, u);
  const inherited = inheritAlternatives(index, scores, touched, own);
  // fit is relative to the best raw score among the documents that pass the filter: usually the best of all, which passes
  let best = 0;
  let bestDoc = -1;
  for (const doc of touched) {
    if (scores[doc]! > best) {
      best = scores[doc]!;
      bestDoc = doc;
    }
  }
  // when the best does not pass, look for the best that does in bands of falling score: the first band holding one
  // holds the best of all that pass, and the documents tested so far are remembered (1 passes, 2 does not)
  let checked: Uint8Array | undefined;
  if (exhaustive && bestDoc >= 0 && !passes(bestDoc)) {
    best = 0;
    for (const doc of touched) if (scores[doc]! > best && passes(doc)) best = scores[doc]!;
  } else if (bestDoc >= 0 && !passes(bestDoc)) {
    checked = new Uint8Array(index.tools.length);
    checked[bestDoc] = 2;
    const top = best;
    best = 0;
    let upper = Infinity;
    for (const band of BEST_BANDS) {
      const lower = top * band;
      for (const doc of touched) {
        const raw = scores[doc]!;
        if (raw < lower || raw >= upper || checked[doc] !== 0) continue;
        const ok = passes(doc);
        checked[doc] = ok ? 1 : 2;
        if (ok && raw > best) best = raw;
      }
      if (best > 0) break;
      upper = lower;
    }
  }
  // fit × weights.fit, computed as the candidates' `fit` is, so `score` is exactly `fit × weights.fit − penalties`
  const upTo = (raw: number) => (best > 0 ? raw / best : 0) * weights.fit;
  // top `limit`: a small sorted array, insertion from the end; objects only for what enters it
  const top: Scored[] = [];
  const consider = (doc: number, raw: number) => {
    const worst = top.length === limit ? top[limit - 1]! : undefined;
    if (worst && bounded) {
      // on the grid, as `better` compares: a tool just below the last in float noise may tie it and win on safety
      const most = upTo(raw);
      if (onGrid(most) < worst.level) return;
      // a tool's base penalty once computed (the cached table) tightens the bound: what the task's words add is never negative
      const at = doc * 3;
      if (!Number.isNaN(table[at]!) && onGrid(most - (table[at]! * safety + table[at + 1]! * exclusive + table[at + 2]!)) < worst.level) return;
    }
    if (checked && checked[doc] !== 0 ? checked[doc] !== 1 : !passes(doc)) return;
    const cost = costOf(doc);
    const score = upTo(raw) - cost;
    const level = onGrid(score);
    if (worst && level < worst.level) return;
    const s: Scored = { doc, score, level, cost: onGrid(cost), fit: onGrid(best > 0 ? raw / best : 0), own: onGrid(best > 0 ? (own.get(doc) ?? raw) / best : 0) };
    if (worst && better(index, s, worst) >= 0) return;
    let i = Math.min(top.length, limit - 1);
    if (top.length < limit) top.push(s);
    while (i > 0 && better(index, s, top[i - 1]!) < 0) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = s;
    // a grid step below the last's level: whatever is under it is under that level on the grid too
    if (bounded && top.length === limit) floor = (top[limit - 1]!.level - 1) / SCORE_STEPS;
  };
  // below the current last of a full top (bounded only): the loops test the bound inline, as `consider` does, and call it for what passes
  let floor = -Infinity;
  if (limit > 0) {
    const strong = exhaustive ? 0 : best * STRONG_FIRST;
    const fit = weights.fit;
    for (const doc of touched) {
      const raw = scores[doc]!;
      if (raw >= strong && !((best > 0 ? raw / best : 0) * fit < floor)) consider(doc, raw);
    }
    for (const doc of touched) {
      const raw = scores[doc]!;
      if (raw < strong && !((best > 0 ? raw / best : 0) * fit < floor)) consider(doc, raw);
    }
  }
  const candidates = top.map(({ doc, score }): Candidate => {
    const tool = index.tools[doc]!;
    return {
      tool,
      fit: best > 0 ? scores[doc]! / best : 0,
      matched: matchedTerms(index, terms, doc, expansions),
      penalties: penaltiesOf(tool, ctx, signalsAt(index, doc)),
      score,
      alternatives: tool.alternatives ?? [],
      ...(inherited.has(doc) ? { alternativeTo: index.tools[inherited.get(doc)!]!.name } : {}),
    };
  });
  releaseScores(index, scores, touched);
  return {
    intent: u.intent,
    confidence: u.confidence,
    intentEvidence: u.evidence,
    understanding: { scope: u.scope, destroys: u.destroys, mixed: u.mixed, avoid: u.avoid, entities: u.entities },
    weights,
    candidates,
  };
}
