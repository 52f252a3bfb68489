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
