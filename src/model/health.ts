/**
 * Observed health as every layer sees it: the summary of one tool and where
 * summaries come from. The runtime observes; the query layer shows; both
 * import these from here.
 * @module
 */
/** Observed health of one tool. Until calls are recorded (the runtime), every tool is `unknown`. */
export interface HealthSummary {
  /**
   * `unknown`: no calls observed; `ok`/`degraded`/`down` from the observed
   * success rate; `unavailable`: it cannot run now whatever was observed
   * (every provider misses a required credential, `missingCredentials`).
   */
  status: 'unknown' | 'ok' | 'degraded' | 'down' | 'unavailable';
  /** Share of successful calls in the observation window, 0..1. */
  successRate?: number;
  /** Calls observed. */
  calls?: number;
  p50Ms?: number;
  p95Ms?: number;
  /** The provider of the latest successful call (ATLAS: "the last successful provider"). */
  lastSuccessfulProvider?: { provider: string; at: string };
  /** Why the status is `unavailable`. */
  reason?: string;
  /** The variables whose absence makes it `unavailable` (names only). */
  missingCredentials?: string[];
}

/**
 * Where observed health comes from. `version()` changes whenever any
 * tool's health does, so cached responses can be told apart.
 */
export interface HealthSource {
  lookup(name: string): HealthSummary | undefined;
  version(): number;
}

/** The health of a registry with no observations: every tool unknown. */
export const NO_HEALTH: HealthSource = { lookup: () => undefined, version: () => 0 };
