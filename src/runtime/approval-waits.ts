/**
 * Waiting for an approval to be settled: decided and, when approved, run.
 * A decision made in this process wakes its waiters at once; a decision made
 * by another instance on the same store is seen by polling the store (every
 * {@link POLL_MS}), or at once when that instance's notice arrives
 * ({@link ApprovalWaits.poke}, from the cluster sync). A wait ends at its timeout or when its signal aborts,
 * with the approval as it stands then.
 * @module
 */
import type { ApprovalRecord, ApprovalStatus } from '../store/types.js';

/** What a waiter needs of an approval. */
type Waitable = Pick<ApprovalRecord, 'id' | 'status'>;

/** How often a waiter reads the store, in case another instance decided. */
export const POLL_MS = 250;

/** Statuses after which nothing more happens to an approval. (`approved` is not one: the call is still running.) */
const SETTLED: ReadonlySet<ApprovalStatus> = new Set(['denied', 'expired', 'void', 'executed', 'failed']);

/** Whether an approval is settled: decided and, if approved, run. */
export const isSettled = (approval: Pick<ApprovalRecord, 'status'>): boolean => SETTLED.has(approval.status);



/**
 * Waiters per approval id.
 * @example
 * const view = await waits.wait(id, 30_000, signal, () => approvals.get(id));
 */
export class ApprovalWaits<V extends Waitable> {
  readonly #waiters = new Map<string, Set<(approval: V) => void>>();
  /** Each waiter's read of the store, by approval id: {@link poke} runs them now rather than at the next poll. */
  readonly #checks = new Map<string, Set<() => void>>();
  #onSettled: ((id: string) => void) | undefined;

  /** Be told of each approval settled in this process (the cluster sync tells the other instances). */
  onSettled(listener: ((id: string) => void) | undefined): void {
    this.#onSettled = listener;
  }

  /** Another instance settled `id`: its waiters here read the store now instead of at their next poll. */
  poke(id: string): void {
    for (const check of this.#checks.get(id) ?? []) check();
  }

  /** Tell this process's waiters that an approval changed; those waiting for it to settle wake when it has. */
  notify(approval: V): void {
    if (!isSettled(approval)) return;
    this.#onSettled?.(approval.id);
    const waiters = this.#waiters.get(approval.id);
    if (!waiters) return;
    this.#waiters.delete(approval.id);
    for (const w of waiters) w(approval);
  }

  /**
   * Resolves with the approval once settled, or after `timeoutMs` (or when
   * `signal` aborts) with the approval as it stands. `read` gives the
   * current state from the store; its failure rejects the wait.
   */
  async wait(id: string, timeoutMs: number, signal: AbortSignal | undefined, read: () => Promise<V>): Promise<V> {
    const first = await read();
    if (isSettled(first) || timeoutMs <= 0 || signal?.aborted) return first;
    return new Promise<V>((resolve, reject) => {
      let last = first;
      let done = false;
      const waiters = this.#waiters.get(id) ?? new Set<(approval: V) => void>();
      this.#waiters.set(id, waiters);
      const finish = (view: V | undefined, error?: unknown) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(poll);
        signal?.removeEventListener('abort', onAbort);
        const checks = this.#checks.get(id);
        checks?.delete(check);
        if (checks?.size === 0) this.#checks.delete(id);
        waiters.delete(waiter);
        if (waiters.size === 0 && this.#waiters.get(id) === waiters) this.#waiters.delete(id);
        if (view) resolve(view);
        else reject(error);
      };
      const waiter = (view: V) => finish(view);
      const onAbort = () => finish(last);
      waiters.add(waiter);
      const timer = setTimeout(() => {
        // one last look: a decision may have landed since the last poll
        read().then((view) => finish(view), () => finish(last));
      }, timeoutMs);
      const check = () => {
        read().then(
          (view) => {
            last = view;
            if (isSettled(view)) finish(view);
          },
          (error: unknown) => finish(undefined, error),
        );
      };
      const poll = setInterval(check, POLL_MS);
      const checks = this.#checks.get(id) ?? new Set<() => void>();
      this.#checks.set(id, checks);
      checks.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
