/**
 * Exposure by review state. Pylot tools carry an `audit_status`
 * (`experimental`, `trusted`); an operator may expose only some states
 * (`runtime.allowAuditStatus: [trusted]`). A tool whose state is not allowed
 * stays in the catalog, disabled, so it is neither listed nor callable, and
 * an AUDIT_STATUS_GATED note at the tool says why. Tools that declare no
 * state count as `unset`: an allow-list without `unset` hides them too (the
 * operator asked for reviewed tools only).
 * @module
 */
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import { AUDIT_STATUSES } from '../model/vocabulary.js';

/** The audit states an allow-list or an approval rule can name: the declared ones, and `unset` for none. */
export const AUDIT_GATES = [...AUDIT_STATUSES, 'unset'] as const;
export type AuditGate = (typeof AUDIT_GATES)[number];

/** A tool's state as a gate sees it. @example auditGateOf({ name: 'x' }) // 'unset' */
export function auditGateOf(tool: Pick<Tool, 'auditStatus'>): AuditGate {
  return tool.auditStatus ?? 'unset';
}

/** Where a finding about a tool field lands. */
type Locate = (path: string) => Partial<Diagnostic>;

/**
 * Apply an allow-list: the tool as exposed (disabled when its state is not
 * allowed) and the note saying so. No list (undefined): every state passes.
 * @example gateByAuditStatus({ name: 'x', auditStatus: 'experimental' }, ['trusted'], locate).tool.enabled // false
 */
export function gateByAuditStatus(tool: Tool, allowed: readonly AuditGate[] | undefined, locate: Locate): { tool: Tool; diagnostic?: Diagnostic } {
  if (allowed === undefined || tool.enabled === false) return { tool };
  const state = auditGateOf(tool);
  if (allowed.includes(state)) return { tool };
  const said = state === 'unset' ? 'declares no audit_status' : `has audit_status "${state}"`;
  return {
    tool: { ...tool, enabled: false },
    diagnostic: diagnostic('AUDIT_STATUS_GATED', `"${tool.name}" ${said}, which runtime.allowAuditStatus (${allowed.join(', ')}) does not allow: it is not exposed or callable.`, {
      ...locate(tool.auditStatus === undefined ? 'name' : 'auditStatus'),
      hint: state === 'unset' ? 'Add "unset" to runtime.allowAuditStatus to expose tools that declare no audit status.' : `Review the tool and mark it (e.g. audit_status: trusted in an override file), or allow "${state}".`,
    }),
  };
}
