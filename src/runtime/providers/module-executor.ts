/**
 * How a module tool's code runs once loaded: in a worker thread (the
 * default, module-worker.ts) or in the server's own thread (the `inline`
 * opt-in, module-inline.ts). One executor holds one version of the code; the
 * provider replaces it when the code changes.
 * @module
 */
import { raceAbort } from '../abort.js';
import { ProviderError, type ProviderCallContext } from './types.js';

/** Where the code is: the URL to import, and the manifest's names for messages. */
export interface ModuleTarget {
  /** `file:` URL of the module's real path. */
  url: string;
  /** The module as the manifest names it. */
  spec: string;
  exportName: string;
}

/** One loaded version of a module tool's code. */
export interface ModuleExecutor {
  /** Run one call. Rejects with a {@link ProviderError}. */
  call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown>;
  /** Run the health-check export `name` and resolve to what it returned. */
  check(name: string, signal: AbortSignal): Promise<unknown>;
  /** Why the module did not load, once known. */
  readonly loadFailure: string | undefined;
  /** False once it can run nothing more (its worker ended): the provider starts another. */
  readonly alive: boolean;
  /** The code changed: end once the calls in flight have settled. */
  retire(): void;
  /** End now; calls in flight reject. */
  close(): Promise<void>;
}

/** What a call that loses to its signal rejects with. */
export function abortedError(signal: AbortSignal, what: string, before: boolean): ProviderError {
  return new ProviderError('ABORTED', `${what}: aborted${before ? ' before it started' : ''}`, before, { cause: signal.reason });
}

/** Reject with ABORTED when the signal fires, whatever `work` does. */
export function raceAborted<T>(work: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  return raceAbort(work, signal, (before) => abortedError(signal, what, before));
}

/** `export "x" of module "y"`, the subject of call messages. */
export function describeTarget(target: ModuleTarget): string {
  return `export "${target.exportName}" of module "${target.spec}"`;
}
