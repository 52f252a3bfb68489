/**
 * Approvals: a gated call waits for a person, and approving runs exactly
 * the call that was reviewed.
 *
 * An approval binds to the tool's manifest hash, the hash of the code the
 * call would run (`codeHash`: every provider's `codeIdentity()`, in
 * priority order) and the arguments' hash. Approving runs the stored
 * arguments; if the manifest or the code changed since the request, or the
 * tool is gone for that persona, the approval is void. An approval whose
 * run was under way when the process ended is `interrupted` at the next
 * start, never run again.
 * Decisions are compare-and-set in the store (`pending` -> the decision), so
 * two instances on one store cannot both decide. A store that is down makes
 * approval-gated calls fail closed.
 *
 * Who may decide is `approval-policy.ts` (four eyes, grants, channels). An
 * identical pending request of the same principal (same tool, persona,
 * arguments and manifest) returns the approval already waiting instead of a
 * new one. The outcome of the approved run is kept with the approval, and
 * waiters (`approval-waits.ts`) wake when it is settled.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { contentHash, toolHash } from '../model/hash.js';
import { toolKey } from '../model/tool-key.js';
import { errorMessage } from '../model/errors.js';
import type { ApprovalOutcome, ApprovalQuery, ApprovalRecord, ApprovalStatus, Store } from '../store/types.js';
import { errorOutcome, okOutcome, type FinishedCall } from './approval-outcome.js';
import type { ApprovalPolicy, Decision } from './approval-policy.js';
import { approvalIdFor, callIdOf, must, view, type ApprovalView } from './approval-records.js';
import { ApprovalWaits } from './approval-waits.js';
import { CallError } from './errors.js';
import type { Principal } from './identity/principal.js';
import type { CallMetrics } from './telemetry.js';

export type { Decision } from './approval-policy.js';
export type { ApprovalView } from './approval-records.js';

/** Who asked for a gated call. */
export interface Requester {
  persona?: string;
  caller?: string;
  /** The authenticated principal: it, not `caller`, is then the requester. */
  principal?: Principal;
}

/**
 * How an approved call is checked and run, all against one snapshot: the
 * runtime hands out one per approval, taking the snapshot when `resolve` is
 * first called.
 */
export interface ReviewedCall<R> {
  /** The tool the persona may call by this name now; throws when there is none. */
  resolve(name: string, persona: string | undefined): Tool;
  /** The arguments checked against the tool's input schema; throws a CallError. */
  validate(tool: Tool, args: unknown): Record<string, unknown>;
  /** The hash of the code the call would run now (see {@link Approvals}). */
  codeHash(tool: Tool): Promise<string>;
  /** Run the approved call; it waits until its record is written. */
  run(tool: Tool, args: Record<string, unknown>, callId: string, context: Requester & { approvalId: string }): Promise<R>;
}

/** Approvals settled in this process, and a nudge for the waiters of one settled by another instance. */
export interface ApprovalSignals {
  onSettled(listener: ((id: string) => void) | undefined): void;
  poke(id: string): void;
}

/** What the approval book needs from the runtime. */
export interface ApprovalsOptions {
  store: Store;
  metrics: CallMetrics;
  /** How long an approval stays valid, ms. */
  ttlMs: number;
  clock: () => number;
  /** Told of a store write that failed after the call ran (its result is still the answer). */
  warn: (message: string) => void;
  /** Who may decide. */
  policy: ApprovalPolicy;
  /** Applied to every audit detail before writing (error outcomes come redacted with their CallError). */
  redact: <T>(value: T) => T;
  /**
   * The arguments of an approval as every view shows them (its approvers,
   * its requester): the values the tool's input schema marks sensitive
   * masked. The stored record keeps them whole: approving runs exactly those.
   */
  shownArguments: (record: ApprovalRecord) => unknown;
}

/**
 * Requests, decisions and approved runs over the store.
 * @example
 * const pending = await approvals.request(tool, args, 'approval.required', callId, { persona: 'atlas' });
 * const { call } = await approvals.approve(pending.id, { by: 'ana' }, reviewedCall);
 */
export class Approvals {
  readonly #o: ApprovalsOptions;
  readonly #waits = new ApprovalWaits<ApprovalView>();
  /** Requests being created, by dedup key: identical requests arriving together share one. */
  readonly #creating = new Map<string, Promise<ApprovalView>>();

  constructor(options: ApprovalsOptions) {
    this.#o = options;
  }

  /** The record as callers see it: no internal tool key, sensitive arguments masked (the one place a view is made). */
  #view(record: ApprovalRecord): ApprovalView {
    // the sensitive values masked by the schema, then the token shapes and known secrets as in every other sink
    return { ...view(record), arguments: this.#o.redact(this.#o.shownArguments(record)) };
  }

  /**
   * Store a pending approval for this call (and its audit line); fails
   * closed with STORE_UNAVAILABLE. A principal asking again for the same
   * call while its request is pending gets that request back.
   */
  async request(tool: Tool, args: Record<string, unknown>, reason: string, callId: string, requester: Requester, codeHash: string): Promise<ApprovalView> {
    const principal = requester.principal?.id;
    if (principal === undefined) return this.#create(tool, args, reason, callId, requester, codeHash);
    const persona = requester.persona ?? null;
    const argumentsHash = contentHash(args);
    const manifestHash = toolHash(tool);
    const key = JSON.stringify([principal, tool.name, persona, argumentsHash, manifestHash, codeHash]);
    const inFlight = this.#creating.get(key);
    if (inFlight) return inFlight;
    const created = (async () => {
      const now = this.#o.clock();
      const pending = await must(() => this.#o.store.listApprovals({ status: 'pending', tool: tool.name, requestedByPrincipal: principal, limit: 1000 }));
      const same = pending.find(
        (a) => a.persona === persona && a.argumentsHash === argumentsHash && a.manifestHash === manifestHash && a.codeHash === codeHash && Date.parse(a.expiresAt) > now,
      );
      if (same) {
        this.#o.metrics.approvals.inc({ event: 'deduplicated', tool: tool.name });
        return this.#view(same);
      }
      return this.#create(tool, args, reason, callId, requester, codeHash);
    })();
    this.#creating.set(key, created);
    try {
      return await created;
    } finally {
      this.#creating.delete(key);
    }
  }

  async #create(tool: Tool, args: Record<string, unknown>, reason: string, callId: string, requester: Requester, codeHash: string): Promise<ApprovalView> {
    const { store, clock, ttlMs, metrics } = this.#o;
    const now = clock();
    const principal = requester.principal?.id;
    const record: ApprovalRecord = {
      id: approvalIdFor(callId),
      tool: tool.name,
      toolKey: toolKey(tool),
      persona: requester.persona ?? null,
      arguments: args,
      argumentsHash: contentHash(args),
      manifestHash: toolHash(tool),
      codeHash,
      requestedBy: principal ?? requester.caller ?? null,
      reason,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttlMs).toISOString(),
      status: 'pending',
      decidedBy: null,
      decidedAt: null,
      note: null,
      result: null,
      ...(principal !== undefined ? { requestedByPrincipal: principal } : {}),
    };
    await must(() => store.createApproval(record));
    await must(() =>
      store.appendAudit({ at: record.createdAt, kind: 'call.pending_approval', tool: tool.name, callId, persona: record.persona, actor: record.requestedBy, detail: { approvalId: record.id, reason } }),
    );
    metrics.approvals.inc({ event: 'requested', tool: tool.name });
    return this.#view(record);
  }

  async list(query: ApprovalQuery = {}): Promise<ApprovalView[]> {
    return (await must(() => this.#o.store.listApprovals(query))).map((r) => this.#view(r));
  }

  /** Settled here, and settled elsewhere: what the cluster sync sends and receives (approval-waits.ts). */
  get signals(): ApprovalSignals {
    return { onSettled: (listener) => this.#waits.onSettled(listener), poke: (id) => this.#waits.poke(id) };
  }

  /** The approval once settled (decided and, if approved, run), or as it stands after `timeoutMs`. */
  wait(id: string, timeoutMs: number, signal?: AbortSignal): Promise<ApprovalView> {
    return this.#waits.wait(id, timeoutMs, signal, () => this.get(id));
  }

  async get(id: string): Promise<ApprovalView> {
    return this.#view(await this.#pending(id, false));
  }

  /**
   * Approve and run exactly the reviewed call. Void when the tool's manifest
   * changed since the request (or the tool is gone for that persona);
   * expired after the time to live.
   */
  async approve<R extends FinishedCall & { callId: string }>(
    id: string,
    decision: Decision,
    reviewed: ReviewedCall<R>,
  ): Promise<{ approval: ApprovalView; call?: R; error?: CallError }> {
    const record = await this.#pending(id, true);
    this.#o.policy.check(record, decision, 'approve');
    const now = this.#o.clock();
    const at = new Date(now).toISOString();
    if (Date.parse(record.expiresAt) <= now) {
      await this.#decide(record, 'expired', { ...decision, note: `expired at ${record.expiresAt}` });
      throw new CallError('APPROVAL_CONFLICT', `Approval ${id} expired at ${record.expiresAt}; ask again.`);
    }
    let tool: Tool;
    try {
      tool = reviewed.resolve(record.tool, record.persona ?? undefined);
    } catch {
      await this.#decide(record, 'void', { ...decision, note: 'the tool is gone for this persona' });
      throw new CallError('APPROVAL_VOID', `Approval ${id} is void: "${record.tool}" no longer exists for this persona.`);
    }
    const hash = toolHash(tool);
    if (hash !== record.manifestHash) {
      await this.#decide(record, 'void', { ...decision, note: `the manifest changed since review (${record.manifestHash} -> ${hash})` });
      throw new CallError('APPROVAL_VOID', `Approval ${id} is void: the manifest of "${record.tool}" changed since it was reviewed. Ask again so the new manifest is reviewed.`);
    }
    const code = await reviewed.codeHash(tool);
    if (code !== record.codeHash) {
      await this.#decide(record, 'void', { ...decision, note: `the code changed since review (${record.codeHash ?? 'not recorded'} -> ${code})` });
      throw new CallError('APPROVAL_VOID', `Approval ${id} is void: the code "${record.tool}" runs changed since it was reviewed. Ask again so the new code is reviewed.`);
    }
    const approved = await this.#decide(record, 'approved', { ...decision, at });
    let call: R;
    try {
      const args = reviewed.validate(tool, record.arguments);
      if (contentHash(args) !== record.argumentsHash) throw new CallError('APPROVAL_VOID', `Approval ${id} is void: the arguments differ from the reviewed ones.`);
      call = await reviewed.run(tool, args, callIdOf(id), { ...(record.persona ? { persona: record.persona } : {}), ...(record.requestedBy ? { caller: record.requestedBy } : {}), approvalId: id });
    } catch (error) {
      const e = error instanceof CallError ? error : new CallError('PROVIDER_ERROR', String(error));
      const failed = await this.#finish(approved, 'failed', { error: e.code, message: e.message }, errorOutcome(e));
      return { approval: failed, error: e };
    }
    // the call ran: its result is the answer even if the store cannot mark the approval executed now (it stays "approved")
    const result = { callId: call.callId, provider: call.provider, result: call.result };
    return { approval: await this.#finish(approved, 'executed', result, okOutcome(call)), call };
  }

  async deny(id: string, decision: Decision): Promise<ApprovalView> {
    const record = await this.#pending(id, true);
    this.#o.policy.check(record, decision, 'deny');
    return this.#view(await this.#decide(record, 'denied', decision));
  }

  /**
   * Approvals whose run began before `before` (decided `approved`, never
   * settled): marked `interrupted` with an `approval.interrupted` line. Not
   * run again; the requester asks again if the call is still wanted.
   */
  async interrupt(before: number): Promise<ApprovalView[]> {
    const { store, clock } = this.#o;
    const at = new Date(clock()).toISOString();
    const approved = await must(() => store.listApprovals({ status: 'approved', limit: 1_000_000 }));
    const out: ApprovalView[] = [];
    for (const a of approved.filter((r) => r.decidedAt !== null && Date.parse(r.decidedAt) < before)) {
      const note = 'the process ended while the approved call ran; its outcome is unknown (not run again)';
      const marked = await must(() => store.updateApproval(a.id, 'approved', { status: 'interrupted', note }));
      if (!marked) continue; // settled meanwhile
      await must(() => store.appendAudit({ at, kind: 'approval.interrupted', tool: a.tool, callId: callIdOf(a.id), persona: a.persona, actor: null, detail: { approvalId: a.id, note } }));
      this.#waits.notify(this.#view(marked));
      out.push(this.#view(marked));
    }
    return out;
  }

  /**
   * Record how the approved run ended, and wake the waiters (with the
   * outcome even when the store could not keep it). From `approved`, or from
   * `interrupted` when another instance's start marked the run too early:
   * the outcome, once known, wins.
   */
  async #finish(approved: ApprovalRecord, status: 'executed' | 'failed', result: unknown, outcome: ApprovalOutcome): Promise<ApprovalView> {
    let done: ApprovalRecord | undefined;
    const marked = await this.#record(async () => {
      done = (await this.#o.store.updateApproval(approved.id, 'approved', { status, result, outcome })) ?? (await this.#o.store.updateApproval(approved.id, 'interrupted', { status, result, outcome }));
    });
    const settled = { ...approved, status, result, outcome };
    this.#waits.notify(this.#view(done ?? settled));
    return this.#view(done ?? (marked || status === 'failed' ? settled : approved));
  }

  /** The stored approval, or APPROVAL_NOT_FOUND; with `pending`, APPROVAL_CONFLICT unless it is still pending. */
  async #pending(id: string, pending: boolean): Promise<ApprovalRecord> {
    const record = await must(() => this.#o.store.getApproval(id));
    if (!record) throw new CallError('APPROVAL_NOT_FOUND', `No approval ${id}.`);
    if (pending && record.status !== 'pending') throw new CallError('APPROVAL_CONFLICT', `Approval ${id} is ${record.status}, not pending.`);
    return record;
  }

  /**
   * Compare-and-set from `pending`: the first decision wins, a later one is
   * APPROVAL_CONFLICT. With a principal, it is the one who decided (a `by`
   * name is ignored then).
   */
  async #decide(record: ApprovalRecord, status: ApprovalStatus, d: Decision & { at?: string }): Promise<ApprovalRecord> {
    const { store, clock, metrics } = this.#o;
    const at = d.at ?? new Date(clock()).toISOString();
    const by = d.principal?.id ?? d.by ?? null;
    const identity = { ...(d.principal ? { decidedByPrincipal: d.principal.id } : {}), ...(d.channel ? { decidedVia: d.channel } : {}) };
    const updated = await must(() => store.updateApproval(record.id, 'pending', { status, decidedBy: by, decidedAt: at, note: d.note ?? null, ...identity }));
    if (!updated) throw new CallError('APPROVAL_CONFLICT', `Approval ${record.id} was decided by someone else first.`);
    const detail = this.#o.redact({ approvalId: record.id, note: d.note ?? null, ...(d.channel ? { via: d.channel } : {}) });
    await must(() => store.appendAudit({ at, kind: `approval.${status}`, tool: record.tool, callId: callIdOf(record.id), persona: record.persona, actor: by, detail }));
    metrics.approvals.inc({ event: status, tool: record.tool });
    this.#waits.notify(this.#view(updated));
    return updated;
  }

  /** A store write after a call that already ran: failure is reported, not thrown (the result is not lost). */
  async #record(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      this.#o.warn(`could not record to the store: ${errorMessage(error)}`);
      return false;
    }
  }
}
