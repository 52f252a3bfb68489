/**
 * The call pipeline: what happens when an agent calls a tool through
 * toolcap. One path for the library (`runtime.call`), HTTP (`POST
 * /tools/{name}/call`) and the CLI (`toolcap call`):
 *
 * resolve within the caller's persona -> validate the arguments against
 * `inputSchema` (compiled once per tool of a snapshot) -> approval ->
 * concurrency (`allowParallel: false` serialises) -> provider selection
 * (ascending priority, skipping unready, unhealthy and backing-off ones) ->
 * timeout (`execution.timeoutSec`, AbortSignal) -> retries by `retryClass`
 * -> record (health, audit, trace, metrics).
 *
 * Approvals bind to exactly what was reviewed: the tool's manifest hash and
 * the arguments' hash. Approving runs the reviewed call; if the manifest
 * changed since, or the call is replayed with other arguments, the approval
 * is void. A store that is down makes approval-gated calls fail closed.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { Tracer } from '@opentelemetry/api';
import { createAjv } from '../model/validator.js';
import { toolKey } from '../model/tool-key.js';
import type { Provider, Tool } from '../model/schema.js';
import { contentHash, toolHash } from '../model/hash.js';
import type { Registry } from '../registry/registry.js';
import type { Snapshot } from '../registry/snapshot.js';
import type { ApprovalRecord, ApprovalStatus, Store } from '../store/types.js';
import { CallError, type CallErrorCode } from './errors.js';
import { HealthBook } from './health.js';
import { approvalReason, type ApprovalRule } from './policy.js';
import { OutcomeRecorder } from './recorder.js';
import { ProviderError, type ProviderEnvironment, type ProviderInstance } from './providers/types.js';
import { CallMetrics, callAttributes, endCallSpan, startCallSpan, toolcapTracer } from './telemetry.js';
import { errorMessage } from '../model/errors.js';

/** Turns a tool's provider entries into runnable instances, in ascending priority (see providers/registry.ts). */
export interface ProviderResolver {
  instantiate(tool: Tool, environment: ProviderEnvironment): Array<{ entry: Provider; priority: number; instance?: ProviderInstance; error?: string }>;
}

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

/**
 * An approval's id carries the id of the call it gates (`apr_` + the call
 * id's hex), so the request, the decision and the approved run share one
 * call id in the audit log without another column.
 */
const approvalIdFor = (callId: string) => `apr_${callId.replace(/-/g, '')}`;
const callIdOf = (approvalId: string): string => {
  const hex = approvalId.slice(4);
  return /^[0-9a-f]{32}$/.test(hex) ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` : randomUUID();
};

/** An approval as callers see it: the stored record without the internal tool key. */
export type ApprovalView = Omit<ApprovalRecord, 'toolKey'>;

export type CallResult =
  | { status: 'ok'; callId: string; tool: string; provider: string; attempts: number; durationMs: number; result: unknown; skipped: string[] }
  | { status: 'pending_approval'; callId: string; tool: string; approval: ApprovalView };

interface Attempt {
  provider: string;
  outcome: string;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const view = (r: ApprovalRecord): ApprovalView => {
  const { toolKey: _key, ...rest } = r;
  return rest;
};

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
  readonly #providers: ProviderResolver;
  readonly #rules: readonly ApprovalRule[];
  readonly #ttlMs: number;
  readonly #tracer: Tracer;
  readonly #environment: ProviderEnvironment;
  readonly #maxAttempts: number;
  readonly #retryBaseMs: number;
  readonly #clock: () => number;
  readonly #random: () => number;
  readonly #warn: (message: string) => void;
  readonly #validators = new WeakMap<Tool, ValidateFunction | Error>();
  readonly #instanceCache = new WeakMap<Tool, ReturnType<ProviderResolver['instantiate']>>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #outcomes: OutcomeRecorder;
  /** Active health checks by tool+provider: one timer each, for the instances of the serving snapshot. */
  readonly #checks = new Map<string, { timer: ReturnType<typeof setInterval>; instance: ProviderInstance }>();
  #closed = false;
  #ajv = createAjv();
  #ajvSnapshot: Snapshot | undefined;

  constructor(options: RuntimeOptions) {
    this.#registry = options.registry;
    this.store = options.store;
    this.#providers = options.providers;
    this.#rules = options.rules ?? [];
    this.#ttlMs = (options.approvalTtlSec ?? 3600) * 1000;
    this.#clock = options.clock ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.health = options.health ?? new HealthBook({ random: this.#random });
    this.#tracer = options.tracer ?? toolcapTracer();
    this.metrics = options.metrics ?? new CallMetrics();
    this.#environment = { env: options.environment?.env ?? process.env, baseDir: options.environment?.baseDir ?? process.cwd() };
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.#retryBaseMs = options.retryBaseMs ?? 100;
    this.#warn = options.onWarning ?? ((m) => process.emitWarning(`toolcap runtime: ${m}`));
    this.#outcomes = new OutcomeRecorder(this.store, this.#warn);
  }

  /** The tool this persona may call by this name, or TOOL_NOT_FOUND (hidden and missing look the same). */
  resolve(name: string, persona?: string): Tool {
    const snap = this.#registry.snapshot();
    const tool = snap.callableTools(persona).find((t) => t.name === name);
    if (!tool) throw new CallError('TOOL_NOT_FOUND', persona === undefined ? `No tool named "${name}".` : `No tool named "${name}" for persona "${persona}".`);
    return tool;
  }

  /** Check arguments against the tool's input schema (compiled once per tool of a snapshot). */
  validate(tool: Tool, args: unknown): Record<string, unknown> {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      throw new CallError('INVALID_ARGUMENTS', `Arguments must be a JSON object, not ${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args}.`, { pointer: '' });
    }
    const check = this.#validator(tool);
    if (check instanceof Error) throw new CallError('INVALID_TOOL_SCHEMA', `The input schema of "${tool.name}" cannot be compiled (${check.message}); the call is refused rather than run unchecked.`);
    if (!check(args)) {
      const problems = (check.errors ?? []).map((e) => ({
        pointer: e.instancePath,
        message: `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''}`,
      }));
      const first = problems[0];
      throw new CallError('INVALID_ARGUMENTS', `The arguments do not match the input schema of "${tool.name}": ${problems.map((p) => p.message).join('; ')}.`, {
        pointer: first?.pointer ?? '',
        problems,
      });
    }
    return args as Record<string, unknown>;
  }

  #validator(tool: Tool): ValidateFunction | Error {
    const snap = this.#registry.snapshot();
    if (snap !== this.#ajvSnapshot) {
      // one compiler per snapshot, so compiled schemas of old snapshots can be collected
      this.#ajv = createAjv();
      this.#ajvSnapshot = snap;
    }
    let v = this.#validators.get(tool);
    if (!v) {
      try {
        const { $schema: _ignored, $id: _id, ...schema } = (tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>;
        v = this.#ajv.compile(schema);
      } catch (error) {
        v = error instanceof Error ? error : new Error(String(error));
      }
      this.#validators.set(tool, v);
    }
    return v;
  }

  /**
   * Call a tool. Resolves to the result, or to a pending approval when the
   * call needs one; rejects with a {@link CallError}.
   */
  async call(name: string, args: unknown, context: CallContext = {}): Promise<CallResult> {
    const callId = randomUUID();
    const tool = this.resolve(name, context.persona);
    const checked = this.validate(tool, args);
    const reason = approvalReason(tool, context.persona, this.#rules);
    if (reason !== undefined) return this.#requestApproval(tool, checked, reason, callId, context);
    return this.#run(tool, checked, callId, context, reason !== undefined);
  }

  async #requestApproval(tool: Tool, args: Record<string, unknown>, reason: string, callId: string, context: CallContext): Promise<CallResult> {
    const now = this.#clock();
    const record: ApprovalRecord = {
      id: approvalIdFor(callId),
      tool: tool.name,
      toolKey: toolKey(tool),
      persona: context.persona ?? null,
      arguments: args,
      argumentsHash: contentHash(args),
      manifestHash: toolHash(tool),
      requestedBy: context.caller ?? null,
      reason,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.#ttlMs).toISOString(),
      status: 'pending',
      decidedBy: null,
      decidedAt: null,
      note: null,
      result: null,
    };
    await this.#must(() => this.store.createApproval(record));
    await this.#must(() =>
      this.store.appendAudit({ at: record.createdAt, kind: 'call.pending_approval', tool: tool.name, callId, persona: record.persona, actor: record.requestedBy, detail: { approvalId: record.id, reason } }),
    );
    this.metrics.approvals.inc({ event: 'requested' });
    return { status: 'pending_approval', callId, tool: tool.name, approval: view(record) };
  }

  /** A store write an approval-gated call depends on: failure fails the call closed. */
  async #must<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const message = errorMessage(error);
      throw new CallError('STORE_UNAVAILABLE', `The store is unavailable (${message}); approval-gated calls are refused until it is back.`, {}, { cause: error });
    }
  }

  /** A store write after a call that already ran: failure is reported, not thrown (the result is not lost). */
  async #record(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      this.#warn(`could not record to the store: ${errorMessage(error)}`);
      return false;
    }
  }

  async #run(tool: Tool, args: Record<string, unknown>, callId: string, context: RunContext, gated: boolean): Promise<CallResult & { status: 'ok' }> {
    if (tool.execution?.allowParallel === false) {
      const key = toolKey(tool);
      const previous = this.#locks.get(key) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((r) => (release = r));
      const chained = previous.then(() => mine);
      this.#locks.set(key, chained);
      await previous;
      try {
        return await this.#execute(tool, args, callId, context, gated);
      } finally {
        release();
        if (this.#locks.get(key) === chained) this.#locks.delete(key);
      }
    }
    return this.#execute(tool, args, callId, context, gated);
  }

  #instances(tool: Tool) {
    let list = this.#instanceCache.get(tool);
    if (!list) {
      // relative module paths and commands resolve from the folder of the manifest that first defined the tool
      const origin = this.#registry.snapshot().provenance(toolKey(tool))?.[0]?.file;
      const environment = origin === undefined ? this.#environment : { ...this.#environment, baseDir: dirname(resolve(origin)) };
      list = this.#providers.instantiate(tool, environment);
      this.#instanceCache.set(tool, list);
      this.health.declare(tool);
      for (const slot of list) if (slot.instance) this.#schedule(tool, slot.entry.name, slot.instance);
    }
    return list;
  }

  async #execute(tool: Tool, args: Record<string, unknown>, callId: string, context: RunContext, gated: boolean): Promise<CallResult & { status: 'ok' }> {
    const started = this.#clock();
    const span = startCallSpan(this.#tracer, tool, callAttributes(tool, callId, args, context.persona, gated));
    const timeoutMs = (tool.execution?.timeoutSec ?? 30) * 1000;
    const retryClass = tool.execution?.retryClass ?? 'never';
    const takesKey = tool.execution?.idempotencyKey !== undefined && tool.execution.idempotencyKey !== false;
    const idempotencyKey = context.idempotencyKey ?? (takesKey ? callId : undefined);
    const attempts: Attempt[] = [];
    const skipped: string[] = [];
    const failed = new Set<string>();
    /** Providers this call already tried: its own failure's backoff does not stop its own retries. */
    const tried = new Set<string>();
    let lastError: { code: CallErrorCode; message: string } | undefined;
    let attemptNo = 0;
    const finish = async (ok: boolean, provider: string | undefined, code?: CallErrorCode, message?: string) => {
      const durationMs = this.#clock() - started;
      this.health.record(tool.name, { ok, durationMs, at: this.#clock(), provider: provider ?? null, errorCode: code ?? null }, context.job);
      this.metrics.calls.inc({ tool: tool.name, outcome: ok ? 'ok' : (code ?? 'error') });
      this.metrics.duration.observe({ tool: tool.name }, durationMs / 1000);
      endCallSpan(span, { ok, provider, skipped, attempts: attemptNo, ...(code !== undefined ? { errorCode: code } : {}), ...(message !== undefined ? { message } : {}) });
      const at = new Date(this.#clock()).toISOString();
      const detail = { provider: provider ?? null, attempts, skipped, durationMs, ...(code ? { error: code, message } : {}), ...(context.approvalId ? { approvalId: context.approvalId } : {}) };
      const outcome = {
        call: {
          callId,
          tool: tool.name,
          provider: provider ?? null,
          job: context.job ?? null,
          persona: context.persona ?? null,
          startedAt: new Date(started).toISOString(),
          durationMs,
          outcome: ok ? ('ok' as const) : code === 'TIMEOUT' ? ('timeout' as const) : code === 'NO_HEALTHY_PROVIDER' ? ('rejected' as const) : ('error' as const),
          errorCode: code ?? null,
        },
        audit: { at, kind: ok ? 'call.ok' : 'call.error', tool: tool.name, callId, persona: context.persona ?? null, actor: context.caller ?? null, detail },
      };
      // group commit: an approved call waits for its record; others are answered at once (write-behind)
      const written = this.#outcomes.add(outcome);
      if (gated) await written;
      return durationMs;
    };

    try {
      for (;;) {
        const now = this.#clock();
        let chosen: { name: string; instance: ProviderInstance; probe: boolean } | undefined;
        let retryAt = Number.POSITIVE_INFINITY;
        for (const candidate of this.#instances(tool)) {
          const name = candidate.entry.name;
          if (failed.has(name)) continue;
          if (!candidate.instance) {
            skip(skipped, name, candidate.error ?? 'not runnable');
            continue;
          }
          const missing = missingEnv(candidate.entry, this.#environment.env);
          if (missing.length > 0) {
            skip(skipped, name, `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`);
            continue;
          }
          const ready = candidate.instance.ready?.();
          if (ready && !ready.healthy) {
            skip(skipped, name, ready.reason ?? 'not ready');
            continue;
          }
          const admitted = this.health.admit(tool.name, name, now);
          if (!admitted.ok && tried.has(name) && admitted.until > 0) {
            chosen = { name, instance: candidate.instance, probe: false };
            break;
          }
          if (!admitted.ok) {
            skip(skipped, name, admitted.reason);
            if (admitted.until > 0) retryAt = Math.min(retryAt, admitted.until);
            continue;
          }
          chosen = { name, instance: candidate.instance, probe: admitted.probe };
          break;
        }
        if (!chosen) {
          if (lastError) throw new CallError(lastError.code, lastError.message, { providers: attempts, callId });
          const retryAfterMs = Number.isFinite(retryAt) ? Math.max(0, retryAt - now) : undefined;
          throw new CallError(
            'NO_HEALTHY_PROVIDER',
            `No provider of "${tool.name}" can run it now: ${skipped.join('; ') || 'it lists none'}.${retryAfterMs !== undefined ? ` Retry in ${Math.ceil(retryAfterMs / 1000)} s.` : ''}`,
            { ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), providers: skipped.map((s) => ({ provider: s.split(':')[0] ?? s, outcome: s })), callId },
          );
        }
        attemptNo++;
        tried.add(chosen.name);
        const attemptStart = this.#clock();
        const signals = [AbortSignal.timeout(timeoutMs), ...(context.signal ? [context.signal] : [])];
        const signal = signals.length === 1 ? signals[0]! : AbortSignal.any(signals);
        try {
          const result = await raceAbort(
            chosen.instance.call(args, { signal, callId, attempt: attemptNo, tool, ...(context.persona !== undefined ? { persona: context.persona } : {}), ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) }),
            signal,
          );
          this.health.recordAttempt(tool.name, chosen.name, { ok: true, durationMs: this.#clock() - attemptStart, at: this.#clock(), provider: chosen.name, errorCode: null });
          this.metrics.attempts.inc({ tool: tool.name, provider: chosen.name, outcome: 'ok' });
          this.metrics.backoff.set({ tool: tool.name, provider: chosen.name }, 0);
          attempts.push({ provider: chosen.name, outcome: 'ok' });
          const durationMs = await finish(true, chosen.name);
          return { status: 'ok', callId, tool: tool.name, provider: chosen.name, attempts: attemptNo, durationMs, result, skipped };
        } catch (error) {
          const timedOut = signal.aborted && !(context.signal?.aborted ?? false);
          const code: CallErrorCode = timedOut ? 'TIMEOUT' : 'PROVIDER_ERROR';
          const before = error instanceof ProviderError && error.beforeEffect && !timedOut;
          const message = timedOut
            ? `"${tool.name}" did not finish within ${timeoutMs / 1000} s (execution.timeoutSec) on provider ${chosen.name}.`
            : `Provider ${chosen.name} of "${tool.name}" failed: ${errorMessage(error)}`;
          this.health.recordAttempt(tool.name, chosen.name, { ok: false, durationMs: this.#clock() - attemptStart, at: this.#clock(), provider: chosen.name, errorCode: code });
          this.metrics.attempts.inc({ tool: tool.name, provider: chosen.name, outcome: code });
          if (this.health.circuit(tool.name, chosen.name).backoffUntil > this.#clock()) this.metrics.backoff.set({ tool: tool.name, provider: chosen.name }, 1);
          attempts.push({ provider: chosen.name, outcome: `${code}${before ? ' (before any effect)' : ''}: ${errorMessage(error)}` });
          lastError = { code, message };
          if (context.signal?.aborted) throw new CallError(code, `The caller aborted the call to "${tool.name}".`, { providers: attempts, callId });
          // may this call go again (on the next provider, or the same one after a pause)?
          const retryable = before || retryClass === 'safe' || (retryClass === 'guarded' && context.idempotencyKey !== undefined);
          if (!retryable || attemptNo >= this.#maxAttempts + (before ? this.#instances(tool).length : 0)) {
            throw new CallError(
              code,
              `${message}${retryable ? '' : ` Not retried: retry class "${retryClass}"${retryClass === 'guarded' ? ' without an idempotency key' : ''}, and the failure may have had effects.`}`,
              { providers: attempts, callId },
            );
          }
          failed.add(chosen.name);
          // every provider failed once: start over after a pause (safe and keyed guarded calls only)
          if (this.#instances(tool).every((c) => !c.instance || failed.has(c.entry.name))) {
            failed.clear();
            const pause = this.#retryBaseMs * 2 ** Math.max(0, attemptNo - 1) * (0.8 + 0.4 * this.#random());
            await sleep(pause, context.signal);
          }
        }
      }
    } catch (error) {
      const e = error instanceof CallError ? error : new CallError('PROVIDER_ERROR', errorMessage(error), { callId });
      await finish(false, attempts.at(-1)?.provider, e.code, e.message);
      throw e;
    }
  }

  /**
   * Active health checks: a provider with `check()` and an interval is
   * checked right away and then every interval; a failed check keeps the
   * router off it until a check passes. One timer per tool and provider,
   * replaced when a reload makes a new instance.
   */
  #schedule(tool: Tool, provider: string, instance: ProviderInstance): void {
    const interval = instance.healthCheckIntervalSec;
    if (this.#closed || !instance.check || interval === undefined || !(interval > 0)) return;
    const key = `${tool.name}\u0000${provider}`;
    const existing = this.#checks.get(key);
    if (existing?.instance === instance) return;
    if (existing) clearInterval(existing.timer);
    const run = async () => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), Math.min(interval * 1000, 10_000));
      try {
        const result = await instance.check!(controller.signal);
        this.health.setCheck(tool.name, provider, result, this.#clock());
      } catch (error) {
        this.health.setCheck(tool.name, provider, { healthy: false, reason: errorMessage(error) }, this.#clock());
      } finally {
        clearTimeout(timer);
      }
    };
    const timer = setInterval(() => void run(), interval * 1000);
    timer.unref();
    this.#checks.set(key, { timer, instance });
    void run();
  }

  /** Wait until every finished call's record and audit line is in the store. */
  flush(): Promise<void> {
    return this.#outcomes.flush();
  }

  /** Stop health checks, write queued call records, release provider resources. The store is the caller's to close. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#outcomes.flush();
    for (const { timer, instance } of this.#checks.values()) {
      clearInterval(timer);
      await instance.close?.().catch(() => undefined);
    }
    this.#checks.clear();
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

  // --- approvals -----------------------------------------------------------

  async listApprovals(query: { status?: ApprovalStatus; tool?: string; limit?: number } = {}): Promise<ApprovalView[]> {
    return (await this.#must(() => this.store.listApprovals(query))).map(view);
  }

  async getApproval(id: string): Promise<ApprovalView> {
    const r = await this.#must(() => this.store.getApproval(id));
    if (!r) throw new CallError('APPROVAL_NOT_FOUND', `No approval ${id}.`);
    return view(r);
  }

  /**
   * Approve and run exactly the reviewed call. Void when the tool's manifest
   * changed since the request (or the tool is gone for that persona);
   * expired after `approvalTtlSec`.
   */
  async approve(id: string, decision: { by?: string; note?: string } = {}): Promise<{ approval: ApprovalView; call?: CallResult; error?: CallError }> {
    const record = await this.#must(() => this.store.getApproval(id));
    if (!record) throw new CallError('APPROVAL_NOT_FOUND', `No approval ${id}.`);
    if (record.status !== 'pending') throw new CallError('APPROVAL_CONFLICT', `Approval ${id} is ${record.status}, not pending.`);
    const now = this.#clock();
    const at = new Date(now).toISOString();
    if (Date.parse(record.expiresAt) <= now) {
      await this.#decide(record, 'expired', { by: decision.by, note: `expired at ${record.expiresAt}` });
      throw new CallError('APPROVAL_CONFLICT', `Approval ${id} expired at ${record.expiresAt}; ask again.`);
    }
    let tool: Tool;
    try {
      tool = this.resolve(record.tool, record.persona ?? undefined);
    } catch {
      await this.#decide(record, 'void', { by: decision.by, note: 'the tool is gone for this persona' });
      throw new CallError('APPROVAL_VOID', `Approval ${id} is void: "${record.tool}" no longer exists for this persona.`);
    }
    const hash = toolHash(tool);
    if (hash !== record.manifestHash) {
      await this.#decide(record, 'void', { by: decision.by, note: `the manifest changed since review (${record.manifestHash} -> ${hash})` });
      throw new CallError('APPROVAL_VOID', `Approval ${id} is void: the manifest of "${record.tool}" changed since it was reviewed. Ask again so the new manifest is reviewed.`);
    }
    const approved = await this.#decide(record, 'approved', { by: decision.by, note: decision.note, at });
    let call: CallResult & { status: 'ok' };
    try {
      const args = this.validate(tool, record.arguments);
      if (contentHash(args) !== record.argumentsHash) throw new CallError('APPROVAL_VOID', `Approval ${id} is void: the arguments differ from the reviewed ones.`);
      call = await this.#run(tool, args, callIdOf(id), { ...(record.persona ? { persona: record.persona } : {}), ...(record.requestedBy ? { caller: record.requestedBy } : {}), approvalId: id }, true);
    } catch (error) {
      const e = error instanceof CallError ? error : new CallError('PROVIDER_ERROR', String(error));
      await this.#record(() => this.store.updateApproval(id, 'approved', { status: 'failed', result: { error: e.code, message: e.message } }));
      return { approval: view({ ...approved, status: 'failed', result: { error: e.code, message: e.message } }), error: e };
    }
    // the call ran: its result is the answer even if the store cannot mark the approval executed now (it stays "approved")
    const result = { callId: call.callId, provider: call.provider, result: call.result };
    let done: ApprovalRecord | undefined;
    const marked = await this.#record(async () => {
      done = await this.store.updateApproval(id, 'approved', { status: 'executed', result });
    });
    return { approval: view(done ?? (marked ? { ...approved, status: 'executed', result } : approved)), call };
  }

  async deny(id: string, decision: { by?: string; note?: string } = {}): Promise<ApprovalView> {
    const record = await this.#must(() => this.store.getApproval(id));
    if (!record) throw new CallError('APPROVAL_NOT_FOUND', `No approval ${id}.`);
    if (record.status !== 'pending') throw new CallError('APPROVAL_CONFLICT', `Approval ${id} is ${record.status}, not pending.`);
    return view(await this.#decide(record, 'denied', { by: decision.by, note: decision.note }));
  }

  async #decide(record: ApprovalRecord, status: ApprovalStatus, d: { by?: string | undefined; note?: string | undefined; at?: string }): Promise<ApprovalRecord> {
    const at = d.at ?? new Date(this.#clock()).toISOString();
    const updated = await this.#must(() => this.store.updateApproval(record.id, 'pending', { status, decidedBy: d.by ?? null, decidedAt: at, note: d.note ?? null }));
    if (!updated) throw new CallError('APPROVAL_CONFLICT', `Approval ${record.id} was decided by someone else first.`);
    await this.#must(() => this.store.appendAudit({ at, kind: `approval.${status}`, tool: record.tool, callId: callIdOf(record.id), persona: record.persona, actor: d.by ?? null, detail: { approvalId: record.id, note: d.note ?? null } }));
    this.metrics.approvals.inc({ event: status });
    return updated;
  }
}


/**
 * Declarative health for every provider type: the environment variables a
 * manifest entry names must be set (`config.requiredEnv: [...]`, and the
 * ATLAS convention of `*_env` keys such as `api_key_env: GOOGLE_API_KEY`).
 */
export function missingEnv(entry: Provider, env: Readonly<Record<string, string | undefined>>): string[] {
  const names: string[] = [];
  const config = entry.config ?? {};
  const required = config['requiredEnv'];
  if (Array.isArray(required)) for (const n of required) if (typeof n === 'string') names.push(n);
  for (const [key, value] of Object.entries(config)) if (/(_env|Env)$/.test(key) && key !== 'requiredEnv' && typeof value === 'string') names.push(value);
  return names.filter((n) => (env[n] ?? '') === '');
}

function skip(list: string[], name: string, reason: string): void {
  const line = `${name}: ${reason}`;
  if (!list.includes(line)) list.push(line);
}

/** A provider that ignores its signal still loses the race: the call settles when the signal aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
