/**
 * The call pipeline: what happens when an agent calls a tool through
 * toolcap. One path for the library (`runtime.call`), HTTP (`POST
 * /tools/{name}/call`) and the CLI (`toolcap call`):
 *
 * resolve within the caller's persona -> validate the arguments against
 * `inputSchema` (arguments.ts) -> approval (approval-rules.ts, approvals.ts)
 * -> concurrency (`allowParallel: false` serialises) -> the router
 * (router.ts: provider choice, timeout per attempt, retries by `retryClass`,
 * failover) -> record (health, audit, trace, metrics).
 *
 * A call reads the registry's snapshot once and uses it throughout, so a
 * reload in the middle of a call cannot mix two catalogs. This class wires
 * the parts and keeps the public API; the work is in the modules above.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Tracer } from '@opentelemetry/api';
import type { Tool } from '../model/schema.js';
import { toolKey } from '../model/tool-key.js';
import { errorMessage } from '../model/errors.js';
import type { Registry } from '../registry/registry.js';
import type { Snapshot } from '../registry/snapshot.js';
import type { ApprovalStatus, Store } from '../store/types.js';
import { approvalReason, type ApprovalRule } from './approval-rules.js';
import { Approvals, type ApprovalView, type ReviewedCall } from './approvals.js';
import { ArgumentChecker } from './arguments.js';
import { CallError, type CallErrorCode } from './errors.js';
import { HealthBook } from './health.js';
import { HealthChecks } from './health-checks.js';
import { ProviderSlots, type ProviderResolver } from './provider-slots.js';
import { OutcomeRecorder } from './recorder.js';
import { Router, type RouteLog } from './router.js';
import type { ProviderEnvironment } from './providers/types.js';
import { CallMetrics, callAttributes, endCallSpan, startCallSpan, toolcapTracer } from './telemetry.js';

export { approvalReason, type ApprovalRule } from './approval-rules.js';
export type { ApprovalView } from './approvals.js';
export type { ProviderResolver } from './provider-slots.js';

export interface RuntimeOptions {
  registry: Registry;
  store: Store;
  providers: ProviderResolver;
  /** Extra approval rules (config `approvals.rules`). */
  rules?: ApprovalRule[];
  /** How long an approval stays valid. @default 3600 */
  approvalTtlSec?: number;
  health?: HealthBook;
  tracer?: Tracer;
  metrics?: CallMetrics;
  environment?: Partial<ProviderEnvironment>;
  /** Attempts per call for retryable failures (safe tools, guarded with a key). @default 3 */
  maxAttempts?: number;
  /** Pause before retry n (ms): base * 2^(n-1) with jitter. @default 100 */
  retryBaseMs?: number;
  clock?: () => number;
  random?: () => number;
  /** Told of store failures that did not fail the call (recording after a non-gated call). */
  onWarning?: (message: string) => void;
}

export interface CallContext {
  persona?: string;
  /** Who asks (user or agent id), for the audit log and the reviewer. */
  caller?: string;
  /** The job this call serves, for job health. */
  job?: string;
  /** Given by a retrying caller to make a guarded tool retryable; made up when the tool takes one and none is given. */
  idempotencyKey?: string;
  /** The caller gives up: aborts the call. */
  signal?: AbortSignal;
}

/** What a run knows beyond the caller's context: the approval it runs under. */
type RunContext = CallContext & { approvalId?: string };

export type CallResult =
  | { status: 'ok'; callId: string; tool: string; provider: string; attempts: number; durationMs: number; result: unknown; skipped: string[] }
  | { status: 'pending_approval'; callId: string; tool: string; approval: ApprovalView };

type OkResult = CallResult & { status: 'ok' };

/**
 * The runtime: calls, approvals and health over a registry.
 * @example
 * const runtime = new Runtime({ registry, store, providers: new ProviderTypes() });
 * const r = await runtime.call('pagerduty.list_incidents', { status: 'open' }, { persona: 'oncall' });
 */
export class Runtime {
  readonly health: HealthBook;
  readonly metrics: CallMetrics;
  readonly store: Store;
  readonly #registry: Registry;
  readonly #rules: readonly ApprovalRule[];
  readonly #tracer: Tracer;
  readonly #clock: () => number;
  readonly #arguments = new ArgumentChecker();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #outcomes: OutcomeRecorder;
  readonly #checks: HealthChecks;
  readonly #slots: ProviderSlots;
  readonly #router: Router;
  readonly #approvals: Approvals;

  constructor(options: RuntimeOptions) {
    this.#registry = options.registry;
    this.store = options.store;
    this.#rules = options.rules ?? [];
    this.#clock = options.clock ?? Date.now;
    const random = options.random ?? Math.random;
    this.health = options.health ?? new HealthBook({ random });
    this.#tracer = options.tracer ?? toolcapTracer();
    this.metrics = options.metrics ?? new CallMetrics();
    const environment: ProviderEnvironment = { env: options.environment?.env ?? process.env, baseDir: options.environment?.baseDir ?? process.cwd() };
    const warn = options.onWarning ?? ((m) => process.emitWarning(`toolcap runtime: ${m}`));
    this.#outcomes = new OutcomeRecorder(this.store, warn);
    this.#checks = new HealthChecks(this.health, this.#clock);
    this.#slots = new ProviderSlots(options.providers, environment, this.health, this.#checks);
    this.#router = new Router({
      health: this.health,
      metrics: this.metrics,
      env: environment.env,
      maxAttempts: Math.max(1, options.maxAttempts ?? 3),
      retryBaseMs: options.retryBaseMs ?? 100,
      clock: this.#clock,
      random,
    });
    this.#approvals = new Approvals({ store: this.store, metrics: this.metrics, ttlMs: (options.approvalTtlSec ?? 3600) * 1000, clock: this.#clock, warn });
  }

  /** The tool this persona may call by this name, or TOOL_NOT_FOUND (hidden and missing look the same). */
  resolve(name: string, persona?: string): Tool {
    return resolveIn(this.#registry.snapshot(), name, persona);
  }

  /** Check arguments against the tool's input schema (compiled once per tool of a snapshot). */
  validate(tool: Tool, args: unknown): Record<string, unknown> {
    return this.#arguments.check(this.#registry.snapshot(), tool, args);
  }

  /**
   * Call a tool. Resolves to the result, or to a pending approval when the
   * call needs one; rejects with a {@link CallError}.
   */
  async call(name: string, args: unknown, context: CallContext = {}): Promise<CallResult> {
    const callId = randomUUID();
    const snapshot = this.#registry.snapshot();
    const tool = resolveIn(snapshot, name, context.persona);
    const checked = this.#arguments.check(snapshot, tool, args);
    const reason = approvalReason(tool, context.persona, this.#rules);
    if (reason !== undefined) {
      const approval = await this.#approvals.request(tool, checked, reason, callId, context);
      return { status: 'pending_approval', callId, tool: tool.name, approval };
    }
    return this.#run(snapshot, tool, checked, callId, context, false);
  }

  /** Serialise calls of a tool that disallows parallel runs (per tool version, in arrival order), then execute. */
  async #run(snapshot: Snapshot, tool: Tool, args: Record<string, unknown>, callId: string, context: RunContext, gated: boolean): Promise<OkResult> {
    if (tool.execution?.allowParallel !== false) return this.#execute(snapshot, tool, args, callId, context, gated);
    const key = toolKey(tool);
    const previous = this.#locks.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const chained = previous.then(() => mine);
    this.#locks.set(key, chained);
    await previous;
    try {
      return await this.#execute(snapshot, tool, args, callId, context, gated);
    } finally {
      release();
      if (this.#locks.get(key) === chained) this.#locks.delete(key);
    }
  }

  /** Route the call, then record its outcome either way: health, metrics, span, store (an approved call waits for its record). */
  async #execute(snapshot: Snapshot, tool: Tool, args: Record<string, unknown>, callId: string, context: RunContext, gated: boolean): Promise<OkResult> {
    const started = this.#clock();
    const span = startCallSpan(this.#tracer, tool, callAttributes(tool, callId, args, context.persona, gated));
    const log: RouteLog = { attempts: [], skipped: [], count: 0 };
    const finish = async (ok: boolean, provider: string | undefined, code?: CallErrorCode, message?: string): Promise<number> => {
      const durationMs = this.#clock() - started;
      this.health.record(tool.name, { ok, durationMs, at: this.#clock(), provider: provider ?? null, errorCode: code ?? null }, context.job);
      this.metrics.calls.inc({ tool: tool.name, outcome: ok ? 'ok' : (code ?? 'error') });
      this.metrics.duration.observe({ tool: tool.name }, durationMs / 1000);
      endCallSpan(span, { ok, provider, skipped: log.skipped, attempts: log.count, ...(code !== undefined ? { errorCode: code } : {}), ...(message !== undefined ? { message } : {}) });
      const detail = { provider: provider ?? null, attempts: log.attempts, skipped: log.skipped, durationMs, ...(code ? { error: code, message } : {}), ...(context.approvalId ? { approvalId: context.approvalId } : {}) };
      const outcome = ok ? ('ok' as const) : code === 'TIMEOUT' ? ('timeout' as const) : code === 'NO_HEALTHY_PROVIDER' ? ('rejected' as const) : ('error' as const);
      const persona = context.persona ?? null;
      // group commit: an approved call waits for its record; others are answered at once (write-behind)
      const written = this.#outcomes.add({
        call: { callId, tool: tool.name, provider: provider ?? null, job: context.job ?? null, persona, startedAt: new Date(started).toISOString(), durationMs, outcome, errorCode: code ?? null },
        audit: { at: new Date(this.#clock()).toISOString(), kind: ok ? 'call.ok' : 'call.error', tool: tool.name, callId, persona, actor: context.caller ?? null, detail },
      });
      if (gated) await written;
      return durationMs;
    };
    try {
      const { provider, result } = await this.#router.route(
        { tool, args, slots: this.#slots.of(snapshot, tool), callId, persona: context.persona, idempotencyKey: context.idempotencyKey, signal: context.signal },
        log,
      );
      const durationMs = await finish(true, provider);
      return { status: 'ok', callId, tool: tool.name, provider, attempts: log.count, durationMs, result, skipped: log.skipped };
    } catch (error) {
      const e = error instanceof CallError ? error : new CallError('PROVIDER_ERROR', errorMessage(error), { callId });
      await finish(false, log.attempts.at(-1)?.provider, e.code, e.message);
      throw e;
    }
  }

  /** Wait until every finished call's record and audit line is in the store. */
  flush(): Promise<void> {
    return this.#outcomes.flush();
  }

  /** Stop health checks, write queued call records, release provider resources. The store is the caller's to close. */
  async close(): Promise<void> {
    this.#checks.stop();
    await this.#outcomes.flush();
    await this.#checks.close();
  }

  /** Seed observed health from calls the store remembers (after a restart, or from other instances). */
  async loadHealth(sinceMs = 24 * 3600 * 1000): Promise<number> {
    const since = new Date(this.#clock() - sinceMs).toISOString();
    const calls = await this.store.listCalls({ since, limit: 10_000 });
    for (const c of calls.reverse()) {
      const at = Date.parse(c.startedAt);
      this.health.record(c.tool, { ok: c.outcome === 'ok', durationMs: c.durationMs, at, provider: c.provider, errorCode: c.errorCode }, c.job);
    }
    return calls.length;
  }

  // --- approvals (approvals.ts) ---------------------------------------------

  listApprovals(query: { status?: ApprovalStatus; tool?: string; limit?: number } = {}): Promise<ApprovalView[]> {
    return this.#approvals.list(query);
  }

  getApproval(id: string): Promise<ApprovalView> {
    return this.#approvals.get(id);
  }

  /**
   * Approve and run exactly the reviewed call. Void when the tool's manifest
   * changed since the request (or the tool is gone for that persona);
   * expired after `approvalTtlSec`.
   */
  approve(id: string, decision: { by?: string; note?: string } = {}): Promise<{ approval: ApprovalView; call?: CallResult; error?: CallError }> {
    return this.#approvals.approve(id, decision, this.#reviewedCall());
  }

  deny(id: string, decision: { by?: string; note?: string } = {}): Promise<ApprovalView> {
    return this.#approvals.deny(id, decision);
  }

  /** An approved call's steps on one snapshot: the one serving when the approval resolves its tool. */
  #reviewedCall(): ReviewedCall<OkResult> {
    let snapshot: Snapshot | undefined;
    const pinned = () => (snapshot ??= this.#registry.snapshot());
    return {
      resolve: (name, persona) => resolveIn(pinned(), name, persona),
      validate: (tool, args) => this.#arguments.check(pinned(), tool, args),
      run: (tool, args, callId, context) => this.#run(pinned(), tool, args, callId, context, true),
    };
  }
}

/** The tool a caller may call in this snapshot, or TOOL_NOT_FOUND (hidden, disabled and missing look the same). */
function resolveIn(snapshot: Snapshot, name: string, persona: string | undefined): Tool {
  const tool = snapshot.callable(name, persona);
  if (!tool) throw new CallError('TOOL_NOT_FOUND', persona === undefined ? `No tool named "${name}".` : `No tool named "${name}" for persona "${persona}".`);
  return tool;
}
