/**
 * The main thread's handle on the build worker (registry/build-worker.ts):
 * starts it on the first build, sends one request at a time, decodes the
 * answer in slices (registry/catalog-transfer.ts) and reports a worker that
 * failed, crashed or exited as a rejected build, so the registry can build
 * that one itself. An idle worker does not keep the process alive.
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { LayerInput } from '../load/loader.js';
import type { BuildMemoStats } from './build-memo.js';
import type { CatalogOptions } from './catalog.js';
import { CatalogDecoder, type BuiltMessage, type DecodedBuild } from './catalog-transfer.js';
import { DEFAULT_LIMITS } from '../source/source.js';
import { wireLayers, wireOptions, type BuildErrorMessage, type BuildRequest } from './worker-protocol.js';

/** The compiled worker script beside this module, when there is one (a build from `dist/`; not when running the TypeScript sources). */
export function defaultWorkerScript(): URL | undefined {
  const url = new URL('./build-worker.js', import.meta.url);
  return url.protocol === 'file:' && existsSync(fileURLToPath(url)) ? url : undefined;
}

/** How much of one build was reused. */
export interface BuildWork {
  /** Where the catalog was built: the worker, or the main thread (no worker, or it failed). */
  where: 'worker' | 'main';
  /** Files parsed and imported by this build. */
  importedFiles: number;
  /** Files whose parse and import were reused (content hash unchanged). */
  reusedFiles: number;
  /** Tools completed and checked by this build. */
  checkedTools: number;
  /** Tools whose completion and findings were reused. */
  reusedTools: number;
}

/** Counters of a build: what changed between two readings of a memo's stats. */
export function workBetween(where: BuildWork['where'], before: BuildMemoStats, after: BuildMemoStats): BuildWork {
  return {
    where,
    importedFiles: after.importMisses - before.importMisses,
    reusedFiles: after.importHits - before.importHits,
    checkedTools: after.toolMisses - before.toolMisses,
    reusedTools: after.toolHits - before.toolHits,
  };
}

/**
 * The Node flags to start the worker with: inherited (undefined), unless the
 * program was given as code (`-e`, `--input-type`), flags that would stop a
 * worker from a file starting; then none. (Naming flags explicitly is not an
 * option: per-process flags such as `--expose-gc` are refused there.)
 */
export function workerExecArgv(execArgv: readonly string[]): string[] | undefined {
  const forCode = (arg: string) => ['-e', '--eval', '-p', '--print', '--input-type'].some((flag) => arg === flag || arg.startsWith(`${flag}=`));
  return execArgv.some(forCode) ? [] : undefined;
}

const ZERO: BuildMemoStats = { importHits: 0, importMisses: 0, toolHits: 0, toolMisses: 0 };

/** Yield to the event loop: timers and I/O waiting run before the next slice. */
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Builds catalogs in a worker thread.
 * @example
 * const builder = new WorkerBuilder(defaultWorkerScript()!);
 * const { result, etag } = await builder.build(['manifests/'], {});
 * await builder.close();
 */
export class WorkerBuilder {
  readonly #script: URL | string;
  readonly #decoder: CatalogDecoder;
  #worker: Worker | undefined;
  #stats: BuildMemoStats = ZERO;
  #nextId = 1;
  #pending: { id: number; resolve: (m: BuiltMessage) => void; reject: (e: Error) => void } | undefined;
  #closed = false;

  constructor(script: URL | string, options: Pick<CatalogOptions, 'limits'> = {}) {
    this.#script = script;
    this.#decoder = new CatalogDecoder({ ...DEFAULT_LIMITS, ...options.limits });
  }

  /**
   * Build in the worker. Rejects when the worker cannot start, throws, crashes
   * or exits; bad input is never a rejection (it is in the diagnostics).
   */
  async build(layers: readonly LayerInput[], options: CatalogOptions): Promise<DecodedBuild & { work: BuildWork; workerMs: number }> {
    if (this.#closed) throw new Error('the build worker is closed');
    if (this.#pending) throw new Error('a build is already running in the worker');
    const worker = this.#start();
    const id = this.#nextId++;
    const request: BuildRequest = { kind: 'build', id, layers: wireLayers(layers), options: wireOptions(options) };
    const message = await new Promise<BuiltMessage>((resolve, reject) => {
      this.#pending = { id, resolve, reject };
      worker.ref(); // a build under way keeps the process up; an idle worker does not
      try {
        worker.postMessage(request);
      } catch (error) {
        this.#pending = undefined;
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    }).finally(() => {
      this.#pending = undefined;
      this.#worker?.unref();
    });
    const before = this.#stats;
    this.#stats = message.stats;
    try {
      const decoded = await this.#decoder.decode(message, yieldNow);
      return { ...decoded, work: workBetween('worker', before, message.stats), workerMs: message.buildMs };
    } catch (error) {
      // the two sides no longer agree on what was sent: start both afresh
      await this.#drop();
      throw error;
    }
  }

  /** Stop the worker; a build under way is rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#drop();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const execArgv = workerExecArgv(process.execArgv);
    const worker = new Worker(this.#script, execArgv ? { execArgv } : {});
    worker.unref();
    worker.on('message', (message: BuiltMessage | BuildErrorMessage) => {
      const pending = this.#pending;
      if (!pending || pending.id !== message.id) return;
      if (message.kind === 'built') pending.resolve(message);
      else {
        this.#decoder.reset(); // the worker forgot what it sent
        pending.reject(new Error(`the build worker failed: ${message.message}`));
      }
    });
    const lost = (why: string) => {
      if (this.#worker === worker) {
        this.#worker = undefined;
        this.#stats = ZERO;
        this.#decoder.reset();
      }
      this.#pending?.reject(new Error(why));
    };
    worker.on('error', (error) => lost(`the build worker crashed: ${error.message}`));
    worker.on('exit', (code) => lost(`the build worker exited (code ${code})`));
    this.#worker = worker;
    return worker;
  }

  async #drop(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#stats = ZERO;
    this.#decoder.reset();
    this.#pending?.reject(new Error('the build worker was stopped'));
    if (worker) await worker.terminate();
  }
}
