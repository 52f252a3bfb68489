/**
 * The registry: a catalog that stays loaded, reloads when its files change,
 * and serves one immutable snapshot at a time.
 *
 * A reload builds a whole new snapshot and then swaps one reference, so a
 * reader sees the old snapshot or the new one, never half of each. A reload
 * whose build has errors does not swap: the last good snapshot keeps serving
 * and `status()` says what went wrong. Reloads run one at a time; asking for
 * one while another runs queues exactly one more.
 * @module
 */
import { diagnostic, hasFailures, sortDiagnostics, type Diagnostic } from '../model/diagnostics.js';
import { errorMessage } from '../model/errors.js';
import type { LayerInput } from '../load/loader.js';
import { BuildMemo, catalogEtag } from './build-memo.js';
import { buildCatalog, lintCatalogPythonImports, type CatalogOptions, type CatalogResult } from './catalog.js';
import { changedFiles, fileHashes, sameFingerprint, takeFingerprint, type Fingerprint } from './fingerprint.js';
import { createSnapshot, deepFreeze, type Snapshot } from './snapshot.js';
import { indexTools, type SnapshotIndex } from './snapshot-index.js';
import { updateIndex } from './index-update.js';
import { debounce, DEFAULT_DEBOUNCE_MS, watchFiles, type ChangeSource, type Debounced } from './watch.js';
import { defaultWorkerScript, WorkerBuilder, workBetween, type BuildWork } from './worker-builder.js';

// the watch pieces were defined here first; importers of registry.js keep finding them
export { debounce, DEFAULT_DEBOUNCE_MS, watchFiles };
export type { ChangeSource, Debounced, BuildWork };

export interface RegistryOptions extends CatalogOptions {
  /** Files and folders (or `{ path, dialect?, persona? }`), loaded as layers in this order (as `buildCatalog`). */
  paths: readonly LayerInput[];
  /** Reload when a file below `paths` changes. @default false */
  watch?: boolean;
  /** What says files may have changed, when watching. @default watchFiles(paths) (chokidar) */
  changes?: ChangeSource;
  /** Quiet time after the last file event before reloading. @default 200 */
  debounceMs?: number;
  /** Warnings fail a reload too, not only errors. @default false */
  strict?: boolean;
  /** Told of every reload that swapped a snapshot or failed (not of skipped ones). Must not throw. */
  onReload?: (event: ReloadEvent) => void;
  /** Milliseconds since the epoch, for `builtAt` and status times. @default Date.now */
  clock?: () => number;
  /**
   * Build each snapshot in a worker thread, so a reload does not stall
   * serving (the main thread only decodes the result in short slices and
   * swaps). `true`: the compiled worker beside this module; `{ script }`: that
   * worker script; `false`: build on the main thread. A worker that fails
   * falls back to a main-thread build for that reload (BUILD_WORKER_FAILED).
   * Either way, files and tools unchanged since the last build are reused.
   * @default true when the compiled worker exists (running from `dist/`), else false
   */
  worker?: boolean | { script: string | URL };
}

/** What one refresh did. */
export type ReloadEvent =
  | { kind: 'reloaded'; at: string; version: number; etag: string; previousEtag: string | null; changed: readonly string[]; diagnostics: readonly Diagnostic[]; work?: BuildWork }
  | {
      kind: 'failed';
      at: string;
      /** The version still serving (0: none yet). */
      version: number;
      etag: string | null;
      changed: readonly string[];
      diagnostics: readonly Diagnostic[];
      unreadable: boolean;
      /** The message of an exception the build threw (a bug, not bad input), else null. */
      exception: string | null;
      /** How much of the build was reused, and where it ran (absent: the build threw). */
      work?: BuildWork;
    }
  | { kind: 'unchanged'; at: string; version: number; etag: string | null };

/** One build's outcome, before it is judged. */
interface Built {
  result: CatalogResult;
  etag: string;
  work: BuildWork;
  /** The tools sorted by name, from the worker. */
  order?: Int32Array;
}

/** The registry's health, for `/health`. */
export interface RegistryStatus {
  /** A snapshot is serving and the latest build succeeded. */
  ok: boolean;
  /** Version of the serving snapshot (0: none yet). */
  version: number;
  etag: string | null;
  /** When the serving snapshot was built. */
  lastGoodAt: string | null;
  /** The latest build's failure; null when the latest build succeeded. */
  lastError: { at: string; diagnostics: readonly Diagnostic[]; unreadable: boolean; exception: string | null } | null;
  watching: boolean;
  /** A debounced reload is waiting for quiet. */
  pending: boolean;
  /** A build is running. */
  building: boolean;
}

/** Thrown by `snapshot()` before any build has succeeded. */
export class RegistryNotReadyError extends Error {
  override readonly name = 'RegistryNotReadyError' as const;
  constructor(options?: ErrorOptions) {
    super('No catalog snapshot yet: the registry has not started, or every build so far failed (see status().lastError).', options);
  }
}

/**
 * A loaded catalog kept up to date.
 * @example
 * const registry = new Registry({ paths: ['examples/manifests', 'examples/overrides'], watch: true });
 * await registry.start();
 * registry.snapshot().toolsFor('atlas');
 * await registry.close();
 */
export class Registry {
  readonly #paths: readonly LayerInput[];
  readonly #catalogOptions: CatalogOptions;
  readonly #watch: boolean;
  readonly #debounceMs: number;
  readonly #strict: boolean;
  readonly #onReload: ((event: ReloadEvent) => void) | undefined;
  readonly #clock: () => number;

  #current: Snapshot | undefined;
  #version = 0;
  #lastError: RegistryStatus['lastError'] = null;
  #fingerprint: Fingerprint | undefined;
  #running: Promise<ReloadEvent> | undefined;
  #queued: { want: { force: boolean }; promise: Promise<ReloadEvent> } | undefined;
  #watcher: ChangeSource | undefined;
  readonly #changes: ChangeSource | undefined;
  readonly #later: Debounced;
  #closed = false;
  /** Results kept between main-thread builds. */
  readonly #memo = new BuildMemo();
  /** The build worker, when builds run off the main thread. */
  readonly #builder: WorkerBuilder | undefined;
  readonly #listeners = new Set<(event: ReloadEvent) => void>();
  /** The serving snapshot's indexes: the next worker build's are made from them (registry/index-update.ts). */
  #index: SnapshotIndex | undefined;

  constructor(options: RegistryOptions) {
    const { paths, watch, changes, debounceMs, strict, onReload, clock, worker, ...catalogOptions } = options;
    this.#changes = changes;
    this.#paths = Object.freeze([...paths]);
    this.#catalogOptions = catalogOptions;
    this.#watch = watch ?? changes !== undefined;
    this.#debounceMs = debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.#strict = strict ?? false;
    this.#onReload = onReload;
    this.#clock = clock ?? Date.now;
    const script = worker === false ? undefined : typeof worker === 'object' ? worker.script : defaultWorkerScript();
    this.#builder = script === undefined ? undefined : new WorkerBuilder(script, catalogOptions);
    // refresh() reports bad input as a failed event; a rejection here would be a bug in toolcap
    this.#later = debounce(() => void this.refresh().catch((error: unknown) => process.emitWarning(`toolcap registry: reload failed: ${errorMessage(error)}`)), this.#debounceMs);
  }

  /** Start watching (when asked to) and do the first build. Never throws for bad input: see the event and `status()`. */
  async start(): Promise<ReloadEvent> {
    // Watch first, so a change made during the first build is not missed.
    if (this.#watch && !this.#watcher && !this.#closed) await this.#startWatching();
    return this.refresh({ force: true });
  }

  /** The serving snapshot: one reference read, never a half-done reload. */
  snapshot(): Snapshot {
    const current = this.#current;
    if (!current) throw new RegistryNotReadyError();
    return current;
  }

  /**
   * Rebuild. Without `force`, skip when no file below the paths changed
   * (content hash) since the last build. While a build runs, calls share one
   * queued rebuild (forced if any caller forced it).
   */
  refresh(options: { force?: boolean } = {}): Promise<ReloadEvent> {
    const force = options.force ?? false;
    const running = this.#running;
    if (!running) return this.#run(force);
    if (this.#queued) {
      this.#queued.want.force ||= force;
      return this.#queued.promise;
    }
    const want = { force };
    const promise = running
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.#run(want.force);
      });
    this.#queued = { want, promise };
    return promise;
  }

  /**
   * Build a catalog from this registry's layers, each passed through `map`,
   * without serving it: a dry run (learned tools are checked this way before
   * they are kept). `failed`: a reload with these layers would not swap.
   */
  preview(map: (layer: LayerInput) => LayerInput): { result: CatalogResult; failed: boolean } {
    const result = buildCatalog(this.#paths.map(map), this.#catalogOptions);
    return { result, failed: result.unreadable || hasFailures(result.diagnostics, this.#strict) };
  }

  status(): RegistryStatus {
    const current = this.#current;
    return {
      ok: current !== undefined && this.#lastError === null,
      version: current?.version ?? 0,
      etag: current?.etag ?? null,
      lastGoodAt: current?.builtAt ?? null,
      lastError: this.#lastError,
      watching: this.#watcher !== undefined,
      pending: this.#later.pending,
      building: this.#running !== undefined || this.#queued !== undefined,
    };
  }

  /** Stop watching and wait for a running build to finish. The last snapshot keeps serving. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#later.cancel();
    const watcher = this.#watcher;
    this.#watcher = undefined;
    await watcher?.close();
    await (this.#queued?.promise ?? this.#running);
    await this.#builder?.close();
  }

  #run(force: boolean): Promise<ReloadEvent> {
    const run: Promise<ReloadEvent> = this.#rebuild(force).finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  async #rebuild(force: boolean): Promise<ReloadEvent> {
    const previous = this.#fingerprint;
    const print = await takeFingerprint(this.#paths, previous, this.#catalogOptions.limits?.maxBytes);
    const at = new Date(this.#clock()).toISOString();
    const serving = this.#current;
    if (!force && previous && sameFingerprint(previous, print)) {
      return deepFreeze({ kind: 'unchanged', at, version: serving?.version ?? 0, etag: serving?.etag ?? null });
    }
    const changed = previous ? changedFiles(previous, print) : [];
    this.#fingerprint = print;
    let built: Built | undefined;
    let exception: string | null = null;
    try {
      built = await this.#build(fileHashes(print));
    } catch (error) {
      exception = errorMessage(error);
    }
    const result = built?.result;
    const work = built?.work;
    const done = new Date(this.#clock()).toISOString();
    if (!built || !result || result.unreadable || hasFailures(result.diagnostics, this.#strict)) {
      const diagnostics = deepFreeze(result?.diagnostics ?? []);
      const unreadable = result?.unreadable ?? false;
      this.#lastError = Object.freeze({ at: done, diagnostics, unreadable, exception });
      return this.#emit({ kind: 'failed', at: done, version: serving?.version ?? 0, etag: serving?.etag ?? null, changed, diagnostics, unreadable, exception, ...(work ? { work } : {}) });
    }
    // let requests waiting since the build began run before indexing starts: two shorter blocks instead of one.
    // Two immediates: the second runs in the next turn of the loop, after its timers and I/O (a plain timer
    // would do too, but would wait on fake clocks in tests)
    await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    let next: Snapshot;
    let index: SnapshotIndex;
    try {
      // index in slices, yielding between them, so the snapshot itself is made in one short step
      const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));
      // a worker build hands back unchanged entries as they were: index only what changed
      const updated = built.work.where === 'worker' && this.#index ? await updateIndex(this.#index, result.catalog.tools, yieldNow, built.order) : undefined;
      index = updated ?? (await indexTools(result.catalog.tools, yieldNow, built.order));
      next = createSnapshot(result, { version: this.#version + 1, builtAt: done, etag: built.etag, index });
    } catch (error) {
      const message = errorMessage(error);
      const diagnostics = deepFreeze(result.diagnostics);
      this.#lastError = Object.freeze({ at: done, diagnostics, unreadable: false, exception: message });
      return this.#emit({ kind: 'failed', at: done, version: serving?.version ?? 0, etag: serving?.etag ?? null, changed, diagnostics, unreadable: false, exception: message, ...(work ? { work } : {}) });
    }
    this.#version = next.version;
    this.#current = next; // the swap: one assignment
    this.#index = index;
    this.#lastError = null;
    return this.#emit({ kind: 'reloaded', at: done, version: next.version, etag: next.etag, previousEtag: serving?.etag ?? null, changed, diagnostics: next.diagnostics, ...(work ? { work } : {}) });
  }

  /**
   * Build the catalog: in the worker when there is one (then the Python
   * import check, whose checker cannot cross threads, here), else or when the
   * worker fails, on this thread, with the registry's memo either way.
   */
  async #build(knownHashes: ReadonlyMap<string, string>): Promise<Built> {
    let fallback: Diagnostic | undefined;
    if (this.#builder && !this.#closed) {
      try {
        const { result, etag, work, order } = await this.#builder.build(this.#paths, { ...this.#catalogOptions, knownHashes });
        const { pythonImports, trustedModuleDirs } = this.#catalogOptions;
        if (pythonImports) result.diagnostics = sortDiagnostics([...result.diagnostics, ...lintCatalogPythonImports(result.catalog, pythonImports, trustedModuleDirs ?? [])]);
        return { result, etag, work, ...(order ? { order } : {}) };
      } catch (error) {
        fallback = diagnostic('BUILD_WORKER_FAILED', `The build worker failed (${errorMessage(error)}); this catalog was built on the main thread.`, {
          hint: 'Nothing to fix in the manifests; the next reload starts a new worker.',
        });
      }
    }
    const before = this.#memo.stats;
    const result = buildCatalog(this.#paths, { ...this.#catalogOptions, memo: this.#memo, knownHashes });
    if (fallback) result.diagnostics = sortDiagnostics([...result.diagnostics, fallback]);
    return { result, etag: catalogEtag(result.catalog, this.#memo), work: workBetween('main', before, this.#memo.stats) };
  }

  /**
   * Be told of every reload, good or failed, after the swap. Returns the
   * function that stops it. A listener that throws is reported as a process
   * warning and does not stop the others.
   * @example const stop = registry.subscribe((e) => { if (e.kind === 'reloaded') cache.clear(); });
   */
  subscribe(listener: (event: ReloadEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  #emit(event: ReloadEvent): ReloadEvent {
    deepFreeze(event);
    for (const listener of [...(this.#onReload ? [this.#onReload] : []), ...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        process.emitWarning(`toolcap registry: a reload listener threw: ${errorMessage(error)}`);
      }
    }
    return event;
  }

  async #startWatching(): Promise<void> {
    const source = this.#changes ?? watchFiles(this.#paths);
    this.#watcher = source;
    await source.start(() => this.#schedule());
  }

  /** Every event restarts the quiet period; one refresh when it ends. */
  #schedule(): void {
    if (!this.#closed) this.#later.trigger();
  }
}
