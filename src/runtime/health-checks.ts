/**
 * Scheduled active health checks. A provider instance with `check()` and
 * `healthCheckIntervalSec` is checked right away and then every interval
 * (at least {@link MIN_CHECK_INTERVAL_MS}; a check still running when the next
 * is due is not joined by a second);
 * the result goes into the health book, where a failed check keeps the
 * router off that provider until a check passes.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { errorMessage } from '../model/errors.js';
import type { HealthBook } from './health.js';
import type { ProviderInstance } from './providers/types.js';

/** The longest a single check may run, whatever its interval. */
const CHECK_TIMEOUT_CAP_MS = 10_000;

/**
 * The shortest interval between checks: a `healthCheckIntervalSec` below it
 * (0.001 is a positive number, a typo away from 1) is checked this often, so a
 * check that starts a process or a connection cannot run a thousand times a second.
 */
export const MIN_CHECK_INTERVAL_MS = 1_000;

/**
 * One timer per tool and provider, for the instances of the serving snapshot:
 * a reload that makes a new instance replaces its timer.
 * @example
 * const checks = new HealthChecks(health, Date.now);
 * checks.schedule(tool, 'primary', instance);
 * await checks.close();
 */
export class HealthChecks {
  readonly #health: HealthBook;
  readonly #clock: () => number;
  readonly #redact: (text: string) => string;
  readonly #checks = new Map<string, { timer: ReturnType<typeof setInterval>; instance: ProviderInstance }>();
  #closed = false;

  /** `redact` is applied to a failed check's reason before it is kept (it is shown to every principal allowed to list tools). */
  constructor(health: HealthBook, clock: () => number, redact: (text: string) => string = (text) => text) {
    this.#health = health;
    this.#clock = clock;
    this.#redact = redact;
  }

  /** Start checking this provider of this tool, unless it has no check or this instance is already scheduled. */
  schedule(tool: Tool, provider: string, instance: ProviderInstance): void {
    const interval = instance.healthCheckIntervalSec;
    const check = instance.check?.bind(instance);
    if (this.#closed || !check || interval === undefined || !(interval > 0)) return;
    const key = `${tool.name}\u0000${provider}`;
    const existing = this.#checks.get(key);
    if (existing?.instance === instance) return;
    if (existing) clearInterval(existing.timer);
    const every = Math.max(interval * 1000, MIN_CHECK_INTERVAL_MS);
    // a check still running when the next is due (one that ignores its abort) is not joined by another
    let running = false;
    const run = async () => {
      if (running) return;
      running = true;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), Math.min(every, CHECK_TIMEOUT_CAP_MS));
      const keep = (result: { healthy: boolean; reason?: string }) =>
        this.#health.setCheck(tool.name, provider, result.reason === undefined ? result : { ...result, reason: this.#redact(result.reason) }, this.#clock());
      try {
        keep(await check(controller.signal));
      } catch (error) {
        keep({ healthy: false, reason: errorMessage(error) });
      } finally {
        clearTimeout(timer);
        running = false;
      }
    };
    const timer = setInterval(() => void run(), every);
    // checks alone must not keep the process alive
    timer.unref();
    this.#checks.set(key, { timer, instance });
    void run();
  }

  /** Schedule nothing more (checks already running go on until {@link close}). */
  stop(): void {
    this.#closed = true;
  }

  /** Stop every check and release the checked instances' resources; later schedules are ignored. */
  async close(): Promise<void> {
    this.stop();
    for (const { timer, instance } of this.#checks.values()) {
      clearInterval(timer);
      await instance.close?.().catch(() => undefined);
    }
    this.#checks.clear();
  }
}
