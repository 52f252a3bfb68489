/**
 * Conservative readings of silence. Where no layer declared a field, toolcap
 * fills it with the most restrictive value consistent with what was declared,
 * and lists the field in `derived` so nobody mistakes it for a declaration.
 * Exporters drop derived values, so round trips stay exact.
 * @module
 */
import type { Mode, RetryClass, Reversibility, RiskLevel, SideEffect } from './vocabulary.js';
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
  const derived = new Set(tool.derived ?? []);
  const effects = { ...tool.effects };
  const approval = { ...tool.approval };
  const execution = { ...tool.execution };
  const set = <O extends object, K extends keyof O>(obj: O, key: K, path: string, value: O[K]) => {
    if (obj[key] !== undefined) return;
    obj[key] = value;
    derived.add(path);
  };

  // `external: false` says as much as `sideEffects: none`.
  const declaredEffect = effects.sideEffects ?? (effects.external === false ? 'none' : undefined);
  let mode: Mode;
  if (effects.mode !== undefined) mode = effects.mode;
  else if (declaredEffect !== undefined) mode = READ_ONLY_EFFECTS.has(declaredEffect) ? 'read' : 'write';
  else mode = 'write';
  set(effects, 'mode', 'effects.mode', mode);
  const sideEffect: SideEffect = declaredEffect ?? (mode === 'read' ? 'read_external_service' : 'write');
  set(effects, 'sideEffects', 'effects.sideEffects', sideEffect);
  const reversible: Reversibility = effects.mode === 'read' ? 'full' : 'none';
  set(effects, 'reversible', 'effects.reversible', reversible);
  set(effects, 'risk', 'effects.risk', RISK_BY_EFFECT[effects.sideEffects ?? 'write']);
  set(effects, 'deterministic', 'effects.deterministic', false);

  set(approval, 'required', 'approval.required', effects.mode !== 'read');

  set(execution, 'timeoutSec', 'execution.timeoutSec', DEFAULT_TIMEOUT_SEC);
  set(execution, 'allowParallel', 'execution.allowParallel', false);
  set(execution, 'idempotent', 'execution.idempotent', effects.mode === 'read');
  const retry: RetryClass = execution.idempotent ? 'safe' : execution.idempotencyKey ? 'guarded' : 'never';
  set(execution, 'retryClass', 'execution.retryClass', retry);

  return { ...tool, effects, approval, execution, derived: [...derived].sort() };
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
