/**
 * The `inline` executor: the module runs in the server's own thread, as
 * fast as a function call, for trusted tools that are quick. A timeout
 * releases the caller but cannot stop synchronous code, which blocks the
 * server while it runs; that is the price of the opt-in.
 *
 * ESM caches a module by URL for the life of the process, so the provider
 * gives each version of the file its own URL (`?code=<content sha256>`): an
 * edited file is imported afresh. Files it imports keep their URLs and stay
 * cached (only a worker re-imports everything); every version imported stays
 * in memory.
 * @module
 */
import { errorMessage } from '../../model/errors.js';
import { abortedError, describeTarget, raceAborted, type ModuleExecutor, type ModuleTarget } from './module-executor.js';
import { exportOf, prepareRunner, type Runner } from './module-runner.js';
import { ProviderConfigError, ProviderError, type ProviderCallContext } from './types.js';

interface Loaded {
  namespace: Record<string, unknown>;
  run: Runner;
}

/** Runs a module in this thread. */
export class InlineExecutor implements ModuleExecutor {
  readonly alive = true;
  #loading: Promise<Loaded> | undefined;
  #loadFailure: string | undefined;
  readonly #target: ModuleTarget;
  readonly #describe: string;

  /** `target.url` should carry the cache-busting query of this version. */
  constructor(target: ModuleTarget) {
    this.#target = target;
    this.#describe = describeTarget(target);
  }

  get loadFailure(): string | undefined {
    return this.#loadFailure;
  }

  #load(): Promise<Loaded> {
    this.#loading ??= this.#doLoad().catch((err: unknown) => {
      this.#loadFailure = errorMessage(err);
      throw err;
    });
    return this.#loading;
  }

  async #doLoad(): Promise<Loaded> {
    const { url, spec, exportName } = this.#target;
    let namespace: Record<string, unknown>;
    try {
      namespace = (await import(url)) as Record<string, unknown>;
    } catch (err) {
      throw new ProviderError('PROVIDER_UNAVAILABLE', `module "${spec}" failed to load: ${errorMessage(err)}`, true, { cause: err });
    }
    const prepared = prepareRunner(namespace, exportName, spec, exportOf);
    if ('problem' in prepared) {
      throw new ProviderError('PROVIDER_UNAVAILABLE', prepared.problem, true, { cause: new ProviderConfigError(prepared.problem) });
    }
    return { namespace, run: prepared.run };
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const { signal } = context;
    const loaded = await raceAborted(this.#load(), signal, this.#describe);
    if (signal.aborted) throw abortedError(signal, this.#describe, true);
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(loaded.run(args, context));
    } catch (err) {
      pending = Promise.reject(err);
    }
    try {
      return await raceAborted(pending, signal, this.#describe);
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (signal.aborted) throw abortedError(signal, this.#describe, false);
      throw new ProviderError('PROVIDER_ERROR', errorMessage(err), false, { cause: err });
    }
  }

  async check(name: string, signal: AbortSignal): Promise<unknown> {
    const what = `health check "${name}"`;
    const { namespace } = await raceAborted(this.#load(), signal, what);
    const { value, exports } = exportOf(namespace, name);
    if (typeof value !== 'function') throw new Error(`module "${this.#target.spec}" has no function export "${name}" (exports: ${exports})`);
    return raceAborted(Promise.resolve((value as (s: AbortSignal) => unknown)(signal)), signal, what);
  }

  retire(): void {
    // Nothing to end: the module map keeps what was imported.
  }

  async close(): Promise<void> {
    // As retire().
  }
}
