/**
 * Instances that act as one: what this instance learns that the others
 * must know goes out on the store's cluster bus (store/cluster-bus.ts), and
 * what they learned comes in and is merged here.
 *
 * - **Circuits.** When an outcome here opens, extends or closes a provider's
 *   circuit (the health book's {@link CircuitChange}), the change is queued
 *   synchronously and written after the call's turn of the event loop: one
 *   upsert into `provider_circuits` (kept only if newer), then a notice. No
 *   call waits on the database. A notice is only a hint (any role that may
 *   connect to the database can `NOTIFY`): whoever hears it re-reads the
 *   rows changed lately, which take table privileges to write, and merges
 *   those of tools and providers of its own catalog into its own book (the
 *   later change wins; times are clamped, see HealthBook.mergeCircuit), so an outage seen by one instance
 *   backs off all of them, and a probe that succeeds anywhere closes the
 *   circuit everywhere. The table is also re-read every `rereadMs` (and in
 *   full when the channel comes back), so a lost notice costs at most that.
 * - **Learned tools.** A tool learned or forgotten here sends a notice (its
 *   id is not used: the notice only triggers the re-read); the
 *   others re-read the learned tools from the store and reload when they
 *   differ (and re-read on reconnect too).
 *
 * - **Approvals.** They live in the store already (and change no
 *   snapshot); an approval settled here is announced so that a caller
 *   waiting for it on another instance reads it at once rather than at its
 *   next poll.
 * - **Observations.** On the same cadence, the calls the other instances
 *   recorded in the shared store are read into this instance's health book
 *   (shared-calls.ts), so success rates and latencies count every instance's
 *   calls, within one re-read.
 *
 * Active health checks run on every instance (each sees the provider from
 * where it is). See docs/deploy.md.
 * @module
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../../model/errors.js';
import { circuitNotices, type ClusterBus, type ClusterBusStatus, type ClusterNotice, type SharedCircuit } from '../../store/cluster-bus.js';
import type { CircuitChange, HealthBook } from '../health.js';
import type { LearnedTools } from '../learned/learned-tools.js';
import type { ApprovalSignals } from '../approvals.js';
import type { Store } from '../../store/types.js';
import { SharedCalls } from './shared-calls.js';
import type { Snapshot } from '../../registry/snapshot.js';
import type { Tool } from '../../model/schema.js';

/** How often the shared circuits are re-read besides the notices, ms. @default 5000 */
export const DEFAULT_REREAD_MS = 5000;
/** A re-read looks this far back before the previous one, for writes that landed late (and clocks a little apart). */
const REREAD_OVERLAP_MS = 60_000;

/** What the cluster sync works with. */
export interface ClusterSyncOptions {
  bus: ClusterBus;
  health: HealthBook;
  learned: LearnedTools;
  /** The shared call history: the other instances' calls are read into the health book on the re-read cadence (shared-calls.ts). */
  calls?: Pick<Store, 'listCalls'>;
  /** Approvals settled here are announced; those settled elsewhere wake their waiters here (instead of the 250 ms poll). */
  approvals?: ApprovalSignals;
  warn: (message: string) => void;
  /**
   * Whether `tool` and `provider` are in the catalog serving now: circuits of
   * others are not merged (a flood of made-up names grows nothing). Without
   * it every pair is taken (up to the health book's bound).
   */
  knows?: (tool: string, provider: string) => boolean;
  /** @default DEFAULT_REREAD_MS */
  rereadMs?: number;
  clock?: () => number;
}

/** The sync's counters (with its bus's), for status views and tests. */
export interface ClusterSyncStatus extends ClusterBusStatus {
  /** Circuit changes written and announced. */
  circuitsSent: number;
  /** Circuit changes taken from other instances. */
  circuitsMerged: number;
  /** Learned-tool re-reads that changed the catalog. */
  catalogReloads: number;
  /** Calls of the other instances recorded into this instance's health. */
  callsRead: number;
}

/**
 * {@link ClusterSyncOptions.knows} over the serving catalog: the tool is in
 * it, and the provider is one of its providers (any provider when the tool
 * lists none: implementation and discovered tools name theirs otherwise).
 */
export function catalogKnows(snapshot: () => Pick<Snapshot, 'byName'>): (tool: string, provider: string) => boolean {
  return (tool, provider) => {
    let list: readonly Tool[] | undefined;
    try {
      list = snapshot().byName.get(tool);
    } catch {
      return false; // no catalog built yet
    }
    return list !== undefined && list.some((t) => t.providers === undefined || t.providers.some((p) => p.name === provider));
  };
}

/** A fresh instance id: host, process and a random part (two processes of one host differ). */
export function newInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * The running sync of one instance.
 * @example
 * const sync = await ClusterSync.start({ bus, health: runtime.health, learned, warn });
 * // ... later
 * await sync.close();
 */
export class ClusterSync {
  readonly #o: ClusterSyncOptions;
  readonly #clock: () => number;
  readonly #pending = new Map<string, SharedCircuit>();
  #flushing: Promise<void> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastReread = 0;
  #closed = false;
  #rereading = 0;
  /** A circuit notice came while a re-read ran: read again after it. */
  #hinted = false;
  #failing = false;
  #sent = 0;
  #merged = 0;
  #reloads = 0;
  #callsRead = 0;
  readonly #calls: SharedCalls | undefined;

  private constructor(options: ClusterSyncOptions) {
    this.#o = options;
    this.#clock = options.clock ?? Date.now;
    this.#calls = options.calls ? new SharedCalls(options.calls, options.health, this.#clock) : undefined;
  }

  /** Listen, take the circuits the others already share, and start sending this instance's changes. */
  static async start(options: ClusterSyncOptions): Promise<ClusterSync> {
    const sync = new ClusterSync(options);
    await options.bus.start({ notice: (n) => sync.#notice(n), resync: () => void sync.#resync(), warn: options.warn });
    options.health.onCircuitChange((change) => sync.#queue(change));
    options.learned.onWrite((id) => void sync.#publish({ kind: 'learned', from: options.bus.instance, id }));
    options.approvals?.onSettled((id) => void sync.#publish({ kind: 'approval', from: options.bus.instance, id }));
    // what changed between the first read of the store and the LISTEN
    await Promise.all([sync.#reread(0), sync.#reloadLearned()]);
    const every = options.rereadMs ?? DEFAULT_REREAD_MS;
    sync.#timer = setInterval(() => void sync.#reread(sync.#lastReread - REREAD_OVERLAP_MS), every);
    sync.#timer.unref?.();
    return sync;
  }

  status(): ClusterSyncStatus {
    return { ...this.#o.bus.status(), circuitsSent: this.#sent, circuitsMerged: this.#merged, catalogReloads: this.#reloads, callsRead: this.#callsRead };
  }

  /** Stop sending and listening; changes still queued are written first. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#o.health.onCircuitChange(undefined);
    this.#o.learned.onWrite(undefined);
    this.#o.approvals?.onSettled(undefined);
    this.#calls?.close();
    await this.#flushing;
    await this.#flush();
    await this.#o.bus.close();
  }

  #queue(change: CircuitChange): void {
    if (this.#closed) return;
    this.#pending.set(`${change.tool}\u0000${change.provider}`, { ...change, changedBy: this.#o.bus.instance });
    // after this turn: the call that moved the circuit goes on without waiting
    if (!this.#flushing) this.#flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#flush());
  }

  async #flush(): Promise<void> {
    while (this.#pending.size > 0) {
      const circuits = [...this.#pending.values()];
      this.#pending.clear();
      try {
        // the row first: a notice is only a hint, and whoever hears it reads the row
        await this.#o.bus.putCircuits(circuits);
        await Promise.all(circuitNotices(this.#o.bus.instance, circuits).map((notice) => this.#o.bus.publish(notice)));
        this.#sent += circuits.length;
        this.#failing = false;
      } catch (error) {
        this.#report(`could not share ${circuits.length} circuit change(s) with the other instances: ${errorMessage(error)}`);
      }
    }
    this.#flushing = undefined;
  }

  async #publish(notice: ClusterNotice): Promise<void> {
    try {
      await this.#o.bus.publish(notice);
    } catch (error) {
      this.#report(`could not tell the other instances of a ${notice.kind} change: ${errorMessage(error)}`);
    }
  }

  #notice(notice: ClusterNotice): void {
    if (this.#closed) return;
    if (notice.kind === 'circuit') {
      // only a hint: any role that may connect can NOTIFY, so what a notice says is never applied; the rows (which need table privileges) are read instead
      if (notice.circuits.some((c) => this.#knows(c.tool, c.provider))) this.#hint();
    } else if (notice.kind === 'approval') {
      this.#o.approvals?.poke(notice.id);
    } else {
      void this.#reloadLearned();
    }
  }

  #merge(c: SharedCircuit): void {
    if (c.changedBy === this.#o.bus.instance || !this.#knows(c.tool, c.provider)) return;
    if (this.#o.health.mergeCircuit(c, this.#clock())) this.#merged++;
  }

  #knows(tool: string, provider: string): boolean {
    return this.#o.knows?.(tool, provider) ?? true;
  }

  /** A circuit notice: read the rows changed since the last re-read (one read at a time; notices meanwhile make one more). */
  #hint(): void {
    if (this.#rereading > 0) {
      this.#hinted = true;
      return;
    }
    void this.#reread(Math.max(1, this.#lastReread - REREAD_OVERLAP_MS));
  }

  async #reloadLearned(): Promise<void> {
    try {
      const reload = await this.#o.learned.resync();
      if (reload === undefined) return;
      this.#reloads++;
      if (reload.kind === 'failed') this.#o.warn('cluster: the learned tools another instance wrote do not fit the catalog here; still serving the previous one (see /health)');
    } catch (error) {
      this.#report(`could not re-read the learned tools: ${errorMessage(error)}`);
    }
  }

  /** The channel came back: notices may be lost, so re-read everything they could have said. */
  async #resync(): Promise<void> {
    await Promise.all([this.#reread(0), this.#reloadLearned()]);
  }

  async #reread(since: number): Promise<void> {
    // a slow store must not pile periodic reads up (the next tick reads what one missed); a full read (since 0, after a reconnect) always runs
    if (this.#closed || (this.#rereading > 0 && since > 0)) return;
    this.#rereading++;
    const started = this.#clock();
    try {
      for (const c of await this.#o.bus.listCircuits(Math.max(0, since))) this.#merge(c);
      if (this.#calls) this.#callsRead += await this.#calls.pull();
      this.#lastReread = started;
      this.#failing = false;
    } catch (error) {
      this.#report(`could not read the shared circuits: ${errorMessage(error)}`);
    } finally {
      this.#rereading--;
      if (this.#hinted && this.#rereading === 0 && !this.#closed) {
        this.#hinted = false;
        void this.#reread(Math.max(1, this.#lastReread - REREAD_OVERLAP_MS));
      }
    }
  }

  /** Warn once per run of failures (the store down makes every attempt fail the same way). */
  #report(message: string): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#o.warn(`cluster: ${message}`);
  }
}
