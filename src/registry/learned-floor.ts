/**
 * The learned floor: a learned tool (written at run time, runtime/learned-tools.ts)
 * may describe a tool a reviewed manifest also defines, but never loosen it.
 * After the learned layer overlays a tool an earlier (reviewed) layer
 * defined, these fields are raised back to at least what the reviewed
 * version said, as the MCP hint floors of floors.ts do for discovered tools:
 *
 * | field | floor |
 * | --- | --- |
 * | `effects.mode`, `effects.sideEffects`, `effects.reversible`, `effects.risk` | the more severe of the two |
 * | `effects.external` | true stays true |
 * | `effects.deterministic` | false stays false |
 * | `approval.required` | true stays true |
 * | `execution.idempotent` | false stays false |
 * | `execution.retryClass` | the less permissive of the two |
 * | `enabled` | false stays false |
 * | `implementation`, `providers` | the reviewed ones (a learned entry cannot change what runs) |
 *
 * Layers after the learned layer (overrides) are reviewed and apply as usual.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { MODES, REVERSIBILITY, RETRY_CLASSES, RISK_LEVELS, SIDE_EFFECTS, mostRestrictive, rank } from '../model/vocabulary.js';

/** `merged` (the reviewed tool with a learned entry on top) raised to what `reviewed` said. */
export function floorLearned(reviewed: Tool, merged: Tool): Tool {
  const out: Tool = { ...merged };
  const r = reviewed.effects;
  if (r) {
    const e: Record<string, unknown> = { ...merged.effects };
    const m = merged.effects ?? {};
    e['mode'] = mostRestrictive(MODES, m.mode, r.mode);
    e['sideEffects'] = mostRestrictive(SIDE_EFFECTS, m.sideEffects, r.sideEffects);
    e['reversible'] = mostRestrictive(REVERSIBILITY, m.reversible, r.reversible);
    e['risk'] = mostRestrictive(RISK_LEVELS, m.risk, r.risk);
    if (r.external === true) e['external'] = true;
    if (r.deterministic === false) e['deterministic'] = false;
    for (const key of Object.keys(e)) if (e[key] === undefined) delete e[key];
    out.effects = e as Tool['effects'] & object;
  }
  if (reviewed.approval?.required === true) out.approval = { ...merged.approval, required: true };
  const x = reviewed.execution;
  if (x) {
    const ex = { ...merged.execution };
    if (x.idempotent === false) ex.idempotent = false;
    if (x.retryClass !== undefined && (ex.retryClass === undefined || rank(RETRY_CLASSES, ex.retryClass) > rank(RETRY_CLASSES, x.retryClass))) ex.retryClass = x.retryClass;
    out.execution = ex;
  }
  if (reviewed.enabled === false) out.enabled = false;
  for (const key of ['implementation', 'providers'] as const) {
    if (reviewed[key] !== undefined) (out as Record<string, unknown>)[key] = reviewed[key];
    else delete (out as Record<string, unknown>)[key];
  }
  return out;
}
