/**
 * toolcap's tools for the OpenAI Agents SDK (`@openai/agents`): function
 * tools whose `needsApproval` comes from the manifest (the runtime's own
 * rule), and whose approvals are decided in toolcap, never by the agent.
 *
 * A tool that needs approval: when the model calls it, `needsApproval` makes
 * the call in toolcap, which records a pending approval; the run stops with
 * an interruption. {@link ToolcapAgentTools.pendingApprovals} names the
 * toolcap approval id behind each interruption; a person approves (or
 * denies) it in toolcap; {@link ToolcapAgentTools.settle} reads the decisions
 * and applies them to the run state (`state.approve` / `state.reject`), and
 * the run resumes with `runner.run(agent, state)`. The tool's execute step
 * then returns what toolcap ran on approval. Approving the interruption
 * yourself without toolcap runs nothing: execute reports the approval as
 * still pending.
 * @module
 */
import { tool, type Agent, type FunctionTool, type RunState, type RunToolApprovalItem } from '@openai/agents';
import { ApprovalLedger, decisionOf, type ApprovalLedgerOptions } from './approvals.js';
import { adapterTools, type AdapterCatalogOptions, type AdapterTool } from './catalog.js';
import type { ToolcapClient } from './client.js';

/** Options of {@link toolcapAgentTools}. */
export interface ToolcapAgentToolsOptions extends AdapterCatalogOptions, ApprovalLedgerOptions {}

/** An interruption waiting for a toolcap approval. */
export interface PendingToolcapApproval {
  interruption: RunToolApprovalItem;
  /** The Agents SDK's call id. */
  callId: string;
  /** The toolcap tool. */
  tool: string;
  /** The toolcap approval a person decides: `toolcap approvals approve <id>`. */
  approvalId: string;
  /** Why toolcap asks for approval. */
  reason: string;
}

/** What {@link ToolcapAgentTools.settle} did. */
export interface SettledApprovals {
  approved: PendingToolcapApproval[];
  rejected: PendingToolcapApproval[];
  /** Still undecided in toolcap: run again later (or keep the state and settle again). */
  pending: PendingToolcapApproval[];
}

/** What {@link ToolcapAgentTools.settle} uses of a `RunState` (any agent, any context). */
// `any`: RunState is invariant in its agent type, and settle works for every agent
export type InterruptedState = Pick<RunState<any, Agent<any, any>>, 'getInterruptions' | 'approve' | 'reject'>;

/** The tools and the approval plumbing for one agent. */
export interface ToolcapAgentTools {
  /** Pass to `new Agent({ tools })`. */
  tools: FunctionTool[];
  /** The catalog they were made from (names, toolcap names, approval reasons, capability blocks). */
  catalog: AdapterTool[];
  readonly ledger: ApprovalLedger;
  /** The toolcap approval behind each interruption that is ours (others are left out). */
  pendingApprovals(interruptions: readonly RunToolApprovalItem[]): PendingToolcapApproval[];
  /** Apply toolcap's decisions to the state's interruptions: approved, denied (with the note), or still pending. */
  settle(state: InterruptedState): Promise<SettledApprovals>;
}

const callIdOf = (item: RunToolApprovalItem): string | undefined => {
  const raw = item.rawItem as { callId?: unknown };
  return typeof raw.callId === 'string' ? raw.callId : undefined;
};

/** A result as the text the model reads: strings as they are, the rest as JSON. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'));

/**
 * Function tools for the Agents SDK from the tools `client` may call.
 * @example
 * const toolcap = await toolcapAgentTools(inProcessClient(await createToolcap('toolcap.config.yaml')));
 * const agent = new Agent({ name: 'ops', tools: toolcap.tools });
 * let result = await run(agent, 'Append a note');
 * for (const p of toolcap.pendingApprovals(result.interruptions)) console.log(`approve ${p.approvalId} in toolcap`);
 * // ... once a person approved in toolcap:
 * await toolcap.settle(result.state);
 * result = await run(agent, result.state);
 */
export async function toolcapAgentTools(client: ToolcapClient, options: ToolcapAgentToolsOptions = {}): Promise<ToolcapAgentTools> {
  const catalog = await adapterTools(client, options);
  const ledger = new ApprovalLedger(client, options);
  const tools = catalog.map((entry) =>
    tool({
      name: entry.name,
      description: entry.description,
      parameters: { ...entry.parameters, additionalProperties: true } as never,
      strict: false,
      needsApproval:
        entry.approvalReason === undefined
          ? false
          : async (_context, input, callId) => (callId === undefined ? true : ledger.request(callId, entry.toolcapName, input)),
      execute: async (input, _context, details) => {
        const callId = details?.toolCall?.callId ?? `toolcap-${Math.random().toString(36).slice(2)}`;
        return asText(await ledger.execute(callId, entry.toolcapName, input, details?.signal));
      },
    }),
  );
  const pendingApprovals = (interruptions: readonly RunToolApprovalItem[]): PendingToolcapApproval[] =>
    interruptions.flatMap((interruption) => {
      const callId = callIdOf(interruption);
      const entry = callId === undefined ? undefined : ledger.entry(callId);
      return callId !== undefined && entry?.kind === 'approval' ? [{ interruption, callId, tool: entry.tool, approvalId: entry.approvalId, reason: entry.reason }] : [];
    });
  return {
    tools,
    catalog,
    ledger,
    pendingApprovals,
    async settle(state) {
      const settled: SettledApprovals = { approved: [], rejected: [], pending: [] };
      for (const pending of pendingApprovals(state.getInterruptions())) {
        const view = await ledger.approval(pending.callId);
        const decision = view ? decisionOf(view) : 'pending';
        if (decision === 'approved') state.approve(pending.interruption);
        else if (decision === 'rejected') state.reject(pending.interruption, { message: `toolcap: approval ${pending.approvalId} is ${view?.status}${view?.note ? ` (${view.note})` : ''}; the call did not run.` });
        settled[decision === 'approved' ? 'approved' : decision === 'rejected' ? 'rejected' : 'pending'].push(pending);
      }
      return settled;
    },
  };
}


