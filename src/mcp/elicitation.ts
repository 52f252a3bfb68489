/**
 * Approvals through MCP elicitation: a call that needs a person's approval is
 * put to the client's user as a yes/no form. Yes approves and runs the
 * reviewed call once; no denies it; anything else (no form support, cancel,
 * timeout, a client error) leaves the approval pending, and the gateway
 * answers with the approval id to decide out of band.
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalView, Runtime } from '../runtime/runtime.js';
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
 * Ask the client's user to decide `approval`. The call's result once the
 * user decided; undefined when nobody decided (the approval stays pending).
 * Rejects with the runtime's `CallError` when recording the decision fails.
 */
export async function decideByElicitation(approval: ApprovalView, context: ElicitationContext): Promise<CallToolResult | undefined> {
  const { server, runtime } = context;
  if (server.getClientCapabilities()?.elicitation?.form === undefined) return undefined;
  let answer;
  try {
    answer = await server.elicitInput(approvalForm(approval), { signal: context.signal, timeout: context.timeoutMs });
  } catch {
    return undefined;
  }
  if (answer.action === 'cancel') return undefined;
  if (answer.action === 'accept' && answer.content?.['approve'] === true) {
    const done = await runtime.approve(approval.id, { by: MCP_APPROVER, note: 'approved through MCP elicitation' });
    if (done.call?.status === 'ok') return okResult(done.call);
    if (done.error) return callErrorResult(done.error);
    return errorResult('PROVIDER_ERROR', `Approval ${approval.id} was approved but the call gave no result.`, { approvalId: approval.id });
  }
  await runtime.deny(approval.id, { by: MCP_APPROVER, note: 'denied through MCP elicitation' });
  return errorResult('APPROVAL_DENIED', `The call to "${approval.tool}" was denied by the user (approval ${approval.id}); nothing ran.`, { approvalId: approval.id });
}
