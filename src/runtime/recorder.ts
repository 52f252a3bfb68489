/**
 * Group commit of call outcomes. A finished call's record and audit line go
 * into a queue; the queue is written on the next turn of the event loop in
 * one store transaction (`recordOutcomes`), together with every other
 * outcome that finished meanwhile. A call that needs no approval is answered
 * without waiting for the disk (write-behind); an approved call waits for
 * its write. `flush()` (and the runtime's `close()`) waits until everything
 * queued is written.
 *
 * What a crash can lose: outcomes queued in the last turn of the event loop
 * before the process died, never a committed one. A store that fails keeps
 * the batch for the next flush (with a warning), up to MAX_PENDING records.
 * @module
 */
import type { CallOutcomeRecord, Store } from '../store/types.js';
import { errorMessage } from '../model/errors.js';

/** Most outcomes kept while the store fails; older ones are dropped with a warning beyond this. */
export const MAX_PENDING = 100_000;

interface Pending {
  outcome: CallOutcomeRecord;
  done: (written: boolean) => void;
}

export class OutcomeRecorder {
  #queue: Pending[] = [];
  #running: Promise<void> | undefined;
  #scheduled = false;
  readonly #store: Store;
  readonly #warn: (message: string) => void;

  constructor(store: Store, warn: (message: string) => void) {
    this.#store = store;
    this.#warn = warn;
  }

  /** Queue an outcome; resolves true once written, false if the store refused it (it stays queued for the next flush). */
  add(outcome: CallOutcomeRecord): Promise<boolean> {
    return new Promise((done) => {
      this.#queue.push({ outcome, done });
      if (this.#queue.length > MAX_PENDING) {
        const dropped = this.#queue.splice(0, this.#queue.length - MAX_PENDING);
        for (const d of dropped) d.done(false);
        this.#warn(`the store is not keeping up: ${dropped.length} call records dropped`);
      }
      this.#schedule();
    });
  }

  /** Outcomes waiting to be written. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Write everything queued now; resolves when the queue is empty or the store refused the batch. */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
    if (this.#queue.length > 0) await this.#write();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (!this.#running) void this.#write();
    });
  }

  #write(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    const run = (async () => {
      const outcomes = batch.map((p) => p.outcome);
      try {
        if (this.#store.recordOutcomes) await this.#store.recordOutcomes(outcomes);
        else
          for (const o of outcomes) {
            await this.#store.recordCall(o.call);
            await this.#store.appendAudit(o.audit);
          }
        for (const p of batch) p.done(true);
      } catch (error) {
        // keep them for the next flush, oldest first
        this.#queue = [...batch, ...this.#queue];
        this.#warn(`could not record ${batch.length} call outcome${batch.length === 1 ? '' : 's'} to the store (kept for the next try): ${errorMessage(error)}`);
        for (const p of batch) p.done(false);
        return;
      } finally {
        this.#running = undefined;
      }
      if (this.#queue.length > 0) this.#schedule();
    })();
    this.#running = run;
    return run;
  }
}
