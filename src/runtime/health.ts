/**
 * Observed health: rolling success rate and latency per tool, provider and
 * job, the last outcome, and each provider's backoff state.
 *
 * Outcomes are kept in fixed-size rings (the last {@link WINDOW} calls per
 * key), so a rate reflects recent behaviour and memory stays bounded. The
 * router's circuit state lives here too: consecutive failures put a
 * provider into exponential backoff with jitter and a cap; when the backoff
 * ends, one probe call is let through (half-open) and its outcome closes or
 * reopens the circuit.
 * @module
 */
import type { HealthSource, HealthSummary } from '../model/health.js';
import type { Tool } from '../model/schema.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.js';

/** Calls remembered per key. */
export const WINDOW = 100;
/** Observed p95 above this many times the declared p95 (with enough calls) flags the manifest as stale. */
export const STALE_FACTOR = 2;
/** Calls needed before the latency comparison with the manifest means anything. */
export const STALE_MIN_CALLS = 20;

/** The circuit's policy and its default live with the one backoff function; re-exported here where they were first published. */
export { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.js';

export interface Outcome {
  ok: boolean;
  durationMs: number;
  at: number;
  provider: string | null;
  errorCode: string | null;
}

/** Rolling statistics of one key. */
class Ring {
  readonly ok: Uint8Array = new Uint8Array(WINDOW);
  readonly ms: Float64Array = new Float64Array(WINDOW);
  count = 0;
  next = 0;
  last: Outcome | undefined;
  add(o: Outcome): void {
    this.ok[this.next] = o.ok ? 1 : 0;
    this.ms[this.next] = o.durationMs;
    this.next = (this.next + 1) % WINDOW;
    this.count = Math.min(WINDOW, this.count + 1);
    this.last = o;
  }
  summary(): { calls: number; successRate: number; p50Ms: number; p95Ms: number } | undefined {
    if (this.count === 0) return undefined;
    let ok = 0;
    const ms = Array.from(this.ms.subarray(0, this.count)).sort((a, b) => a - b);
    for (let i = 0; i < this.count; i++) ok += this.ok[i]!;
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
    return { calls: this.count, successRate: ok / this.count, p50Ms: at(0.5), p95Ms: at(0.95) };
  }
}

/** A provider's circuit: closed (normal), open (backing off until), half-open (one probe out). */
export interface CircuitState {
  consecutiveFailures: number;
  /** Epoch ms until which the provider is skipped; 0 when not backing off. */
  backoffUntil: number;
  /** A probe is running after a backoff ended. */
  probing: boolean;
  /** Latest active health check result. */
  check?: { healthy: boolean; reason?: string; at: number };
  /** What works less safely than declared (e.g. a declared resource limit this provider does not enforce). */
  warnings?: string[];
}

export interface ProviderHealth extends CircuitState {
  provider: string;
  calls: number;
  successRate: number | null;
  lastOutcome: Outcome | null;
}

/** Tools that cannot run now, whatever was observed. */
export interface Availability {
  /** Why `tool` cannot run, or undefined when it can. */
  of(tool: string): { reason: string; missingCredentials: string[] } | undefined;
  /** Changes whenever any answer of `of` may have (cached bodies are keyed by the book's version). */
  signature(): string;
}

/** A circuit opened, extended or closed by an outcome this book recorded (what other instances are told, runtime/cluster). */
export interface CircuitChange {
  tool: string;
  provider: string;
  consecutiveFailures: number;
  /** Epoch ms; 0: closed. */
  backoffUntil: number;
  /** Epoch ms of the outcome that moved it. */
  changedAt: number;
}

/** Status from a success rate: ok at 95% and above, degraded from 50%, down below. */
export function statusOf(successRate: number): HealthSummary['status'] {
  return successRate >= 0.95 ? 'ok' : successRate >= 0.5 ? 'degraded' : 'down';
}

/** How far ahead of this clock a merged change's time may be (clocks a little apart); later is taken as this. */
export const MERGE_SKEW_MS = 10_000;
/** Most circuits merged from other instances that this book keeps. */
export const MAX_MERGED_CIRCUITS = 10_000;
/** Most jobs whose health this book keeps; past it, the least recently recorded one is dropped. */
export const MAX_JOBS = 1_000;
/** Longest job name kept: a call names its job in words the caller chose (a catalog job's name is far shorter). */
export const MAX_JOB_NAME = 256;

/**
 * The health book: every outcome the runtime observes, and the circuits the
 * router consults. Also the {@link HealthSource} of the HTTP API.
 */
export class HealthBook implements HealthSource {
  readonly #tools = new Map<string, Ring>();
  readonly #providers = new Map<string, Ring>();
  readonly #jobs = new Map<string, Ring>();
  readonly #circuits = new Map<string, CircuitState>();
  readonly #policy: BackoffPolicy;
  readonly #random: () => number;
  readonly #declared = new Map<string, number>();
  readonly #lastOk = new Map<string, { provider: string; at: number }>();
  #availability: Availability | undefined;
  #version = 0;
  /** When each circuit last moved (its own outcome or a merged one), so an older remote change is ignored. */
  readonly #changedAt = new Map<string, number>();
  #onChange: ((change: CircuitChange) => void) | undefined;
  #onOwnCall: ((callId: string, at: number) => void) | undefined;
  /** What else is shown with a tool's health (tool-services.ts: result drift, an unavailable reason). */
  #annotate: ((name: string) => Record<string, unknown> | undefined) | undefined;

  constructor(options: { backoff?: Partial<BackoffPolicy>; random?: () => number } = {}) {
    this.#policy = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.#random = options.random ?? Math.random;
  }

  version(): number {
    const signature = this.#availability?.signature() ?? '';
    let h = this.#version;
    for (let i = 0; i < signature.length; i++) h = (h * 31 + signature.charCodeAt(i)) % 2_147_483_647;
    return h;
  }

  /** Let `availability` mark tools that cannot run now (the runtime's credential check) as `unavailable`. */
  useAvailability(availability: Availability): void {
    this.#availability = availability;
    this.#version++;
  }

  /** The provider of the tool's latest successful call, and when (epoch ms). */
  lastSuccess(tool: string): { provider: string; at: number } | undefined {
    return this.#lastOk.get(tool);
  }

  /** Show more with each tool's health: fields merged into {@link lookup}'s answer (a `status` among them wins). */
  annotate(fn: (name: string) => Record<string, unknown> | undefined): void {
    this.#annotate = fn;
  }

  /** Remember a tool's declared p95, to flag a stale manifest. */
  declare(tool: Tool): void {
    const p95 = tool.latency?.p95Ms;
    if (p95 !== undefined) this.#declared.set(tool.name, p95);
  }

  /** Record one call's final outcome (tool and job), and the attempt's outcome for its provider. */
  record(tool: string, outcome: Outcome, job?: string | null, callId?: string): void {
    ring(this.#tools, tool).add(outcome);
    // calls seeded from the store (loadHealth) come oldest first, so the latest wins here too
    if (outcome.ok && outcome.provider !== null) this.#lastOk.set(tool, { provider: outcome.provider, at: outcome.at });
    // the job is the caller's word (any string up to the body limit): a bounded book, so a flood of
    // new or huge names cannot grow the server's memory; a job recorded again moves to the back
    if (job && job.length <= MAX_JOB_NAME) {
      const r = this.#jobs.get(job) ?? new Ring();
      this.#jobs.delete(job);
      this.#jobs.set(job, r);
      r.add(outcome);
      if (this.#jobs.size > MAX_JOBS) this.#jobs.delete(this.#jobs.keys().next().value as string);
    }
    this.#version++;
    if (callId !== undefined) this.#onOwnCall?.(callId, outcome.at);
  }

  /** Be told the id of each call this process ran and recorded (`record` with a `callId`), so calls read back from a shared store are not counted twice. */
  onOwnCall(listener: ((callId: string, at: number) => void) | undefined): void {
    this.#onOwnCall = listener;
  }

  /** Record one provider attempt and move its circuit. */
  recordAttempt(tool: string, provider: string, outcome: Outcome): void {
    const key = `${tool}\u0000${provider}`;
    ring(this.#providers, key).add(outcome);
    const c = this.circuit(tool, provider);
    const before = c.backoffUntil;
    c.probing = false;
    if (outcome.ok) {
      c.consecutiveFailures = 0;
      c.backoffUntil = 0;
    } else {
      c.consecutiveFailures++;
      if (c.consecutiveFailures >= this.#policy.threshold) c.backoffUntil = outcome.at + this.backoffMs(c.consecutiveFailures);
    }
    this.#version++;
    if (c.backoffUntil !== before) {
      this.#changedAt.set(key, outcome.at);
      // synchronous and cheap: the listener queues the change; nothing waits on a database here
      this.#onChange?.({ tool, provider, consecutiveFailures: c.consecutiveFailures, backoffUntil: c.backoffUntil, changedAt: outcome.at });
    }
  }

  /** Be told when an outcome opens, extends or closes a circuit (one listener: the cluster sync). */
  onCircuitChange(listener: ((change: CircuitChange) => void) | undefined): void {
    this.#onChange = listener;
  }

  /**
   * Take a circuit another instance changed, when its change is later than
   * the last one here (own or merged); resolves to whether it was taken.
   * A closed remote circuit closes this one (another instance's probe
   * succeeded); an open one opens it until the same time.
   */
  mergeCircuit(change: CircuitChange, now: number = Date.now()): boolean {
    const key = `${change.tool}\u0000${change.provider}`;
    const known = this.#changedAt.get(key);
    // a bounded book: a flood of names (forged or not) cannot grow it without end
    if (known === undefined && this.#changedAt.size >= MAX_MERGED_CIRCUITS) return false;
    // no change is from the far future, and no backoff lasts longer than this book's cap (a forged 8.64e15 would win and back off forever)
    const changedAt = Math.min(change.changedAt, now + MERGE_SKEW_MS);
    if (!Number.isFinite(changedAt) || changedAt <= (known ?? Number.NEGATIVE_INFINITY)) return false;
    this.#changedAt.set(key, changedAt);
    const c = this.circuit(change.tool, change.provider);
    c.consecutiveFailures = Math.max(0, Math.min(Math.trunc(change.consecutiveFailures) || 0, 1_000_000));
    c.backoffUntil = change.backoffUntil <= 0 ? 0 : Math.min(change.backoffUntil, now + this.#policy.capMs + MERGE_SKEW_MS);
    c.probing = false;
    this.#version++;
    return true;
  }

  /** How many circuits the book holds (its own and merged ones). */
  circuitCount(): number {
    return this.#circuits.size;
  }

  /** Backoff after n consecutive failures under this book's policy (see {@link backoffDelay}). */
  backoffMs(failures: number): number {
    return backoffDelay(failures, this.#policy, this.#random);
  }

  circuit(tool: string, provider: string): CircuitState {
    const key = `${tool}\u0000${provider}`;
    let c = this.#circuits.get(key);
    if (!c) this.#circuits.set(key, (c = { consecutiveFailures: 0, backoffUntil: 0, probing: false }));
    return c;
  }

  /**
   * May the router use this provider now? Closed: yes. Open: no, until the
   * backoff ends; then exactly one caller gets it as a probe (half-open).
   */
  admit(tool: string, provider: string, now: number): { ok: true; probe: boolean } | { ok: false; until: number; reason: string } {
    const c = this.circuit(tool, provider);
    if (c.check && !c.check.healthy) return { ok: false, until: 0, reason: `health check failed${c.check.reason ? `: ${c.check.reason}` : ''}` };
    if (c.backoffUntil === 0) return { ok: true, probe: false };
    if (now < c.backoffUntil) return { ok: false, until: c.backoffUntil, reason: `backing off after ${c.consecutiveFailures} consecutive failure${c.consecutiveFailures === 1 ? '' : 's'}` };
    if (c.probing) return { ok: false, until: now + this.#policy.baseMs, reason: 'a probe call is already testing it' };
    c.probing = true;
    return { ok: true, probe: true };
  }

  /** A probe that never ran (the call went elsewhere) gives the slot back. */
  release(tool: string, provider: string): void {
    this.circuit(tool, provider).probing = false;
  }

  /** Record what a provider does less safely than declared (shown with its health). An empty list clears them. */
  setWarnings(tool: string, provider: string, warnings: readonly string[]): void {
    const c = this.circuit(tool, provider);
    if (warnings.length > 0) c.warnings = [...warnings];
    else delete c.warnings;
    this.#version++;
  }

  setCheck(tool: string, provider: string, result: { healthy: boolean; reason?: string }, at: number): void {
    const c = this.circuit(tool, provider);
    c.check = { ...result, at };
    this.#version++;
  }

  /** The health summary of a tool, for `/tools` and `min_success_rate`. */
  lookup(name: string): HealthSummary | undefined {
    const observed = this.#observed(name);
    const unavailable = this.#availability?.of(name);
    const seen: HealthSummary | undefined = unavailable ? { ...(observed ?? {}), status: 'unavailable', reason: unavailable.reason, missingCredentials: unavailable.missingCredentials } : observed;
    const extra = this.#annotate?.(name);
    return extra === undefined ? seen : ({ ...(seen ?? { status: 'unknown' }), ...extra } as HealthSummary);
  }

  #observed(name: string): HealthSummary | undefined {
    const r = this.#tools.get(name)?.summary();
    if (!r) return undefined;
    const declared = this.#declared.get(name);
    const stale = declared !== undefined && r.calls >= STALE_MIN_CALLS && r.p95Ms > STALE_FACTOR * declared;
    const summary: HealthSummary & { staleManifest?: { declaredP95Ms: number; observedP95Ms: number } } = {
      status: statusOf(r.successRate),
      successRate: r.successRate,
      calls: r.calls,
      p50Ms: r.p50Ms,
      p95Ms: r.p95Ms,
    };
    if (stale) summary.staleManifest = { declaredP95Ms: declared, observedP95Ms: r.p95Ms };
    const last = this.#lastOk.get(name);
    if (last) summary.lastSuccessfulProvider = { provider: last.provider, at: new Date(last.at).toISOString() };
    return summary;
  }

  /** Per provider of a tool: calls, success rate, last outcome and circuit. */
  providers(tool: string): ProviderHealth[] {
    const out: ProviderHealth[] = [];
    for (const [key, c] of this.#circuits) {
      const [t, provider] = key.split('\u0000') as [string, string];
      if (t !== tool) continue;
      const s = this.#providers.get(key);
      const summary = s?.summary();
      out.push({ provider, ...c, calls: summary?.calls ?? 0, successRate: summary?.successRate ?? null, lastOutcome: s?.last ?? null });
    }
    return out;
  }

  job(name: string): (HealthSummary & { lastOutcome: Outcome | null }) | undefined {
    const s = this.#jobs.get(name);
    const r = s?.summary();
    if (!s || !r) return undefined;
    return { status: statusOf(r.successRate), successRate: r.successRate, calls: r.calls, p50Ms: r.p50Ms, p95Ms: r.p95Ms, lastOutcome: s.last ?? null };
  }
}

function ring(map: Map<string, Ring>, key: string): Ring {
  let r = map.get(key);
  if (!r) map.set(key, (r = new Ring()));
  return r;
}
