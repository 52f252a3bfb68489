/**
 * `toolcap_approval_status`, the gateway's own tool: how an agent whose call
 * waits for approval learns what became of it. It answers the approval's
 * status and, once the approved call ran, its outcome (the result, or the
 * error). Only the approvals the calling principal asked for: any other id
 * is "not found", so ids cannot be probed for other callers' arguments or
 * results. Listed next to the catalog tools whenever the gateway serves an
 * authenticated principal.
 * @module
 */
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_TOOLS } from '../model/vocabulary.js';
import { CallError } from '../runtime/errors.js';
import { can, type Principal } from '../runtime/identity/principal.js';
import type { ApprovalView, Runtime } from '../runtime/runtime.js';
import { callErrorResult, errorResult } from './call-results.js';

/** The tool's name: no catalog tool may take it (validate/rules.ts), so it never hides one. */
export const APPROVAL_STATUS_TOOL = GATEWAY_TOOLS.approvalStatus;

/** The tool as `tools/list` shows it. */
export const approvalStatusTool: McpTool = {
  name: APPROVAL_STATUS_TOOL,
  title: 'Approval status',
  description:
    'The status of an approval your call is waiting for (pending, approved, executed, failed, denied, expired, void) and, once the approved call ran, its outcome: the result, or the error. Give the approvalId from the APPROVAL_REQUIRED answer.',
  inputSchema: { type: 'object', properties: { approvalId: { type: 'string', description: 'The approval id, apr_…' } }, required: ['approvalId'], additionalProperties: false },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

/** What the tool answers: the fields an agent acts on. */
function statusOf(approval: ApprovalView) {
  return {
    approvalId: approval.id,
    tool: approval.tool,
    status: approval.status,
    reason: approval.reason,
    expiresAt: approval.expiresAt,
    decidedAt: approval.decidedAt,
    ...(approval.decidedVia !== undefined ? { decidedVia: approval.decidedVia } : {}),
    ...(approval.outcome !== undefined ? { outcome: approval.outcome } : {}),
  };
}

/**
 * Answer a `toolcap_approval_status` call for `principal`: a result with
 * the approval's status (and outcome), or a tool error
 * (`APPROVAL_NOT_FOUND` for an unknown id and for another principal's alike).
 */
export async function approvalStatus(runtime: Runtime, principal: Principal, args: Record<string, unknown>): Promise<CallToolResult> {
  const id = args['approvalId'];
  if (typeof id !== 'string' || id === '') return errorResult('INVALID_ARGUMENTS', 'approvalId: a string is required (the id from the APPROVAL_REQUIRED answer).', { pointer: '/approvalId' });
  if (!can(principal, 'approvals.read.own')) return errorResult('FORBIDDEN', `Principal "${principal.id}" may not read approvals.`);
  const notFound = () => errorResult('APPROVAL_NOT_FOUND', `No approval ${id} of yours.`, { approvalId: id });
  let approval: ApprovalView;
  try {
    approval = await runtime.getApproval(id);
  } catch (error) {
    if (error instanceof CallError) return error.code === 'APPROVAL_NOT_FOUND' ? notFound() : callErrorResult(error);
    throw error;
  }
  if (approval.requestedByPrincipal !== principal.id) return notFound();
  const status = statusOf(approval);
  return { content: [{ type: 'text', text: JSON.stringify(status) }], structuredContent: status };
}
