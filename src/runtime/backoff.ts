/**
 * Backoff as one pure function, for every wait that grows with failures: a
 * provider's circuit, the pause between retries of a call, and an MCP
 * server's reconnects. Each caller keeps its own policy; the arithmetic is
 * here once, so it is tested once.
 * @module
 */

/** How a wait grows with failures. */
export interface BackoffPolicy {
  /** The first wait, ms. @default 1000 */
  baseMs: number;
  /** Growth per failure past the threshold. @default 2 */
  factor: number;
  /** The longest wait, ms (jitter never takes it past this). @default 300000 (5 min) */
  capMs: number;
  /** Random spread, 0..1: the wait is multiplied by 1 ± jitter. @default 0.2 */
  jitter: number;
  /** Failures before the first wait: the wait for failure n is base * factor^(n - threshold). @default 1 */
  threshold: number;
}

/** A provider circuit's policy: 1 s doubling to 5 min, ±20 %. */
export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({ baseMs: 1000, factor: 2, capMs: 300_000, jitter: 0.2, threshold: 1 });

/**
 * The wait after `failures` consecutive failures, in whole milliseconds:
 * `base * factor^(failures - threshold)` (never below `base`), capped at
 * `capMs`, then multiplied by `1 + jitter * (2r - 1)` for `r = random()` in
 * [0, 1), and capped again. Pure when `random` is.
 * @example backoffDelay(3, DEFAULT_BACKOFF, () => 0.5) // 4000
 * @example backoffDelay(1, { ...DEFAULT_BACKOFF, baseMs: 100, jitter: 0 }) // 100
 */
export function backoffDelay(failures: number, policy: Readonly<BackoffPolicy> = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  // the exponent is bounded so a long outage cannot overflow to Infinity before the cap applies
  const exponent = Math.min(64, Math.max(0, failures - policy.threshold));
  const raw = Math.min(policy.capMs, policy.baseMs * policy.factor ** exponent);
  const spread = 1 + policy.jitter * (2 * random() - 1);
  return Math.max(0, Math.min(policy.capMs, Math.round(raw * spread)));
}
