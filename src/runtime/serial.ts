/**
 * Serial runs per key: a tool whose manifest says `allowParallel: false`
 * runs one call at a time per tool version, in arrival order.
 * @module
 */

/**
 * A queue per key; keys with nothing queued are forgotten.
 * @example await serial.run(toolKey(tool), () => execute());
 */
export class SerialRuns {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Run `task` after every task queued earlier under `key` has finished. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const chained = previous.then(() => mine);
    this.#tails.set(key, chained);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.#tails.get(key) === chained) this.#tails.delete(key);
    }
  }
}
