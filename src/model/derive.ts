/**
 * Conservative readings of silence. Where no layer declared a field, toolcap
 * fills it with the most restrictive value consistent with what was declared,
 * and lists the field in `derived` so nobody mistakes it for a declaration.
 * Exporters drop derived values, so round trips stay exact.
 * @module
 */
import type { RetryClass, Reversibility, RiskLevel, SideEffect } from './vocabulary.js';
import type { Tool } from './schema.js';

/** Side effects a read-only tool can have. Anything else is treated as a write. */
const READ_ONLY_EFFECTS: ReadonlySet<SideEffect> = new Set(['none', 'compute', 'read_external_service']);

/** The risk implied by a side-effect category when none is declared. */
const RISK_BY_EFFECT: Record<SideEffect, RiskLevel> = {
  none: 'low',
  compute: 'low',
  read_external_service: 'low',
  network: 'medium',
  filesystem: 'medium',
  database: 'medium',
  write: 'high',
  system: 'critical',
};

/** Default timeout when nothing says otherwise (ATLAS's MCP default). */
export const DEFAULT_TIMEOUT_SEC = 30;

/** The fields `complete` may derive, as canonical dot paths. */
export const DERIVABLE_FIELDS = [
  'effects.mode',
  'effects.sideEffects',
  'effects.reversible',
  'effects.risk',
  'effects.deterministic',
  'approval.required',
  'execution.timeoutSec',
  'execution.allowParallel',
  'execution.idempotent',
  'execution.retryClass',
] as const;

/**
 * Frozen `derived` lists by bit mask. A catalog has few distinct sets (often
 * one: every field derived), so 10,000 tools share a handful of arrays.
 */
const LISTS = new Map<number, readonly string[]>();
/** Frozen `derived` lists by mask and inherited list; bounded, as inherited lists come from input. */
const INHERITED_LISTS = new Map<string, readonly string[]>();
const MAX_INHERITED_LISTS = 1_000;
/** Each derivable field's bit in a mask. */
const BIT = Object.fromEntries(DERIVABLE_FIELDS.map((f, i) => [f, 1 << i])) as Record<(typeof DERIVABLE_FIELDS)[number], number>;

/** Inherited entries (a dialect's translations) first, then the fields derived here, in a fixed order. */
function derivedList(inherited: readonly string[] | undefined, mask: number): string[] {
  const own = () => DERIVABLE_FIELDS.filter((_f, i) => (mask & (1 << i)) !== 0);
  if (!inherited?.length) {
    let list = LISTS.get(mask);
    if (!list) LISTS.set(mask, (list = Object.freeze(own())));
    return list as string[];
  }
  // a dialect's translated fields repeat from tool to tool (every ATLAS tool says the same few): share those lists too
  const key = `${mask}|${inherited.join(',')}`;
  let list = INHERITED_LISTS.get(key);
  if (!list) {
    if (INHERITED_LISTS.size >= MAX_INHERITED_LISTS) INHERITED_LISTS.clear();
    INHERITED_LISTS.set(key, (list = Object.freeze([...new Set([...inherited, ...own()])])));
  }
  return list as string[];
}

/** Absent, or an object without keys. */
function isEmpty(group: object | undefined): boolean {
  if (group === undefined) return true;
  for (const _key in group) return false;
  return true;
}

/** The groups `complete` gives a tool that declares nothing about them, and which fields that derives. */
interface SilentCompletion {
  effects: NonNullable<Tool['effects']>;
  approval: NonNullable<Tool['approval']>;
  execution: NonNullable<Tool['execution']>;
  mask: number;
}
let SILENT: SilentCompletion | undefined;

/** Computed by `complete` itself (on a tool that declares nothing), then frozen: one source of truth. */
function silentCompletion(): SilentCompletion {
  const probe = completeGroups({ name: 'probe' } as Tool);
  const derived = new Set(probe.derived);
  const mask = DERIVABLE_FIELDS.reduce((m, f, i) => (derived.has(f) ? m | (1 << i) : m), 0);
  return { effects: Object.freeze({ ...probe.effects! }), approval: Object.freeze({ ...probe.approval! }), execution: Object.freeze({ ...probe.execution! }), mask };
}

/** Is the canonical field at `path` derived rather than declared? */
export function isDerived(tool: { derived?: readonly string[] }, path: string): boolean {
  return tool.derived?.includes(path) ?? false;
}

/**
 * Fill every derivable field nobody declared with its most restrictive
 * consistent value, and record which ones were derived.
 *
 * @example
 * complete({ name: 'x', effects: { sideEffects: 'none' } }).effects
 * // { sideEffects: 'none', mode: 'read', reversible: 'full', risk: 'low', deterministic: false }
 */
export function complete(tool: Tool): Tool {
  // Nothing declared about effects, approval or execution (most catalogs): the completion is always
  // the same, so every such tool shares one frozen set of groups (as it shares its `derived` list).
  if (isEmpty(tool.effects) && isEmpty(tool.approval) && isEmpty(tool.execution)) {
    const silent = (SILENT ??= silentCompletion());
    const out = Object.assign({}, tool);
    out.effects = silent.effects;
    out.approval = silent.approval;
    out.execution = silent.execution;
    out.derived = derivedList(tool.derived, silent.mask);
    return out;
  }
  return completeGroups(tool);
}

/** {@link complete} in full: each group copied, its undeclared fields filled in. */
function completeGroups(tool: Tool): Tool {
  let mask = 0; // bit i set: DERIVABLE_FIELDS[i] was derived here
  const e = tool.effects ?? {};
  const a = tool.approval ?? {};
  const x = tool.execution ?? {};

  // `external: false` says as much as `sideEffects: none`.
  const declaredEffect = e.sideEffects ?? (e.external === false ? 'none' : undefined);
  let mode = e.mode;
  if (mode === undefined) {
    mode = declaredEffect !== undefined && READ_ONLY_EFFECTS.has(declaredEffect) ? 'read' : 'write';
    mask |= BIT['effects.mode'];
  }
  let sideEffects = e.sideEffects;
  if (sideEffects === undefined) {
    sideEffects = declaredEffect ?? (mode === 'read' ? 'read_external_service' : 'write');
    mask |= BIT['effects.sideEffects'];
  }
  let reversible: Reversibility | undefined = e.reversible;
  if (reversible === undefined) {
    reversible = mode === 'read' ? 'full' : 'none';
    mask |= BIT['effects.reversible'];
  }
  let risk: RiskLevel | undefined = e.risk;
  if (risk === undefined) {
    risk = RISK_BY_EFFECT[sideEffects];
    mask |= BIT['effects.risk'];
  }
  let deterministic = e.deterministic;
  if (deterministic === undefined) {
    deterministic = false;
    mask |= BIT['effects.deterministic'];
  }
  let required = a.required;
  if (required === undefined) {
    required = mode !== 'read';
    mask |= BIT['approval.required'];
  }
  let timeoutSec = x.timeoutSec;
  if (timeoutSec === undefined) {
    timeoutSec = DEFAULT_TIMEOUT_SEC;
    mask |= BIT['execution.timeoutSec'];
  }
  let allowParallel = x.allowParallel;
  if (allowParallel === undefined) {
    allowParallel = false;
    mask |= BIT['execution.allowParallel'];
  }
  let idempotent = x.idempotent;
  if (idempotent === undefined) {
    idempotent = mode === 'read';
    mask |= BIT['execution.idempotent'];
  }
  let retryClass: RetryClass | undefined = x.retryClass;
  if (retryClass === undefined) {
    retryClass = idempotent ? 'safe' : x.idempotencyKey ? 'guarded' : 'never';
    mask |= BIT['execution.retryClass'];
  }
  // Object.assign({}, o), not `{ ...o }`: V8 clones the former on a fast path (10x here). Then plain
  // assignments, not a second object to assign from (no temporary per group): the key order is the
  // same, existing keys keep their place and new ones follow in this order.
  const effects = completedEffects(e, mode, sideEffects, reversible, risk, deterministic);
  const approval = Object.assign({}, a);
  approval.required = required;
  const execution = Object.assign({}, x);
  execution.timeoutSec = timeoutSec;
  execution.allowParallel = allowParallel;
  execution.idempotent = idempotent;
  execution.retryClass = retryClass;
  const out = Object.assign({}, tool);
  out.effects = effects;
  out.approval = approval;
  out.execution = execution;
  out.derived = derivedList(tool.derived, mask);
  return out;
}

type Effects = NonNullable<Tool['effects']>;

/**
 * The completed effects group. Declared effects that are nothing or only a
 * side-effect category (most catalogs; every ATLAS tool) get one object
 * literal of the final shape, in the key order the general case gives
 * (declared keys first, then the derived ones in a fixed order): not a copy
 * that grows a property store for the keys it gains.
 */
function completedEffects(e: Effects, mode: NonNullable<Effects['mode']>, sideEffects: SideEffect, reversible: Reversibility, risk: RiskLevel, deterministic: boolean): Effects {
  const keys = ownKeyShape(e);
  if (keys === 0) return { mode, sideEffects, reversible, risk, deterministic };
  if (keys === 1) return { sideEffects, mode, reversible, risk, deterministic };
  const effects = Object.assign({}, e);
  effects.mode = mode;
  effects.sideEffects = sideEffects;
  effects.reversible = reversible;
  effects.risk = risk;
  effects.deterministic = deterministic;
  return effects;
}

/** 0: no keys; 1: `sideEffects` alone (own); 2: anything else. */
function ownKeyShape(e: Effects): 0 | 1 | 2 {
  let shape: 0 | 1 | 2 = 0;
  for (const key in e) {
    if (shape !== 0 || key !== 'sideEffects' || !Object.prototype.hasOwnProperty.call(e, key)) return 2;
    shape = 1;
  }
  return shape;
}

/**
 * The tool as declared: derived fields removed (and objects left empty by
 * that removal dropped). What exporters write.
 */
export function declared(tool: Tool): Tool {
  if (!tool.derived || tool.derived.length === 0) {
    if (!tool.derived) return tool;
    const { derived: _drop, ...rest } = tool;
    return rest;
  }
  const out: Record<string, unknown> = { ...tool };
  delete out['derived'];
  for (const path of tool.derived) {
    const [group, field] = path.split('.') as [string, string | undefined];
    if (field === undefined) {
      delete out[group];
      continue;
    }
    const obj = out[group];
    if (obj === null || typeof obj !== 'object') continue;
    const copy: Record<string, unknown> = { ...(obj as Record<string, unknown>) };
    delete copy[field];
    if (Object.keys(copy).length === 0) delete out[group];
    else out[group] = copy;
  }
  return out as Tool;
}
