/**
 * The credential of a session's open `GET` event stream. A POST is
 * authenticated when it arrives, but the stream is one request that stays
 * open: without a watch it outlived a revoked API key or an expired access
 * token until the idle sweep (15 minutes), and went on carrying
 * `list_changed` notices and elicitation requests. The stream is held to
 * the credential it was opened with: that credential is authenticated again
 * before anything is sent on the stream, when it expires (a token's `exp`,
 * a key's expiry) and every `recheckMs` (a revocation has no time of its
 * own). When it no longer authenticates as the session's principal under
 * the session's grants, the stream ends; a refused API key (revoked,
 * expired, gone) ends the session too, as no client renews a key. A token's
 * session stays: its client renews the token and opens the stream again.
 * @module
 */
import type { AuthOutcome } from '../runtime/identity/authenticate.js';
import { grantsKey, type Principal } from '../runtime/identity/principal.js';

/** Re-authenticates the request that opened a stream (its credential as sent then). */
export type Recheck = () => Promise<AuthOutcome>;

/** Why a watched stream ended: the refusal, and whether the session must close with it. */
export interface StreamRefusal {
  outcome: AuthOutcome & { ok: false };
  /** A refused API key: nothing renews it, so the session ends too. */
  closeSession: boolean;
}

/** The longest a timer may wait (setTimeout's limit is 2^31-1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One stream's watch: its credential checks, its timer, and how it ends. */
class Watch {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  /** A check under way, shared by the sends and the timer that want one at once. */
  #checking: Promise<boolean> | undefined;

  constructor(
    readonly recheck: Recheck,
    readonly grants: string,
    /** How the credential authenticated (the principal's `via`): an API key's refusal ends the session. */
    readonly via: string | undefined,
    readonly recheckMs: number,
    readonly refused: (refusal: StreamRefusal) => void,
  ) {}

  get stopped(): boolean {
    return this.#stopped;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Whether the credential still authenticates as the session's principal; a refusal ends the watch and reports it. */
  check(): Promise<boolean> {
    if (this.#stopped) return Promise.resolve(false);
    this.#checking ??= this.#check().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #check(): Promise<boolean> {
    let outcome: AuthOutcome;
    try {
      outcome = await this.recheck();
    } catch (error) {
      // authenticate never throws; if it does, the credential could not be checked: fail closed
      outcome = { ok: false, code: 'UNAVAILABLE', message: error instanceof Error ? error.message : String(error) };
    }
    if (this.#stopped) return false;
    if (outcome.ok && grantsKey(outcome.principal) !== this.grants) {
      // the same credential now maps to other grants (a reload of auth.principals): POSTs get "no such session", so does the stream
      outcome = { ok: false, code: 'INVALID_TOKEN', message: 'The credential now carries other grants than the session was opened with.' };
    }
    if (!outcome.ok) {
      this.stop();
      // a key is never renewed by its client; a token is (and a store or issuer that cannot be reached may be back soon)
      const key = outcome.code !== 'UNAVAILABLE' && this.via === 'api-key';
      this.refused({ outcome, closeSession: key });
      return false;
    }
    this.#schedule(outcome.expiresAt);
    return true;
  }

  /** The next check: at the credential's own expiry when that comes first, else after `recheckMs`. */
  #schedule(expiresAt: number | undefined): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const untilExpiry = expiresAt === undefined ? Infinity : expiresAt - Date.now() + 5;
    const wait = Math.min(MAX_TIMER_MS, Math.max(0, Math.min(this.recheckMs, untilExpiry)));
    this.#timer = setTimeout(() => void this.check(), wait);
    // a watch never keeps the process up
    this.#timer.unref?.();
  }
}

/**
 * The credential watch of one session's event stream. `watch` starts it
 * when a stream opens; `allows` is asked before a message goes out on the
 * stream; `end` stops it when the stream ends.
 */
export class StreamCredential {
  #watch: Watch | undefined;

  constructor(
    /** Every how many ms a watched credential is authenticated again, whether or not anything is sent. */
    readonly recheckMs: number,
    /** The credential was refused: end the stream (and the session, when `closeSession`). */
    readonly refused: (refusal: StreamRefusal) => void,
  ) {}

  /**
   * Watch the stream just opened with this credential: it is checked at once
   * (it may have been revoked since the request was admitted, and this
   * learns when it expires) and then as the module says.
   */
  watch(recheck: Recheck, principal: Principal): () => void {
    this.#watch?.stop();
    const watch = new Watch(recheck, grantsKey(principal), principal.via, this.recheckMs, this.refused);
    this.#watch = watch;
    void watch.check();
    return () => {
      watch.stop();
      if (this.#watch === watch) this.#watch = undefined;
    };
  }

  /** Whether a message may go out on the stream now: no watch (no stream, or no authentication), or its credential still authenticates. */
  async allows(): Promise<boolean> {
    const watch = this.#watch;
    if (watch === undefined) return true;
    return watch.check();
  }

  /** Stop watching (the session closes). */
  close(): void {
    this.#watch?.stop();
    this.#watch = undefined;
  }
}
