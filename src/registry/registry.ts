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
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Stats } from 'node:fs';
import { watch as watchPaths, type FSWatcher } from 'chokidar';
import { displayPath, isManifestFileName, isWalkedFolder, layerPath, type LayerInput } from '../load/loader.js';
import { hasFailures, type Diagnostic } from '../model/diagnostics.js';
import { buildCatalog, type CatalogOptions, type CatalogResult } from './catalog.js';
import { createSnapshot, deepFreeze, type Snapshot } from './snapshot.js';
import { errorMessage } from '../model/errors.js';

/** Quiet time after the last file event before a watched registry reloads. @default 200 */
export const DEFAULT_DEBOUNCE_MS = 200;

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
}

/**
 * Something that says "the sources may have changed" (a file watcher; later
 * perhaps a database notification). Every signal restarts the debounce.
 */
export interface ChangeSource {
  /** Begin; call `onChange` on every possible change. Resolves once changes after it are seen. */
  start(onChange: () => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * The default change source: chokidar on the paths (files and folders),
 * ignoring hidden entries, skipped folders and files with other endings.
 * A watch error (a folder removed, too many watches) counts as a change:
 * the rebuild then says what is wrong with the files.
 */
export function watchFiles(paths: readonly LayerInput[]): ChangeSource {
  const roots = new Set(paths.map((p) => resolve(layerPath(p))));
  let watcher: FSWatcher | undefined;
  return {
    async start(onChange) {
      const w = watchPaths([...roots], { ignoreInitial: true, ignored: (path: string, stats?: Stats) => !roots.has(path) && ignoredPath(path, stats) });
      watcher = w;
      w.on('all', () => onChange());
      w.on('error', () => onChange());
      await new Promise<void>((ready) => w.once('ready', () => ready()));
    },
    async close() {
      await watcher?.close();
      watcher = undefined;
    },
  };
}

/** What one refresh did. */
export type ReloadEvent =
  | { kind: 'reloaded'; at: string; version: number; etag: string; previousEtag: string | null; changed: readonly string[]; diagnostics: readonly Diagnostic[] }
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
    }
  | { kind: 'unchanged'; at: string; version: number; etag: string | null };

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
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  readonly #listeners = new Set<(event: ReloadEvent) => void>();

  constructor(options: RegistryOptions) {
    const { paths, watch, changes, debounceMs, strict, onReload, clock, ...catalogOptions } = options;
    this.#changes = changes;
    this.#paths = Object.freeze([...paths]);
    this.#catalogOptions = catalogOptions;
    this.#watch = watch ?? changes !== undefined;
    this.#debounceMs = debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.#strict = strict ?? false;
    this.#onReload = onReload;
    this.#clock = clock ?? Date.now;
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

  status(): RegistryStatus {
    const current = this.#current;
    return {
      ok: current !== undefined && this.#lastError === null,
      version: current?.version ?? 0,
      etag: current?.etag ?? null,
      lastGoodAt: current?.builtAt ?? null,
      lastError: this.#lastError,
      watching: this.#watcher !== undefined,
      pending: this.#timer !== undefined,
      building: this.#running !== undefined || this.#queued !== undefined,
    };
  }

  /** Stop watching and wait for a running build to finish. The last snapshot keeps serving. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const watcher = this.#watcher;
    this.#watcher = undefined;
    await watcher?.close();
    await (this.#queued?.promise ?? this.#running);
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
    const print = await takeFingerprint(this.#paths, previous);
    const at = new Date(this.#clock()).toISOString();
    const serving = this.#current;
    if (!force && previous && sameFingerprint(previous, print)) {
      return deepFreeze({ kind: 'unchanged', at, version: serving?.version ?? 0, etag: serving?.etag ?? null });
    }
    const changed = previous ? changedFiles(previous, print) : [];
    this.#fingerprint = print;
    let result: CatalogResult | undefined;
    let exception: string | null = null;
    try {
      result = buildCatalog(this.#paths, this.#catalogOptions);
    } catch (error) {
      exception = errorMessage(error);
    }
    const done = new Date(this.#clock()).toISOString();
    if (!result || result.unreadable || hasFailures(result.diagnostics, this.#strict)) {
      const diagnostics = deepFreeze(result?.diagnostics ?? []);
      const unreadable = result?.unreadable ?? false;
      this.#lastError = Object.freeze({ at: done, diagnostics, unreadable, exception });
      return this.#emit({ kind: 'failed', at: done, version: serving?.version ?? 0, etag: serving?.etag ?? null, changed, diagnostics, unreadable, exception });
    }
    // let requests waiting since the build began run before indexing starts: two shorter blocks instead of one.
    // Two immediates: the second runs in the next turn of the loop, after its timers and I/O (a plain timer
    // would do too, but would wait on fake clocks in tests)
    await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    let next: Snapshot;
    try {
      next = createSnapshot(result, { version: this.#version + 1, builtAt: done });
    } catch (error) {
      const message = errorMessage(error);
      const diagnostics = deepFreeze(result.diagnostics);
      this.#lastError = Object.freeze({ at: done, diagnostics, unreadable: false, exception: message });
      return this.#emit({ kind: 'failed', at: done, version: serving?.version ?? 0, etag: serving?.etag ?? null, changed, diagnostics, unreadable: false, exception: message });
    }
    this.#version = next.version;
    this.#current = next; // the swap: one assignment
    this.#lastError = null;
    return this.#emit({ kind: 'reloaded', at: done, version: next.version, etag: next.etag, previousEtag: serving?.etag ?? null, changed, diagnostics: next.diagnostics });
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

  /** Debounce: every event restarts the quiet period; one refresh when it ends. */
  #schedule(): void {
    if (this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // refresh() reports bad input as a failed event; a rejection here would be a bug in toolcap
      this.refresh().catch((error: unknown) => process.emitWarning(`toolcap registry: reload failed: ${errorMessage(error)}`));
    }, this.#debounceMs);
  }
}

// ---------------------------------------------------------------------------
// Change detection: which files a build reads, and whether any changed.

/** A file changed less than this before a fingerprint may change again with the same mtime (coarse file systems): hash it again. */
const RACY_MS = 2_000;

interface Stamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
}

/** Every file a build would read, by absolute path, with a content hash; null: a path that could not be read. */
interface Fingerprint {
  takenAt: number;
  files: Map<string, Stamp | null>;
}

function ignoredPath(path: string, stats?: Stats): boolean {
  // the loader's folder-walk rules, so the watcher sees exactly the files a build reads
  const name = basename(path);
  if (!isWalkedFolder(name)) return true;
  return stats?.isFile() === true && !isManifestFileName(name);
}

async function takeFingerprint(paths: readonly LayerInput[], previous: Fingerprint | undefined): Promise<Fingerprint> {
  const takenAt = Date.now(); // wall time, compared with file mtimes: not the injectable clock
  const files = new Map<string, Stamp | null>();
  const stampFile = async (path: string, st: Stats) => {
    const old = previous?.files.get(path);
    const trusted = old && previous && old.size === st.size && old.mtimeMs === st.mtimeMs && old.ctimeMs === st.ctimeMs && old.ino === st.ino && st.mtimeMs < previous.takenAt - RACY_MS;
    if (trusted) return void files.set(path, old);
    try {
      const hash = createHash('sha256').update(await readFile(path)).digest('hex');
      files.set(path, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, hash });
    } catch {
      files.set(path, null);
    }
  };
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return void files.set(dir, null);
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (isWalkedFolder(entry.name)) await walk(full);
      } else if (entry.isFile() && isManifestFileName(entry.name)) {
        try {
          await stampFile(full, await stat(full));
        } catch {
          files.set(full, null);
        }
      }
    }
  };
  for (const input of paths) {
    const abs = resolve(layerPath(input));
    let st: Stats;
    try {
      st = await stat(abs);
    } catch {
      files.set(abs, null);
      continue;
    }
    if (st.isDirectory()) await walk(abs);
    else await stampFile(abs, st);
  }
  return { takenAt, files };
}

function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  if (a.files.size !== b.files.size) return false;
  for (const [path, stamp] of a.files) {
    if (!b.files.has(path)) return false;
    const other = b.files.get(path);
    if ((stamp?.hash ?? null) !== (other?.hash ?? null)) return false;
  }
  return true;
}

function changedFiles(a: Fingerprint, b: Fingerprint): string[] {
  const out = new Set<string>();
  for (const [path, stamp] of a.files) if (!b.files.has(path) || (stamp?.hash ?? null) !== (b.files.get(path)?.hash ?? null)) out.add(path);
  for (const path of b.files.keys()) if (!a.files.has(path)) out.add(path);
  return [...out].sort().map(displayPath);
}
