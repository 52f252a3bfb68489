/**
 * The approval ledger the adapters share: which framework tool call waits for
 * which toolcap approval. A framework asks "does this call need approval?"
 * before it runs a tool; for a tool that does, the ledger makes the call in
 * toolcap, which records a pending approval, and remembers its id under the
 * framework's call id. A person decides in toolcap (`toolcap approvals
 * approve`, `POST /approvals/{id}/approve`); toolcap then runs exactly the
 * reviewed call, and the framework's execute step reads that outcome. The
 * ledger never approves anything: a framework-side "approved" with no
 * toolcap decision behind it runs nothing and reports the approval as still
 * pending.
 * @module
 */
import type { ApprovalView, CallResult } from '../runtime/runtime.js';
import { ToolcapClientError, type ToolcapClient } from './client.js';

/** What the ledger knows of one framework tool call. */
export type LedgerEntry =
  | { kind: 'approval'; tool: string; approvalId: string; reason: string }
  /** toolcap ran it without asking (no rule matched after all): the result waits for execute. */
  | { kind: 'ran'; tool: string; result: unknown };

/** A decision as a framework can apply it. */
export type ApprovalDecision = 'approved' | 'rejected' | 'pending';

/** An approval's status as the framework's decision: executed (or approved and running) is approved, pending is pending, the rest rejected. */
export function decisionOf(view: ApprovalView): ApprovalDecision {
  if (view.status === 'executed' || view.status === 'failed' || view.status === 'approved') return 'approved';
  if (view.status === 'pending') return 'pending';
  return 'rejected';
}

/** The hint a model or operator sees for a pending approval. */
export const pendingHint = (approvalId: string) =>
  `approval ${approvalId} is pending in toolcap: a person approves it there (toolcap approvals approve ${approvalId} --config <your config>, or POST /approvals/${approvalId}/approve); the agent cannot approve it`;

/** Options of a {@link ApprovalLedger}. */
export interface ApprovalLedgerOptions {
  /** How long execute waits for a decision and run it does not have yet (ms). @default 0 */
  waitMs?: number;
}

/** Framework call ids to toolcap approvals, for one set of adapter tools. */
export class ApprovalLedger {
  readonly #client: ToolcapClient;
  readonly #waitMs: number;
  readonly #entries = new Map<string, LedgerEntry>();

  constructor(client: ToolcapClient, options: ApprovalLedgerOptions = {}) {
    this.#client = client;
    this.#waitMs = options.waitMs ?? 0;
  }

  /** What the ledger holds for a framework call id. */
  entry(callId: string): LedgerEntry | undefined {
    return this.#entries.get(callId);
  }

  /**
   * Ask toolcap for the call (once per framework call id): true when it waits
   * for approval (the id is kept), false when toolcap ran it at once (the
   * result is kept for execute). Errors (bad arguments, unknown tool) are
   * kept too, so execute reports them where the framework expects a tool error.
   */
  async request(callId: string, tool: string, args: unknown, signal?: AbortSignal): Promise<boolean> {
    const known = this.#entries.get(callId);
    if (known) return known.kind === 'approval';
    let result: CallResult;
    try {
      result = await this.#client.call(tool, args, signal ? { signal } : {});
    } catch (error) {
      this.#entries.set(callId, { kind: 'ran', tool, result: error instanceof Error ? error : new Error(String(error)) });
      return false;
    }
    if (result.status === 'pending_approval') {
      this.#entries.set(callId, { kind: 'approval', tool, approvalId: result.approval.id, reason: result.approval.reason });
      return true;
    }
    this.#entries.set(callId, { kind: 'ran', tool, result: result.result });
    return false;
  }

  /** The toolcap approval as it stands for a framework call id; undefined when the call has none. */
  async approval(callId: string): Promise<ApprovalView | undefined> {
    const entry = this.#entries.get(callId);
    return entry?.kind === 'approval' ? this.#client.approval(entry.approvalId) : undefined;
  }

  /**
   * The tool's result for a framework call: what toolcap ran once a person
   * approved (waiting up to `waitMs`), what it ran at once, or a fresh call
   * for a call the ledger has not seen. Throws a {@link ToolcapClientError}
   * for a refusal, a failure, a denial, or an approval still pending.
   */
  async execute(callId: string, tool: string, args: unknown, signal?: AbortSignal): Promise<unknown> {
    let entry = this.#entries.get(callId);
    if (!entry) {
      await this.request(callId, tool, args, signal);
      entry = this.#entries.get(callId);
    }
    if (!entry) throw new ToolcapClientError('INTERNAL', `no record of call ${callId}`);
    if (entry.kind === 'ran') {
      this.#entries.delete(callId);
      if (entry.result instanceof Error) throw entry.result;
      return entry.result;
    }
    const view = await this.#client.waitForApproval(entry.approvalId, this.#waitMs, signal);
    return this.#outcome(callId, view);
  }

  #outcome(callId: string, view: ApprovalView): unknown {
    const outcome = view.outcome;
    if (view.status === 'executed' || view.status === 'failed') this.#entries.delete(callId);
    if (view.status === 'executed') return outcome?.status === 'ok' ? outcome.result : view.result;
    if (view.status === 'failed') {
      const error = outcome?.status === 'error' ? outcome : { code: 'PROVIDER_ERROR', message: 'the approved call failed' };
      throw new ToolcapClientError(error.code, `${error.code}: ${error.message} (approval ${view.id})`, { approvalId: view.id });
    }
    if (view.status === 'pending' || view.status === 'approved') {
      throw new ToolcapClientError('APPROVAL_PENDING', `APPROVAL_PENDING: ${pendingHint(view.id)}`, { approvalId: view.id });
    }
    this.#entries.delete(callId);
    const why = view.note ? `: ${view.note}` : '';
    throw new ToolcapClientError('APPROVAL_DENIED', `APPROVAL_DENIED: approval ${view.id} is ${view.status} in toolcap${why}; the call did not run`, { approvalId: view.id, status: view.status });
  }
}
