/**
 * Observed health from the other instances: every instance already writes
 * each call's outcome to the shared store (the `calls` table), so on the
 * cluster's re-read cadence this reads the calls finished since the last
 * read and records the ones it did not run into its own health book: success
 * rates, latencies, the last outcome and the last provider that worked then
 * count every instance's calls. Its own calls are known by id (the book
 * tells it, `onOwnCall`) and never counted twice; each call read is counted
 * once. At most {@link PULL_LIMIT} calls a read: under heavier traffic the
 * rates are a sample of the others' calls.
 * @module
 */
import type { Store } from '../../store/types.js';
import type { HealthBook } from '../health.js';
import { tellsOfHealth } from '../errors.js';

/** Calls read at most per pull. */
export const PULL_LIMIT = 1000;
/** Each read looks back this far before the previous one: calls recorded late (group commit, long calls) are still seen. */
const OVERLAP_MS = 60_000;

/** Calls of the other instances, read into this instance's health book. */
export class SharedCalls {
  readonly #store: Pick<Store, 'listCalls'>;
  readonly #health: HealthBook;
  readonly #clock: () => number;
  /** Ids of calls this process ran, and when. */
  readonly #own = new Map<string, number>();
  /** Ids of calls already read, and when they started. */
  readonly #seen = new Map<string, number>();
  #since: number;
  #primed = false;

  constructor(store: Pick<Store, 'listCalls'>, health: HealthBook, clock: () => number = Date.now) {
    this.#store = store;
    this.#health = health;
    this.#clock = clock;
    this.#since = clock();
    health.onOwnCall((id, at) => void this.#own.set(id, at));
  }

  /**
   * Read the calls since the last read and record the others' (the first
   * read only notes what is there: a starting host seeds its health from the
   * store's history already). Resolves to how many were recorded.
   */
  async pull(): Promise<number> {
    const started = this.#clock();
    // after a long gap (the store was down) the calls in between are skipped rather than risk counting own calls forgotten since
    const since = Math.max(this.#since - OVERLAP_MS, started - 2 * OVERLAP_MS);
    const calls = await this.#store.listCalls({ since: new Date(since).toISOString(), limit: PULL_LIMIT });
    let recorded = 0;
    // newest first from the store; recorded oldest first so the latest is the last outcome
    for (const c of calls.reverse()) {
      if (this.#own.has(c.callId) || this.#seen.has(c.callId)) continue;
      this.#seen.set(c.callId, Date.parse(c.startedAt));
      if (!this.#primed || !tellsOfHealth(c.errorCode)) continue;
      this.#health.record(c.tool, { ok: c.outcome === 'ok', durationMs: c.durationMs, at: Date.parse(c.startedAt) + c.durationMs, provider: c.provider, errorCode: c.errorCode }, c.job);
      recorded++;
    }
    this.#primed = true;
    this.#since = started;
    // no later read asks for calls started before this: their ids are forgotten (own ones are stamped when they ended, later than they started)
    const horizon = started - OVERLAP_MS;
    for (const map of [this.#own, this.#seen]) for (const [id, at] of map) if (at < horizon) map.delete(id);
    return recorded;
  }

  /** Stop noting this process's calls. */
  close(): void {
    this.#health.onOwnCall(undefined);
  }
}
