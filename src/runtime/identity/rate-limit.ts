/**
 * Per-principal call limits: so many calls per window for each principal,
 * counted in this process by rate-limiter-flexible's in-memory limiter (a
 * fixed window per principal). A refused call is answered 429 with
 * `Retry-After` from {@link RateLimitDecision.retryAfterMs}.
 * @module
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** How many calls a principal may make per window. */
export interface RateLimitConfig {
  /** Calls per window for each principal; 0 turns the limit off. @default 60 */
  points?: number;
  /** The window, in seconds. @default 60 */
  durationSec?: number;
  /**
   * Calls per window for named principals, instead of `points` (0: no limit).
   * @example { "ci-bot": 600 }
   */
  principals?: Record<string, number>;
}

export const DEFAULT_RATE_LIMIT = { points: 60, durationSec: 60, principals: {} } as const satisfies Required<RateLimitConfig>;

/** A call may go ahead, or must wait this long before the principal's window has room again. */
export type RateLimitDecision = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Counts calls per principal.
 * @example
 * const limiter = new CallRateLimiter({ points: 2, durationSec: 1 });
 * const d = await limiter.consume('ci-bot');
 * if (!d.ok) headers.set('Retry-After', String(Math.ceil(d.retryAfterMs / 1000)));
 */
export class CallRateLimiter {
  readonly #config: Required<RateLimitConfig>;
  /** One limiter per distinct number of points (most principals share the default one). */
  readonly #limiters = new Map<number, RateLimiterMemory>();

  constructor(config: RateLimitConfig = {}) {
    this.#config = { ...DEFAULT_RATE_LIMIT, ...config } satisfies Required<RateLimitConfig>;
  }

  /** The calls per window allowed to `principal` (0: no limit). */
  pointsFor(principal: string): number {
    return Object.hasOwn(this.#config.principals, principal) ? (this.#config.principals[principal] ?? 0) : this.#config.points;
  }

  /** Count one call (or `cost` calls) of `principal`. */
  async consume(principal: string, cost = 1): Promise<RateLimitDecision> {
    const points = this.pointsFor(principal);
    if (points <= 0) return { ok: true };
    try {
      await this.#limiter(points).consume(principal, cost);
      return { ok: true };
    } catch (refused) {
      // the in-memory limiter rejects only with a RateLimiterRes; anything else is a bug worth seeing
      if (!(refused instanceof RateLimiterRes)) throw refused;
      return { ok: false, retryAfterMs: Math.max(1, refused.msBeforeNext) };
    }
  }

  #limiter(points: number): RateLimiterMemory {
    let limiter = this.#limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points, duration: this.#config.durationSec, keyPrefix: `toolcap-calls-${points}` });
      this.#limiters.set(points, limiter);
    }
    return limiter;
  }
}
