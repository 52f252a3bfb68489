/**
 * Approvals through MCP elicitation: a call that needs a person's approval is
 * put to the client's user as a yes/no form. Yes approves and runs the
 * reviewed call once; no denies it; anything else (no form support, cancel,
 * timeout, a client error) leaves the approval pending, and the gateway
 * answers with the approval id to decide out of band.
 *
 * The form is answered by the requesting agent's own client, which may say
 * yes by itself: with an authenticated principal the form is shown only
 * where `runtime.elicitationAllowed` says so (by default read tools only,
 * never writes), and the answer is decided by `runtime.approve(id, {
 * principal, channel: 'elicitation' })`, so four eyes applies (an
 * elicitation is a self-approval: it also needs self-approval allowed).
 * Without a principal (a trusted in-process caller) the answer decides, as
 * `mcp-client`.
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CallError } from '../runtime/errors.js';
import type { Principal } from '../runtime/identity/principal.js';
import type { ApprovalView, Decision, Runtime } from '../runtime/runtime.js';
import { callErrorResult, errorResult, okResult } from './call-results.js';

/** Who approves in the audit log when the MCP client's user accepts an elicitation. */
export const MCP_APPROVER = 'mcp-client';

/** What {@link decideByElicitation} needs besides the approval. */
export interface ElicitationContext {
  server: Server;
  runtime: Runtime;
  /** How long the user has to answer, ms. */
  timeoutMs: number;
  signal: AbortSignal;
  /** The authenticated principal that asked; the decision is its own, four-eyes checked. */
  principal?: Principal | undefined;
  /** The answer while the approval stays pending; `note` says why the client's answer did not decide it. */
  pending: (note?: string) => CallToolResult;
}

/** The form: the tool, why it needs approval, the arguments and the approval id. */
function approvalForm(approval: ApprovalView) {
  return {
    mode: 'form' as const,
    message:
      `Approve the call to "${approval.tool}"?\n` +
      `Why approval is needed: ${approval.reason}\n` +
      `Arguments: ${JSON.stringify(approval.arguments, null, 2)}\n` +
      `Approval id: ${approval.id}`,
    requestedSchema: {
      type: 'object' as const,
      properties: {
        approve: { type: 'boolean' as const, title: `Run ${approval.tool}`, description: 'Yes runs exactly this call once; no denies it.', default: false },
      },
      required: ['approve'],
    },
  };
}

/**
 * Ask the client's user to decide `approval`, where that is allowed: the
 * call's result once the user decided, else `context.pending()` (the
 * approval stays pending; with a note when the runtime refused the decision,
 * four eyes). Rejects with the runtime's other `CallError`s.
 */
export async function decideByElicitation(approval: ApprovalView, context: ElicitationContext): Promise<CallToolResult> {
  const { server, runtime, principal, pending } = context;
  if (server.getClientCapabilities()?.elicitation?.form === undefined) return pending();
  if (principal !== undefined && !runtime.elicitationAllowed(approval)) return pending();
  let answer;
  try {
    answer = await server.elicitInput(approvalForm(approval), { signal: context.signal, timeout: context.timeoutMs });
  } catch {
    return pending();
  }
  if (answer.action === 'cancel') return pending();
  const approve = answer.action === 'accept' && answer.content?.['approve'] === true;
  const decision = (verb: string): Decision =>
    principal !== undefined ? { principal, channel: 'elicitation', note: `${verb} through MCP elicitation` } : { by: MCP_APPROVER, note: `${verb} through MCP elicitation` };
  try {
    if (approve) {
      const done = await runtime.approve(approval.id, decision('approved'));
      if (done.call?.status === 'ok') return okResult(done.call);
      if (done.error) return callErrorResult(done.error);
      return errorResult('PROVIDER_ERROR', `Approval ${approval.id} was approved but the call gave no result.`, { approvalId: approval.id });
    }
    await runtime.deny(approval.id, decision('denied'));
  } catch (error) {
    // four eyes: the answer could not decide, somebody else must
    if (error instanceof CallError && (error.code === 'SELF_APPROVAL' || error.code === 'FORBIDDEN')) return pending(`The answer in the client could not decide it: ${error.message}`);
    throw error;
  }
  return errorResult('APPROVAL_DENIED', `The call to "${approval.tool}" was denied by the user (approval ${approval.id}); nothing ran.`, { approvalId: approval.id });
}
