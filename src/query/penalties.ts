/**
 * Penalties: the points a tool loses for a task, each with its reason.
 * After the candidate scoring of the capability-manifest seed (`score = fit *
 * 100 - write 18 - approval 10 - cost 8 - slow 6 - irreversible 12 - risk
 * 5`), with what query understanding read from the task deciding how much
 * each counts:
 * - the read/write intent decides whether writing is a cost or the point,
 *   and the intent penalty is scaled by how sure the reading is;
 * - when the intent is unknown or unsure, the safety penalties shrink (to
 *   40% when unknown), so a write tool that fits perfectly is not swamped by
 *   a read tool that fits half as well; they still order near-ties;
 * - among writes, destroying costs extra unless the task asks to destroy;
 *   a tool named after a verb the task rules out ("don't delete") costs a
 *   lot; a single-item tool for a list task (or the reverse) costs a little;
 * - in a catalog silent on effects, for a one-step read task, only a tool
 *   named after a write confirms its conservative label: the write,
 *   approval, irreversibility and risk derived from silence do not count
 *   against the others (so a write-named tool that fits better has to beat
 *   about the same gap as in a catalog that declares its modes).
 * @module
 */
import { isDerived } from '../model/derive.js';
import type { Tool } from '../model/schema.js';
import { RISK_LEVELS, rank as position } from '../model/vocabulary.js';
import { toolSignals, type ToolSignals } from './tool-signals.js';
import type { Intent, Scope } from './understand.js';

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
  /** The tool writes and the query reads, or the other way round (times the intent's confidence). */
  intent: number;
  /** The tool destroys or withdraws something and the task did not ask for that. */
  destructive: number;
  /** The tool is named after a verb the task rules out ("don't delete it"). */
  avoid: number;
  /** The task wants many things and the tool returns one, or the other way round. */
  scope: number;
  /** Every verb in the name of a tool whose catalog is silent on effects says the opposite of the task's intent (times the confidence). */
  verb: number;
}

/**
 * Default weights: the seed's 100/18/10/8/6/12/5, plus `intent` (at a sure
 * read a write tool loses write + intent + approval ≥ 60 points, so a read
 * tool with half the best fit outranks it), `destructive`, `avoid` and
 * `scope`.
 */
export const DEFAULT_RANK_WEIGHTS: Readonly<RankWeights> = {
  fit: 100,
  write: 18,
  approval: 10,
  cost: 8,
  slow: 6,
  irreversible: 12,
  risk: 5,
  intent: 40,
  destructive: 10,
  avoid: 40,
  scope: 4,
  verb: 25,
};

/** A call costing more than this many dollars is expensive. */
export const COST_THRESHOLD_DOLLARS = 0.1;
/** A tool with a declared p95 above this many milliseconds is slow. */
export const SLOW_P95_MS = 3000;
/** The safety penalties' scale when the intent is unknown. */
export const UNKNOWN_INTENT_SCALE = 0.4;

export type PenaltyCode = 'write' | 'intent' | 'approval' | 'cost' | 'slow' | 'irreversible' | 'risk' | 'destructive' | 'avoid' | 'scope' | 'verb';

export interface Penalty {
  code: PenaltyCode;
  /** Points taken off. */
  points: number;
  reason: string;
}

/** What the penalties depend on besides the tool. */
export interface PenaltyContext {
  intent: Intent;
  /** 0..1: how sure the intent is. */
  confidence: number;
  /** The task reads and writes: no intent or verb penalty (it needs both kinds). */
  mixed?: boolean;
  /** Steps of the task (clauses with a sure reading); names are read for silent catalogs only in a one-step task. */
  steps?: number;
  /** The task asks to destroy something. */
  destroys: boolean;
  scope: Scope;
  /** Verb stems the task rules out. */
  avoid: readonly string[];
  weights: RankWeights;
  taskRisk: number;
}

/** Does the tool (completed) write? `mixed` counts as write, as in the model. */
export const writes = (tool: Tool): boolean => (tool.effects?.mode ?? 'write') !== 'read';

const round = (n: number) => Math.round(n * 100) / 100;

/** The safety penalties' scale for an intent read with this confidence. */
export function safetyScale(intent: Intent, confidence: number): number {
  return intent === 'unknown' ? UNKNOWN_INTENT_SCALE : UNKNOWN_INTENT_SCALE + (1 - UNKNOWN_INTENT_SCALE) * confidence;
}

/**
 * The base penalty of a tool in three parts, each linear in one scalar of
 * the context: `safety` (write, approval, irreversible, risk, destructive:
 * times the safety scale), `intent` (intent, verb: times the intent's
 * exclusive confidence) and `flat` (cost, slow). The ranker caches the
 * parts per tool, so a new confidence costs a multiply-add, not a recount.
 */
export interface PenaltyParts {
  safety: number;
  intent: number;
  flat: number;
}

/** How much the intent may count against a tool: not at all when the task needs both kinds. */
export const exclusiveConfidence = (ctx: Pick<PenaltyContext, 'mixed' | 'confidence'>): number => (ctx.mixed === true ? 0 : ctx.confidence);

/**
 * Penalty points that depend only on the tool and the task's intent, in
 * parts (unscaled); with `out`, each penalty is also recorded, scaled for
 * `ctx`, with its reason.
 */
export function penaltyParts(tool: Tool, ctx: PenaltyContext, out?: Penalty[], signals: ToolSignals = toolSignals(tool)): PenaltyParts {
  const { intent, confidence, weights, taskRisk } = ctx;
  const scale = safetyScale(intent, confidence);
  const exclusive = exclusiveConfidence(ctx);
  const sure = confidence === 1 ? '' : ` (x${round(scale)}: intent ${intent}${intent === 'unknown' ? '' : ` at ${round(confidence)}`})`;
  const parts: PenaltyParts = { safety: 0, intent: 0, flat: 0 };
  const factor = { safety: scale, intent: exclusive, flat: 1 };
  const add = (code: PenaltyCode, part: keyof PenaltyParts, points: number, reason: () => string) => {
    if (points === 0) return;
    parts[part] += points;
    if (out && points * factor[part] !== 0) out.push({ code, points: round(points * factor[part]), reason: reason() });
  };
  const mode = tool.effects?.mode ?? 'write';
  // a silent catalog's names say what its tools do (its label stays write) when most of them hold a verb,
  // but only a one-step task says which kind it wants
  const byName = signals.silent && signals.namesSpeak && (ctx.steps ?? 1) <= 1;
  const namedRead = byName && signals.verbsSay === 'read';
  // for a read task, only a tool named after a write (its first verb writes: `place_order`) confirms its
  // conservative label: the write, approval, irreversibility and risk derived from silence are not counted
  // against any other tool (the label itself, and the gateway's approval, stay as they are)
  const asRead = byName && intent === 'read' && !signals.namedWrite;
  const derived = (path: string) => asRead && isDerived(tool, path);
  if (writes(tool)) {
    if (intent !== 'write' && !derived('effects.mode')) add('write', 'safety', weights.write, () => `mode is ${mode}${sure}`);
    if (intent === 'read' && !namedRead) add('intent', 'intent', weights.intent, () => `the task reads (confidence ${round(confidence)}); the tool's mode is ${mode}`);
  } else if (intent === 'write') {
    add('intent', 'intent', weights.intent, () => `the task writes (confidence ${round(confidence)}); the tool's mode is read`);
  }
  if (!derived('approval.required') && (tool.approval?.required ?? writes(tool))) add('approval', 'safety', weights.approval, () => `each call needs human approval${sure}`);
  const dollars = tool.cost?.estimatedDollars;
  if (dollars !== undefined && dollars > COST_THRESHOLD_DOLLARS) add('cost', 'flat', weights.cost, () => `about $${dollars} per call (over $${COST_THRESHOLD_DOLLARS})`);
  else if (tool.cost?.lane === 'high') add('cost', 'flat', weights.cost, () => 'cost lane is high');
  const p95 = tool.latency?.p95Ms;
  if (p95 !== undefined && p95 > SLOW_P95_MS) add('slow', 'flat', weights.slow, () => `p95 latency ${p95} ms (over ${SLOW_P95_MS} ms)`);
  if (tool.effects?.reversible === 'none' && !derived('effects.reversible')) add('irreversible', 'safety', weights.irreversible, () => `cannot be undone${tool.effects?.rollbackHint ? '' : ' (no rollback hint)'}${sure}`);
  const level = position(RISK_LEVELS, tool.effects?.risk ?? 'high');
  if (level > 0 && !derived('effects.risk')) add('risk', 'safety', weights.risk * level * taskRisk, () => `risk is ${RISK_LEVELS[level]}${taskRisk === 1 ? '' : ` (task risk x${taskRisk})`}${sure}`);
  if (!ctx.destroys && writes(tool) && signals.destructive) add('destructive', 'safety', weights.destructive, () => 'it destroys or withdraws something; the task does not ask for that');
  const says = signals.verbsSay;
  if (byName && (says === 'read' || says === 'write') && intent !== 'unknown' && intent !== says) {
    add('verb', 'intent', weights.verb, () => `its name's verbs (${signals.verbs.join(', ')}) say ${says}; the task ${intent === 'read' ? 'reads' : 'writes'}`);
  }
  return parts;
}

/** Penalty points that depend on the task's words: verbs ruled out, list versus item. */
export function taskPenalty(tool: Tool, ctx: PenaltyContext, out?: Penalty[], signals: ToolSignals = toolSignals(tool)): number {
  const { weights } = ctx;
  if (ctx.avoid.length === 0 && ctx.scope === 'unknown') return 0;
  let total = 0;
  const ruledOut = signals.verbs.find((v) => ctx.avoid.includes(v));
  if (ruledOut !== undefined) {
    total += weights.avoid;
    out?.push({ code: 'avoid', points: weights.avoid, reason: `named after "${ruledOut}…", which the task rules out` });
  }
  if (ctx.scope !== 'unknown' && signals.cardinality !== 'unknown' && signals.cardinality !== ctx.scope) {
    total += weights.scope;
    out?.push({ code: 'scope', points: weights.scope, reason: ctx.scope === 'list' ? 'the task wants many; the tool returns one' : 'the task names one item; the tool lists many' });
  }
  return total;
}

/**
 * Every penalty a tool gets in a context, each with its reason.
 * @example
 * penalties(tool, context) // [{ code: 'write', points: 18, reason: 'mode is write' }, ...]
 */
export function penaltiesOf(tool: Tool, ctx: PenaltyContext, signals: ToolSignals = toolSignals(tool)): Penalty[] {
  const out: Penalty[] = [];
  penaltyParts(tool, ctx, out, signals);
  taskPenalty(tool, ctx, out, signals);
  return out;
}
