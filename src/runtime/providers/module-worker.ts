/**
 * The `worker` executor, the default: one worker thread per provider
 * instance and version of the code, running that tool's calls (concurrent
 * calls share it, as they would share the server's thread inline). A
 * worker imports the module afresh, so the code that runs is the code on
 * disk when the worker started, local imports included.
 *
 * A timeout or a caller's abort releases the call at once. The worker is
 * then asked to abort it and must acknowledge within {@link ABORT_ACK_MS};
 * a worker that does not (synchronous code holding its event loop) is
 * terminated, ending the other calls it was running with it. Calls that
 * arrive while an acknowledgement is awaited go to a new worker. The server's thread never waits on a tool.
 *
 * The worker is unref'd while idle (a CLI exits when its work is done),
 * ends after {@link WORKER_IDLE_MS} without calls, and
 * its stdout goes to the server's stderr (a tool's console.log must not
 * corrupt `mcp serve`'s stdout protocol). `execution.resources.memoryMb`
 * caps the worker's heap.
 * @module
 */
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../model/errors.js';
import { abortedError, describeTarget, raceAborted, type ModuleExecutor, type ModuleTarget } from './module-executor.js';
import { WORKER_SOURCE, type FromWorker, type ToWorker, type WorkerCallContext } from './module-worker-main.js';
import { ProviderConfigError, ProviderError, type ProviderCallContext } from './types.js';
import { RedactedLines } from './redacted-lines.js';
import type { SqlParams, ToolSql } from '../../store/tool-db-types.js';

/** How long a worker has to acknowledge an abort before it is terminated. @default 250 */
export const ABORT_ACK_MS = 250;

/**
 * How long a worker with nothing to do lives on. Instances a reload drops,
 * or a runtime closes without closing them, would otherwise keep a thread
 * each; the next call pays a worker start (~30 ms) again.
 * @default 2000
 */
export const WORKER_IDLE_MS = 2_000;

/** Options of a {@link WorkerExecutor}. */
export interface WorkerExecutorOptions {
  /** Heap cap of the worker (`maxOldGenerationSizeMb`), from `execution.resources.memoryMb`. */
  memoryMb?: number;
  /** The worker's own `process.env`: the allow-list a command tool gets too (absent: a copy of the server's). */
  env?: Record<string, string>;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: ProviderError) => void;
  /** The call's SQL handle, for the statements its code sends. */
  sql?: ToolSql;
}

/** Runs a module in a worker thread of its own. */
export class WorkerExecutor implements ModuleExecutor {
  readonly #worker: Worker;
  readonly #describe: string;
  readonly #pending = new Map<number, Pending>();
  /** Calls and checks still waiting for the module to load: in flight too, so a retiring worker does not end under them. */
  #waiting = 0;
  readonly #ackTimers = new Map<number, NodeJS.Timeout>();
  readonly #printed = new RedactedLines((text) => process.stderr.write(text));
  readonly #loaded: Promise<void>;
  #settleLoad: { resolve: () => void; reject: (e: ProviderError) => void } | undefined;
  #loadFailure: ProviderError | undefined;
  #ended: string | undefined;
  #retiring = false;
  #next = 0;
  #idle: NodeJS.Timeout | undefined;

  constructor(target: ModuleTarget, options: WorkerExecutorOptions = {}) {
    this.#describe = describeTarget(target);
    this.#loaded = new Promise<void>((resolve, reject) => (this.#settleLoad = { resolve, reject }));
    this.#loaded.catch(() => undefined);
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: target,
      stdout: true,
      ...(options.env !== undefined ? { env: options.env } : {}),
      ...(options.memoryMb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: options.memoryMb } } : {}),
    });
    // what the module prints goes to stderr, without the OAuth tokens its calls were handed
    this.#worker.stdout.on('data', (chunk: Buffer) => this.#printed.push(chunk.toString('utf8')));
    this.#worker.stdout.on('end', () => this.#printed.flush());
    this.#worker.unref();
    this.#worker.on('message', (m: FromWorker) => this.#onMessage(m));
    this.#worker.on('error', (err) => this.#end(`the module's worker failed: ${errorMessage(err)}`));
    this.#worker.on('exit', (code) => this.#end(`the module's worker exited with code ${code}`));
    this.#idleFromNow();
  }

  get loadFailure(): string | undefined {
    return this.#loadFailure?.message;
  }

  /** False also while an abort waits for its acknowledgement: a worker that may be stuck takes no new calls. */
  get alive(): boolean {
    return this.#loadFailure !== undefined || (this.#ended === undefined && this.#ackTimers.size === 0);
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const { signal, callId, attempt, tool, persona, idempotencyKey, configurations, sql, oauth } = context;
    if (signal.aborted) throw abortedError(signal, this.#describe, true);
    const plain: WorkerCallContext = { callId, attempt, tool };
    if (persona !== undefined) plain.persona = persona;
    if (idempotencyKey !== undefined) plain.idempotencyKey = idempotencyKey;
    if (configurations !== undefined) plain.configurations = configurations;
    if (sql !== undefined) plain.sql = true;
    return this.#whenLoaded(signal, this.#describe, () => {
      if (oauth !== undefined) {
        plain.oauth = oauth;
        this.#printed.remember(Object.values(oauth).map((t) => t.accessToken));
      }
      return this.#send((id) => ({ t: 'call', id, args, context: plain }), signal, this.#describe, sql);
    });
  }

  async check(name: string, signal: AbortSignal): Promise<unknown> {
    const what = `health check "${name}"`;
    return this.#whenLoaded(signal, what, () => this.#send((id) => ({ t: 'check', id, name }), signal, what));
  }

  retire(): void {
    this.#retiring = true;
    this.#endIfRetired();
  }

  /**
   * Wait for the module to load, then `send`, counted as in flight all the
   * while: a call admitted before a reload retired this worker runs on it
   * (the version it started with) instead of failing with "the code
   * changed". `send` posts in the same turn as the wait ends, so the call is
   * pending before anything else can run; a wait that fails leaves the
   * worker as a settled call does.
   */
  async #whenLoaded(signal: AbortSignal, what: string, send: () => Promise<unknown>): Promise<unknown> {
    this.#waiting++;
    let sent: Promise<unknown>;
    try {
      await raceAborted(this.#loaded, signal, what);
      if (signal.aborted) throw abortedError(signal, what, true);
      sent = send();
    } finally {
      this.#waiting--;
      if (this.#pending.size === 0 && this.#waiting === 0) this.#quiet();
    }
    return sent;
  }

  /** A retired worker with nothing in flight ends. */
  #endIfRetired(): void {
    if (this.#retiring && this.#pending.size === 0 && this.#waiting === 0) this.#terminate('the code changed');
  }

  /** Nothing is in flight: a retiring worker ends, any other idles out. */
  #quiet(): void {
    if (this.#retiring) return this.#terminate('the code changed');
    this.#worker.unref();
    this.#idleFromNow();
  }

  async close(): Promise<void> {
    this.#terminate('the provider was closed');
    await this.#worker.terminate();
  }

  /** Post one request and wait for its answer, or its abort. */
  #send(message: (id: number) => Extract<ToWorker, { t: 'call' | 'check' }>, signal: AbortSignal, what: string, sql?: ToolSql): Promise<unknown> {
    if (this.#ended !== undefined) {
      return Promise.reject(new ProviderError('PROVIDER_UNAVAILABLE', `${what}: ${this.#ended}`, true));
    }
    const id = ++this.#next;
    const answer = new Promise<unknown>((resolve, reject) => this.#pending.set(id, { resolve, reject, ...(sql ? { sql } : {}) }));
    try {
      this.#worker.postMessage(message(id));
    } catch (err) {
      this.#pending.delete(id);
      return Promise.reject(new ProviderError('PROVIDER_ERROR', `${what}: the arguments cannot enter the worker: ${errorMessage(err)}`, true, { cause: err }));
    }
    clearTimeout(this.#idle);
    this.#worker.ref();
    const onAbort = () => this.#abort(id);
    signal.addEventListener('abort', onAbort, { once: true });
    return raceAborted(answer, signal, what).finally(() => signal.removeEventListener('abort', onAbort));
  }

  /** The caller gave up on call `id`: tell the worker, and end it if it cannot even listen. */
  #abort(id: number): void {
    this.#settled(id);
    if (this.#ended !== undefined) return;
    this.#worker.postMessage({ t: 'abort', id } satisfies ToWorker);
    const timer = setTimeout(() => this.#terminate(`a call overran its abort by ${ABORT_ACK_MS} ms (synchronous code?)`), ABORT_ACK_MS);
    timer.unref();
    this.#ackTimers.set(id, timer);
  }

  #onMessage(m: FromWorker): void {
    switch (m.t) {
      case 'loaded':
        return this.#settleLoad?.resolve();
      case 'load-failed': {
        const cause = m.config ? new ProviderConfigError(m.message) : new Error(m.message);
        this.#loadFailure = new ProviderError('PROVIDER_UNAVAILABLE', m.message, true, { cause });
        this.#settleLoad?.reject(this.#loadFailure);
        return this.#terminate(m.message);
      }
      case 'sql':
        return this.#runSql(m);
      case 'ack':
        clearTimeout(this.#ackTimers.get(m.id));
        this.#ackTimers.delete(m.id);
        return;
      case 'done': {
        const pending = this.#pending.get(m.id);
        this.#settled(m.id);
        if (m.ok) pending?.resolve(m.value);
        else pending?.reject(new ProviderError(m.code, m.message, false));
        return;
      }
    }
  }

  /** A statement from a call's code: run on the call's handle while the call is pending, and answer. */
  #runSql(m: Extract<FromWorker, { t: 'sql' }>): void {
    const reply = (answer: ToWorker): void => {
      if (this.#ended === undefined) this.#worker.postMessage(answer);
    };
    const sql = this.#pending.get(m.id)?.sql;
    if (!sql) return reply({ t: 'sql-done', req: m.req, ok: false, message: 'no SQL database for this call (the tool declares no sqlTables, or the call is over)' });
    const params = m.params as SqlParams | undefined;
    const run = m.op === 'query' ? sql.query(m.text, params) : sql.execute(m.text, params);
    run.then(
      (value) => reply({ t: 'sql-done', req: m.req, ok: true, value }),
      (err: unknown) => reply({ t: 'sql-done', req: m.req, ok: false, message: errorMessage(err) }),
    );
  }

  /** Call `id` needs no answer any more; a retiring worker with nothing left to do ends. */
  #settled(id: number): void {
    this.#pending.delete(id);
    if (this.#pending.size > 0 || this.#waiting > 0) return;
    this.#quiet();
  }

  #idleFromNow(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.#terminate(`idle for ${WORKER_IDLE_MS} ms`), WORKER_IDLE_MS);
    this.#idle.unref();
  }

  #terminate(why: string): void {
    this.#end(why);
    void this.#worker.terminate();
  }

  /** The worker can run nothing more: fail what waits on it, once. */
  #end(why: string): void {
    if (this.#ended !== undefined) return;
    this.#ended = why;
    clearTimeout(this.#idle);
    for (const timer of this.#ackTimers.values()) clearTimeout(timer);
    this.#ackTimers.clear();
    this.#settleLoad?.reject(this.#loadFailure ?? new ProviderError('PROVIDER_UNAVAILABLE', `${this.#describe}: ${why}`, true));
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(new ProviderError('PROVIDER_ERROR', `${this.#describe}: ${why}`, false));
  }
}
