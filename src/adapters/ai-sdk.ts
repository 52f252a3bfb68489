/**
 * toolcap's tools for the Vercel AI SDK (`ai` 6): `tool()`s with a
 * `jsonSchema()` of the manifest's input schema, `needsApproval` from the
 * manifest (the runtime's own rule), and execution through toolcap.
 *
 * A tool that needs approval: when the model calls it, `needsApproval` makes
 * the call in toolcap (a pending approval) and the SDK answers with a
 * `tool-approval-request`. {@link ToolcapAiTools.approvalResponses} turns
 * toolcap's decisions into the `tool-approval-response` parts the SDK
 * expects (and names the approvals still pending); send them as a `tool`
 * message and call `generateText` again, and execute returns what toolcap ran
 * once a person approved. An `approved: true` written by the application
 * without a toolcap decision runs nothing: execute fails with APPROVAL_PENDING.
 * @module
 */
import { jsonSchema, tool, type ModelMessage, type Tool as AiTool, type ToolApprovalResponse } from 'ai';
import { ApprovalLedger, decisionOf, type ApprovalLedgerOptions } from './approvals.js';
import { adapterTools, type AdapterCatalogOptions, type AdapterTool } from './catalog.js';
import type { ToolcapClient } from './client.js';

/** Options of {@link toolcapAiTools}. */
export interface ToolcapAiToolsOptions extends AdapterCatalogOptions, ApprovalLedgerOptions {}

/** A tool-approval-request whose toolcap approval is still undecided. */
export interface PendingAiApproval {
  /** The SDK's approval id (of the `tool-approval-request` part). */
  requestId: string;
  toolCallId: string;
  tool: string;
  /** The toolcap approval a person decides: `toolcap approvals approve <id>`. */
  approvalId: string;
}

/** The tools and the approval plumbing for `generateText` / `streamText`. */
export interface ToolcapAiTools {
  /** Pass as `tools` to `generateText`. */
  tools: Record<string, AiTool<Record<string, unknown>, unknown>>;
  catalog: AdapterTool[];
  readonly ledger: ApprovalLedger;
  /**
   * For every `tool-approval-request` in `messages` not answered yet: a
   * `tool-approval-response` once toolcap decided, else an entry in `pending`.
   */
  approvalResponses(messages: readonly ModelMessage[]): Promise<{ responses: ToolApprovalResponse[]; pending: PendingAiApproval[] }>;
}

/**
 * AI SDK tools from the tools `client` may call, keyed by their safe names.
 * @example
 * const toolcap = await toolcapAiTools(httpClient({ url: 'http://127.0.0.1:4317', persona: 'ops' }));
 * const result = await generateText({ model, tools: toolcap.tools, prompt: 'Append a note' });
 * const messages = [...prompt, ...result.response.messages];
 * const { responses, pending } = await toolcap.approvalResponses(messages);
 * if (responses.length > 0) await generateText({ model, tools: toolcap.tools, messages: [...messages, { role: 'tool', content: responses }] });
 */
export async function toolcapAiTools(client: ToolcapClient, options: ToolcapAiToolsOptions = {}): Promise<ToolcapAiTools> {
  const catalog = await adapterTools(client, options);
  const ledger = new ApprovalLedger(client, options);
  const tools: ToolcapAiTools['tools'] = {};
  for (const entry of catalog) {
    tools[entry.name] = tool<Record<string, unknown>, unknown>({
      description: entry.description,
      inputSchema: jsonSchema<Record<string, unknown>>(entry.parameters as never),
      needsApproval: entry.approvalReason === undefined ? false : (input, { toolCallId }) => ledger.request(toolCallId, entry.toolcapName, input),
      execute: (input, { toolCallId, abortSignal }) => ledger.execute(toolCallId, entry.toolcapName, input, abortSignal),
    });
  }
  return {
    tools,
    catalog,
    ledger,
    async approvalResponses(messages) {
      const answered = new Set<string>();
      const requests: Array<{ approvalId: string; toolCallId: string }> = [];
      for (const message of messages) {
        if (typeof message.content === 'string') continue;
        for (const part of message.content) {
          if (part.type === 'tool-approval-request') requests.push({ approvalId: part.approvalId, toolCallId: part.toolCallId });
          if (part.type === 'tool-approval-response') answered.add(part.approvalId);
        }
      }
      const responses: ToolApprovalResponse[] = [];
      const pending: PendingAiApproval[] = [];
      for (const request of requests) {
        const entry = ledger.entry(request.toolCallId);
        if (answered.has(request.approvalId) || entry?.kind !== 'approval') continue;
        const view = await ledger.approval(request.toolCallId);
        const decision = view ? decisionOf(view) : 'pending';
        if (decision === 'pending') pending.push({ requestId: request.approvalId, toolCallId: request.toolCallId, tool: entry.tool, approvalId: entry.approvalId });
        else responses.push({ type: 'tool-approval-response', approvalId: request.approvalId, approved: decision === 'approved', reason: `toolcap approval ${entry.approvalId}: ${view?.status}${view?.note ? ` (${view.note})` : ''}` });
      }
      return { responses, pending };
    },
  };
}
