/**
 * Waits that give up when an AbortSignal fires. A provider that ignores its
 * signal must still lose to the call's timeout, and a retry pause must end
 * when the caller gives up: both need the same listener bookkeeping (added
 * once, removed when the work settles first), so it is written here once.
 * @module
 */

/**
 * Settle with `work`, or reject as soon as `signal` aborts, whichever comes
 * first. `abortError(before)` makes the rejection (`before` is true when the
 * signal had aborted before the race began); by default the signal's reason.
 * A rejection of `work` after the abort is handled, never reported as unhandled.
 * @example
 * const result = await raceAbort(instance.call(args, { signal }), signal);
 * @example
 * await raceAbort(load(), signal, (before) => new ProviderError('ABORTED', `aborted${before ? ' before it started' : ''}`, before));
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, abortError: (before: boolean) => unknown = () => signal.reason): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortError(true));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(false));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Wait `ms` milliseconds, or reject with the signal's reason when it aborts first.
 * @example await sleep(backoffDelay(attempt, policy), context.signal);
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days); a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The signal of one attempt, and how to let it go once the attempt has settled. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** Clear the timer and stop listening to the parent; the signal then never aborts. */
  release(): void;
}

/**
 * A signal that aborts after `timeoutMs` (with a `TimeoutError`
 * DOMException, as `AbortSignal.timeout` gives) or when `parent` aborts
 * (with its reason), whichever comes first, until `release()`.
 * `AbortSignal.any([AbortSignal.timeout(ms), parent])` gives the same
 * signal but nothing to release: its timer stays armed for the whole
 * timeout (30 s by default) after an attempt that took 2 ms, and the
 * combined signal stays tied to its sources until it is collected, so a
 * steady stream of calls kept tens of thousands of both alive.
 * @example
 * const attempt = attemptSignal(30_000, callerSignal);
 * try { return await raceAbort(provider.call(args, { signal: attempt.signal }), attempt.signal); } finally { attempt.release(); }
 */
export function attemptSignal(timeoutMs: number, parent?: AbortSignal): AttemptSignal {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent?.reason);
  // a timer past 2^31 - 1 ms fires after 1 ms (as AbortSignal.timeout's did): a manifest's 30-day timeoutSec means about 24.8 days, not none
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), Math.min(timeoutMs, MAX_TIMER_MS));
  // as AbortSignal.timeout's: a pending attempt does not keep the process alive on its own
  timer.unref?.();
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
