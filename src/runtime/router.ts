/**
 * The router: which provider runs a call, and what happens when one fails.
 *
 * Providers are tried in the order of their slots (ascending priority),
 * skipping ones that are not runnable, missing a credential (credentials.ts:
 * when all are, the call is MISSING_CREDENTIALS), not ready, failing their active check, or backing off
 * (the health book's circuit). Each attempt runs under its own timeout
 * (`execution.timeoutSec`), raced against the signal so a provider that
 * ignores it still loses. A failure is retried by `retryClass`: on the next
 * provider first, then, once every provider failed, on the same ones again
 * after a growing pause (safe calls, and guarded ones with an idempotency key).
 * A provider that refuses the caller's input (a caller fault, see
 * `providerFault`) ends the call with TOOL_REJECTED and leaves the circuit
 * as it was.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { errorMessage } from '../model/errors.js';
import { attemptSignal, raceAbort, sleep } from './abort.js';
import { backoffDelay, type BackoffPolicy } from './backoff.js';
import { credentialNeeds, credentialRefusal, missingCredentials, notSetReason } from './credentials.js';
import { CallError, type CallErrorCode } from './errors.js';
import type { HealthBook } from './health.js';
import type { ProviderSlot } from './providers/provider-types.js';
import { ProviderError, type ProviderCallContext, type ProviderInstance } from './providers/types.js';
import type { CallMetrics } from './telemetry.js';
import type { ToolExtras } from './tool-services.js';

/** What the router needs from the runtime. */
export interface RouterOptions {
  health: HealthBook;
  metrics: CallMetrics;
  /** The environment declarative readiness reads. */
  env: Readonly<Record<string, string | undefined>>;
  /** Attempts per call for retryable failures. */
  maxAttempts: number;
  /** The pause before retry round n is retryBaseMs * 2^(n-1), ±20 %. */
  retryBaseMs: number;
  clock: () => number;
  random: () => number;
}

/** One call to route: the tool of the call's snapshot, its checked arguments and its providers. */
export interface RouteRequest {
  tool: Tool;
  args: Record<string, unknown>;
  slots: readonly ProviderSlot[];
  callId: string;
  persona?: string | undefined;
  /** The caller's key; without one, the call id when the tool takes a key. */
  idempotencyKey?: string | undefined;
  /** The caller giving up. */
  signal?: AbortSignal | undefined;
  /** What the provider gets besides the arguments: configurations, the SQL handle (tool-services.ts). */
  extras?: ToolExtras;
  /** The tool's OAuth tokens, for the provider's context. */
  oauth?: ProviderCallContext['oauth'] | undefined;
}

/** One attempt or skip as the audit log shows it. */
export interface Attempt {
  provider: string;
  outcome: string;
}

/** What a route did, filled in as it goes, so the call's record has it whether the route resolves or throws. */
export interface RouteLog {
  attempts: Attempt[];
  /** `provider: why` for every provider passed over, once each. */
  skipped: string[];
  /** Attempts made. */
  count: number;
}

/** `probe`: this attempt holds the provider's half-open probe slot (only such an attempt may give it back). */
/**
 * Whether the caller's signal aborted because a deadline passed: its reason
 * is the DOMException named TimeoutError that `AbortSignal.timeout` gives.
 * Only in-process code sets such a deadline (a task snapshot's probe, whose
 * deadline is the tool's own timeout); a client's hang-up or
 * `notifications/cancelled` never carries one (a cancel's reason is the
 * client's string), so no client can make its own abort count as the tool's
 * slowness.
 */
function deadlinePassed(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
}

type Choice = { name: string; instance: ProviderInstance; probe: boolean } | { retryAt: number };

/**
 * Failures that a retry of the same provider would meet again: the egress
 * policy refused the host, or the answer passed the size limit. The call
 * fails over to the next provider, never back to this one (a read retried
 * them up to `maxAttempts` times: three downloads of an answer too large).
 */
const SAME_AGAIN: ReadonlySet<string> = new Set(['EGRESS_DENIED', 'RESPONSE_TOO_LARGE']);

/**
 * Routes calls over the providers of their tools.
 * @example
 * const log = { attempts: [], skipped: [], count: 0 };
 * const { provider, result } = await router.route({ tool, args, slots, callId }, log);
 */
export class Router {
  readonly #o: RouterOptions;
  readonly #pause: BackoffPolicy;

  constructor(options: RouterOptions) {
    this.#o = options;
    // attempts are bounded by maxAttempts, so the pause needs no cap of its own
    this.#pause = { baseMs: options.retryBaseMs, factor: 2, capMs: Number.POSITIVE_INFINITY, jitter: 0.2, threshold: 1 };
  }

  /** Run the call on the first provider that can take it, retrying as its retry class allows; rejects with a {@link CallError}. */
  async route(request: RouteRequest, log: RouteLog): Promise<{ provider: string; result: unknown }> {
    const { tool, slots, callId, signal: callerSignal } = request;
    const { health, metrics, clock } = this.#o;
    const timeoutMs = (tool.execution?.timeoutSec ?? 30) * 1000;
    const retryClass = tool.execution?.retryClass ?? 'never';
    const takesKey = tool.execution?.idempotencyKey !== undefined && tool.execution.idempotencyKey !== false;
    const idempotencyKey = request.idempotencyKey ?? (takesKey ? callId : undefined);
    const failed = new Set<string>();
    /** Providers whose failure would come again ({@link SAME_AGAIN}): not tried again in this call. */
    const spent = new Set<string>();
    /** Providers this call already tried: its own failure's backoff does not stop its own retries. */
    const tried = new Set<string>();
    let lastError: { code: CallErrorCode; message: string } | undefined;
    for (;;) {
      const now = clock();
      const chosen = this.#choose(tool, slots, failed, tried, log.skipped, now);
      if ('retryAt' in chosen) {
        if (lastError) throw new CallError(lastError.code, lastError.message, { providers: log.attempts, callId });
        const refusal = credentialRefusal(tool, slots, this.#o.env, callId);
        if (refusal) throw refusal;
        const retryAfterMs = Number.isFinite(chosen.retryAt) ? Math.max(0, chosen.retryAt - now) : undefined;
        throw new CallError(
          'NO_HEALTHY_PROVIDER',
          `No provider of "${tool.name}" can run it now: ${log.skipped.join('; ') || 'it lists none'}.${retryAfterMs !== undefined ? ` Retry in ${Math.ceil(retryAfterMs / 1000)} s.` : ''}`,
          { ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), providers: log.skipped.map((s) => ({ provider: s.split(':')[0] ?? s, outcome: s })), callId },
        );
      }
      const attempt = ++log.count;
      tried.add(chosen.name);
      const attemptStart = clock();
      const attemptSignals = attemptSignal(timeoutMs, callerSignal);
      const { signal } = attemptSignals;
      try {
        const context = {
          ...request.extras,
          signal,
          callId,
          attempt,
          tool,
          ...(request.persona !== undefined ? { persona: request.persona } : {}),
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
          ...(request.oauth !== undefined ? { oauth: request.oauth } : {}),
        };
        const result = await raceAbort(chosen.instance.call(request.args, context), signal);
        attemptSignals.release();
        health.recordAttempt(tool.name, chosen.name, { ok: true, durationMs: clock() - attemptStart, at: clock(), provider: chosen.name, errorCode: null });
        metrics.attempts.inc({ tool: tool.name, provider: chosen.name, outcome: 'ok' });
        metrics.backoff.set({ tool: tool.name, provider: chosen.name }, 0);
        log.attempts.push({ provider: chosen.name, outcome: 'ok' });
        return { provider: chosen.name, result };
      } catch (error) {
        // before any retry pause: the attempt is over
        attemptSignals.release();
        // the attempt's own timer, or a deadline the caller set that passed (a probe's is the tool's own timeout): both say
        // the tool was slow; any other abort of the caller's is the caller giving up
        const callerDeadline = deadlinePassed(callerSignal);
        const timedOut = signal.aborted && (!(callerSignal?.aborted ?? false) || callerDeadline);
        if (!timedOut && error instanceof ProviderError && error.fault === 'caller') throw this.#rejected(tool, chosen.name, chosen.probe, error, log, callId);
        // a caller that gave up gets its own code: the call's record, metrics and the tool's success rate must not read
        // a hang-up as the provider's failure
        const cancelled = !timedOut && (callerSignal?.aborted ?? false);
        const code: CallErrorCode = timedOut ? 'TIMEOUT' : cancelled ? 'CANCELLED' : 'PROVIDER_ERROR';
        const before = error instanceof ProviderError && error.beforeEffect && !timedOut;
        const message = callerDeadline
          ? `"${tool.name}" did not finish within the caller's deadline on provider ${chosen.name}.`
          : timedOut
          ? `"${tool.name}" did not finish within ${timeoutMs / 1000} s (execution.timeoutSec) on provider ${chosen.name}.`
          : `Provider ${chosen.name} of "${tool.name}" failed${error instanceof ProviderError ? ` (${error.code})` : ''}: ${errorMessage(error)}`;
        // a caller that gave up (an MCP client that hung up or cancelled) says nothing of the provider: its circuit does
        // not move (else one client could put a tool in backoff for everyone by hanging up), a half-open probe slot is given back
        // (only the attempt that holds the probe slot gives it back: another call's probe may be running meanwhile)
        if (cancelled) {
          if (chosen.probe) health.release(tool.name, chosen.name);
        }
        else health.recordAttempt(tool.name, chosen.name, { ok: false, durationMs: clock() - attemptStart, at: clock(), provider: chosen.name, errorCode: code });
        metrics.attempts.inc({ tool: tool.name, provider: chosen.name, outcome: code });
        if (health.circuit(tool.name, chosen.name).backoffUntil > clock()) metrics.backoff.set({ tool: tool.name, provider: chosen.name }, 1);
        log.attempts.push({ provider: chosen.name, outcome: `${code}${before ? ' (before any effect)' : ''}: ${errorMessage(error)}` });
        lastError = { code, message };
        if (callerSignal?.aborted) throw new CallError(code, callerDeadline ? message : `The caller aborted the call to "${tool.name}".`, { providers: log.attempts, callId });
        // may this call go again (on the next provider, or the same one after a pause)?
        const retryable = before || retryClass === 'safe' || (retryClass === 'guarded' && request.idempotencyKey !== undefined);
        if (!timedOut && error instanceof ProviderError && SAME_AGAIN.has(error.code)) spent.add(chosen.name);
        const left = slots.some((s) => s.instance && !spent.has(s.entry.name));
        if (!retryable || !left || attempt >= this.#o.maxAttempts + (before ? slots.length : 0)) {
          throw new CallError(
            code,
            `${message}${
              !retryable
                ? ` Not retried: retry class "${retryClass}"${retryClass === 'guarded' ? ' without an idempotency key' : ''}, and the failure may have had effects.`
                : !left
                  ? ' Not retried: every provider left would meet the same refusal again (egress policy or size limit).'
                  : ''
            }`,
            { providers: log.attempts, callId },
          );
        }
        failed.add(chosen.name);
        // every provider failed once: start over after a pause
        if (slots.every((s) => !s.instance || failed.has(s.entry.name))) {
          failed.clear();
          for (const name of spent) failed.add(name);
          await sleep(backoffDelay(attempt, this.#pause, this.#o.random), callerSignal);
        }
      }
    }
  }

  /**
   * The provider refused the caller's input: the caller's error, not a
   * provider fault. The circuit does not move (not a failure, and not a
   * success that would end a backoff), a half-open probe slot is given back,
   * and nothing is retried: the same input would be refused again.
   */
  #rejected(tool: Tool, provider: string, probe: boolean, error: ProviderError, log: RouteLog, callId: string): CallError {
    if (probe) this.#o.health.release(tool.name, provider);
    this.#o.metrics.attempts.inc({ tool: tool.name, provider, outcome: 'TOOL_REJECTED' });
    log.attempts.push({ provider, outcome: `TOOL_REJECTED: ${error.message}` });
    return new CallError('TOOL_REJECTED', `Provider ${provider} of "${tool.name}" refused the input: ${error.message}`, { providers: log.attempts, callId }, { cause: error });
  }

  /**
   * The first provider that may take this attempt, or when none may, the
   * earliest time one comes out of backoff (Infinity: none will by itself).
   * Every provider passed over is noted in `skipped` with why.
   */
  #choose(tool: Tool, slots: readonly ProviderSlot[], failed: ReadonlySet<string>, tried: ReadonlySet<string>, skipped: string[], now: number): Choice {
    let retryAt = Number.POSITIVE_INFINITY;
    const needs = credentialNeeds(tool, slots.map((s) => s.entry));
    for (const slot of slots) {
      const name = slot.entry.name;
      if (failed.has(name)) continue;
      if (!slot.instance) {
        skip(skipped, name, slot.error ?? 'not runnable');
        continue;
      }
      const missing = missingCredentials(needs, name, this.#o.env);
      if (missing.length > 0) {
        skip(skipped, name, notSetReason(missing));
        continue;
      }
      const ready = slot.instance.ready?.();
      if (ready && !ready.healthy) {
        skip(skipped, name, ready.reason ?? 'not ready');
        continue;
      }
      const admitted = this.#o.health.admit(tool.name, name, now);
      // a backoff this call's own failure started does not stop its own retry
      if (admitted.ok || (tried.has(name) && admitted.until > 0)) return { name, instance: slot.instance, probe: admitted.ok && admitted.probe };
      skip(skipped, name, admitted.reason);
      if (admitted.until > 0) retryAt = Math.min(retryAt, admitted.until);
    }
    return { retryAt };
  }
}

function skip(list: string[], name: string, reason: string): void {
  const line = `${name}: ${reason}`;
  if (!list.includes(line)) list.push(line);
}
