/**
 * Group commit of call records. A call's `call.started` line (calls that
 * may have effects) and a finished call's record and audit line go into a
 * queue; the queue is written on the next turn of the event loop, starts in
 * one store transaction (`recordStarts`) and outcomes in another
 * (`recordOutcomes`), together with everything else that arrived
 * meanwhile. Each `add`/`addStart` resolves once its write is committed, so
 * the runtime decides who waits: a call that may write waits for its start
 * before the provider runs and for its outcome before it is answered; a
 * read is answered without waiting (write-behind). `flush()` (and the
 * runtime's `close()`) waits until everything queued is written.
 *
 * What a crash can lose: outcomes of reads queued in the last turn of the
 * event loop before the process died, never a committed record, and never
 * a record a caller was told about. A store that refuses an outcome batch
 * keeps it for the next flush (with a warning); a refused start is not
 * kept: its call is refused instead. With {@link MAX_PENDING} records
 * waiting the recorder is `full`, and the journal refuses new reads too
 * (call-journal.ts): a long store outage stops calls instead of dropping
 * the records of the reads it already answered. Only past twice that
 * (outcomes of calls that were already running when it filled) are the
 * oldest dropped, with a warning: memory stays bounded whatever happens.
 * @module
 */
import type { CallOutcomeRecord, NewAuditRecord, Store } from '../store/types.js';
import { errorMessage } from '../model/errors.js';

/** Records waiting for the store at which the recorder is `full` (new calls are refused); twice this is the hard bound beyond which the oldest outcomes are dropped. */
export const MAX_PENDING = 100_000;

/**
 * Pause before outcomes the store refused are tried again on their own (a new record tries at once). Retried on the
 * next turn of the event loop, a store that fails at once (disk full, connection refused) was written to, and a
 * warning logged, thousands of times a second: a core spun and the log filled while the store was down.
 */
export const RETRY_MS = 1_000;

type Pending = { outcome: CallOutcomeRecord; done: (written: boolean) => void } | { start: NewAuditRecord; done: (written: boolean) => void };

/**
 * The queue of call records and its writer.
 * @example
 * const recorder = new OutcomeRecorder(store, console.warn);
 * if (!(await recorder.addStart(startedLine))) throw new Error('store down');
 * await recorder.add({ call, audit });
 */
export class OutcomeRecorder {
  #queue: Pending[] = [];
  /** The write under way, if any: one at a time, so batches land in order. */
  #running: Promise<void> | undefined;
  #scheduled = false;
  /** The retry after a refused batch, while one is waiting. */
  #retry: NodeJS.Timeout | undefined;
  /** True when the last outcome batch was refused. */
  #refused = false;
  readonly #store: Store;
  readonly #warn: (message: string) => void;
  readonly #maxPending: number;

  /** @param options.maxPending records waiting at which the recorder is {@link full} (default {@link MAX_PENDING}) */
  constructor(store: Store, warn: (message: string) => void, options: { maxPending?: number } = {}) {
    this.#store = store;
    this.#warn = warn;
    this.#maxPending = options.maxPending ?? MAX_PENDING;
  }

  /** Queue an outcome; resolves true once written, false if the store refused it (it stays queued for the next flush). */
  add(outcome: CallOutcomeRecord): Promise<boolean> {
    return new Promise((done) => {
      this.#queue.push({ outcome, done });
      const bound = 2 * this.#maxPending;
      if (this.#queue.length > bound) this.#drop(this.#queue.length - bound);
      this.#schedule();
    });
  }

  /** True while `maxPending` records or more wait for the store (it refuses them, or is not keeping up): no new call should start. */
  get full(): boolean {
    return this.#queue.length >= this.#maxPending;
  }

  /** Queue a `call.started` line; resolves true once written, false if the store refused it (then it is not kept). */
  addStart(start: NewAuditRecord): Promise<boolean> {
    return new Promise((done) => {
      this.#queue.push({ start, done });
      this.#schedule();
    });
  }

  /** Records waiting to be written. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Write everything queued now; resolves when the queue is empty or the store refused the batch. */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
    if (this.#queue.length > 0) await this.#write();
  }

  #drop(count: number): void {
    let left = count;
    this.#queue = this.#queue.filter((p) => {
      if (left === 0 || !('outcome' in p)) return true;
      left -= 1;
      p.done(false);
      return false;
    });
    this.#warn(`the store is not keeping up: ${count} call records dropped`);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (!this.#running && this.#queue.length > 0) void this.#write();
    });
  }

  /**
   * Take the queue and write it. `#running` is cleared by the write's own
   * settlement, which always comes after this assignment: a batch the store
   * takes without awaiting anything cannot leave a settled promise behind
   * in `#running` (flush would wait on it forever).
   */
  #write(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    const run: Promise<void> = this.#writeBatch(batch).finally(() => {
      if (this.#running === run) this.#running = undefined;
      if (this.#queue.length === 0) return;
      if (!this.#refused) this.#schedule();
      else
        this.#retry ??= setTimeout(() => {
          this.#retry = undefined;
          this.#schedule();
        }, RETRY_MS).unref(); // a process with nothing else to do exits; close() flushes what is left
    });
    this.#running = run;
    return run;
  }

  async #writeBatch(batch: Pending[]): Promise<void> {
    const starts = batch.filter((p): p is Extract<Pending, { start: NewAuditRecord }> => 'start' in p);
    const outcomes = batch.filter((p): p is Extract<Pending, { outcome: CallOutcomeRecord }> => 'outcome' in p);
    if (starts.length > 0) {
      // a refused start is the caller's answer (its call is refused), not a warning
      const written = await this.#attempt(() => this.#writeStarts(starts.map((p) => p.start)));
      for (const p of starts) p.done(written === true);
    }
    if (outcomes.length === 0) return;
    const written = await this.#attempt(() => this.#writeOutcomes(outcomes.map((p) => p.outcome)));
    this.#refused = written !== true;
    if (written === true) {
      for (const p of outcomes) p.done(true);
      return;
    }
    // keep them for the next flush, oldest first
    this.#queue = [...outcomes, ...this.#queue];
    this.#warn(`could not record ${outcomes.length} call outcome${outcomes.length === 1 ? '' : 's'} to the store (kept for the next try): ${written}`);
    for (const p of outcomes) p.done(false);
  }

  /** true when `write` succeeded, else the reason it failed. */
  async #attempt(write: () => Promise<void>): Promise<true | string> {
    try {
      await write();
      return true;
    } catch (error) {
      return errorMessage(error);
    }
  }

  async #writeStarts(starts: NewAuditRecord[]): Promise<void> {
    if (this.#store.recordStarts) await this.#store.recordStarts(starts);
    else for (const s of starts) await this.#store.appendAudit(s);
  }

  async #writeOutcomes(outcomes: CallOutcomeRecord[]): Promise<void> {
    if (this.#store.recordOutcomes) await this.#store.recordOutcomes(outcomes);
    else
      for (const o of outcomes) {
        await this.#store.recordCall(o.call);
        await this.#store.appendAudit(o.audit);
      }
  }
}
