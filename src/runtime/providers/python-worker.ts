/**
 * One long-lived Python worker: the runner in `serve` mode with one tool
 * class loaded, answering newline-delimited JSON requests with ids. It runs
 * contained like a command tool's process (its own process group, the
 * environment allow-list, `prlimit` for the declared limits) and runs at
 * most `concurrency` calls at once; more wait here, where a call that gives
 * up waiting costs nothing.
 *
 * A call that is aborted while it runs (its timeout, or the caller gave up)
 * ends the worker's whole process group: Python cannot stop a thread, and a
 * worker that may still be running abandoned code takes no new calls. Calls
 * running beside it fail with PROVIDER_ERROR; the next call starts a new
 * worker. While idle the worker holds no reference on the event loop (a CLI
 * exits when its work is done), and after {@link PYTHON_IDLE_MS} it ends.
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { errorMessage } from '../../model/errors.js';
import { containedSpawn, killGroup } from '../containment/process.js';
import { Tail } from './output-tail.js';
import { ProviderError, type ProviderErrorCode } from './types.js';

/** How long a worker with nothing to do lives on. @default 60000 */
export const PYTHON_IDLE_MS = 60_000;

const STDERR_TAIL_BYTES = 2048;

/** How to start a worker. */
export interface PythonWorkerOptions {
  /** The interpreter's file. */
  python: string;
  /** Interpreter flags, the runner script and `serve <spec>`. */
  args: string[];
  env: Record<string, string>;
  cwd: string;
  resources?: Readonly<Record<string, unknown>>;
  prlimit: string | null;
  concurrency: number;
  killGraceMs: number;
  /** Largest answer line, bytes. */
  maxLineBytes: number;
  /** `python tool "wc" (tools.word_count)`: the start of every message. */
  describe: string;
  /** Applied to everything the worker says before it leaves the provider. */
  redact: (text: string) => string;
}

/** One answer of the runner. */
interface Answer {
  id?: number;
  op?: string;
  ok?: boolean;
  result?: unknown;
  output?: string;
  class_name?: string;
  error?: { kind?: string; type?: string; message?: string };
}

/** A settled call: its result, and what the tool printed meanwhile. */
export interface PythonCallResult {
  result: unknown;
  output: string;
}

interface Pending {
  resolve: (value: PythonCallResult) => void;
  reject: (error: ProviderError) => void;
}

/** A running Python worker. */
export class PythonWorker {
  readonly #o: PythonWorkerOptions;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, Pending>();
  readonly #waiting: Array<() => void> = [];
  readonly #stderr = new Tail(STDERR_TAIL_BYTES);
  readonly #loaded: Promise<void>;
  #settleLoad!: { resolve: () => void; reject: (e: ProviderError) => void };
  #buffer = '';
  #active = 0;
  /** Calls and pings under way, waiting ones included. */
  #inflight = 0;
  #retiring = false;
  #next = 0;
  #ended: string | undefined;
  #ending: Promise<boolean> | undefined;
  #idle: NodeJS.Timeout | undefined;
  /** Why the code could not be loaded (import error, missing class): the provider's health. */
  loadFailure: string | undefined;

  constructor(options: PythonWorkerOptions) {
    this.#o = options;
    this.#loaded = new Promise<void>((resolve, reject) => (this.#settleLoad = { resolve, reject }));
    this.#loaded.catch(() => undefined);
    const { child } = containedSpawn(options.python, options.args, { env: options.env, cwd: options.cwd, prlimit: options.prlimit, ...(options.resources ? { resources: options.resources } : {}) });
    this.#child = child;
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (child.pid === undefined) this.#end(`cannot start ${options.python}: ${err.code ?? err.message}`, 'PROVIDER_UNAVAILABLE');
    });
    child.stdin?.on('error', () => {});
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => this.#onData(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.#stderr.push(chunk));
    child.on('exit', (code, signal) => {
      const tail = this.#stderr.text().trim().split(/\r?\n/).pop() ?? '';
      this.#end(`the worker ${code !== null ? `exited with code ${code}` : `was killed by ${signal ?? 'a signal'}`}${tail ? `: ${options.redact(tail).slice(0, 300)}` : ''}`, 'PROVIDER_ERROR');
      void this.#kill();
    });
    this.#idleFromNow();
  }

  /** True while it can take calls. */
  get alive(): boolean {
    return this.#ended === undefined;
  }

  /** Run one call: wait for the class to load and for a free slot, send, await the answer. */
  async call(inputs: Record<string, unknown>, signal: AbortSignal): Promise<PythonCallResult> {
    this.#busy();
    try {
      await this.#until(this.#loaded, signal, true);
      await this.#until(this.#slot(signal), signal, true);
      try {
        return await this.#request('call', inputs, signal);
      } finally {
        this.#release();
      }
    } finally {
      this.#done();
    }
  }

  /** Ask the worker whether it answers (health check). */
  async ping(signal: AbortSignal): Promise<void> {
    this.#busy();
    try {
      await this.#until(this.#loaded, signal, true);
      await this.#request('ping', {}, signal);
    } finally {
      this.#done();
    }
  }

  /** End the worker once the calls under way finish (at once when there are none). */
  retire(): void {
    this.#retiring = true;
    if (this.#inflight === 0) void this.close();
  }

  /** End the worker's process group and wait until it is gone. */
  async close(): Promise<void> {
    this.#end('the provider was closed', 'PROVIDER_ERROR');
    await this.#kill();
  }

  #request(op: 'call' | 'ping', inputs: Record<string, unknown>, signal: AbortSignal): Promise<PythonCallResult> {
    if (this.#ended !== undefined) return Promise.reject(this.#error('PROVIDER_UNAVAILABLE', this.#ended, true));
    let line: string;
    try {
      line = JSON.stringify({ id: ++this.#next, op, inputs });
    } catch (err) {
      return Promise.reject(this.#error('PROVIDER_ERROR', `the arguments are not JSON: ${errorMessage(err)}`, true));
    }
    const id = this.#next;
    const answer = new Promise<PythonCallResult>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#child.stdin?.write(`${line}\n`);
    return this.#until(answer, signal, false).finally(() => this.#pending.delete(id));
  }

  /** `promise`, or ABORTED when `signal` fires first; an abort of a running call ends the worker. */
  #until<T>(promise: Promise<T>, signal: AbortSignal, before: boolean): Promise<T> {
    if (signal.aborted) return Promise.reject(this.#error('ABORTED', 'aborted', before, signal.reason));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        if (!before) {
          this.#end('a call was aborted while it ran (timeout or caller); the worker was ended', 'PROVIDER_ERROR');
          void this.#kill();
        }
        reject(this.#error('ABORTED', before ? 'aborted before it started' : 'aborted; the worker was ended', before, signal.reason));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
        (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
      );
    });
  }

  /** Resolves when fewer than `concurrency` calls run; the caller then holds a slot (a waiter that gives up leaves the queue). */
  #slot(signal: AbortSignal): Promise<void> {
    if (this.#active < this.#o.concurrency) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const take = () => {
        signal.removeEventListener('abort', leave);
        this.#active++;
        resolve();
      };
      const leave = () => {
        const i = this.#waiting.indexOf(take);
        if (i >= 0) this.#waiting.splice(i, 1);
      };
      signal.addEventListener('abort', leave, { once: true });
      this.#waiting.push(take);
    });
  }

  #release(): void {
    this.#active--;
    this.#waiting.shift()?.();
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let newline: number;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      if (line.trim() !== '') this.#onLine(line);
    }
    if (Buffer.byteLength(this.#buffer) > this.#o.maxLineBytes) {
      this.#buffer = '';
      this.#end(`an answer exceeded ${this.#o.maxLineBytes} bytes (config.maxOutputBytes); the worker was ended`, 'RESPONSE_TOO_LARGE');
      void this.#kill();
    }
  }

  #onLine(line: string): void {
    let m: Answer;
    try {
      m = JSON.parse(line) as Answer;
    } catch {
      this.#end('the worker wrote something that is not the protocol; it was ended', 'BAD_RESPONSE');
      void this.#kill();
      return;
    }
    if (m.op === 'ready') return this.#settleLoad.resolve();
    if (m.op === 'load_failed') {
      this.loadFailure = this.#o.redact(`${this.#o.describe}: ${m.error?.message ?? 'the module could not be loaded'}`);
      this.#settleLoad.reject(new ProviderError('PROVIDER_UNAVAILABLE', this.loadFailure, true, { detail: { kind: m.error?.kind, exception: m.error?.type } }));
      return;
    }
    const pending = m.id === undefined ? undefined : this.#pending.get(m.id);
    if (!pending) return;
    const output = this.#o.redact(m.output ?? '');
    if (m.ok) return pending.resolve({ result: m.result, output });
    const type = m.error?.type ?? 'Exception';
    const message = this.#o.redact(m.error?.message ?? '');
    // the runner could not even decode the arguments (nested past its recursion limit): the caller's input, nothing ran
    if (type === 'InputTooDeep') return pending.reject(new ProviderError('PROVIDER_ERROR', `${this.#o.describe}: ${message}`, true, { fault: 'caller', detail: { exception: type } }));
    const code: ProviderErrorCode = type === 'ResultNotJSON' ? 'BAD_RESPONSE' : 'PROVIDER_ERROR';
    const text = type === 'ResultNotJSON' ? `run() returned a value that is not JSON: ${message}` : `${type}${message ? `: ${message}` : ''}`;
    pending.reject(new ProviderError(code, `${this.#o.describe}: ${text}`, false, { detail: { exception: type, message, output } }));
  }

  #error(code: ProviderErrorCode, what: string, beforeEffect: boolean, cause?: unknown): ProviderError {
    return new ProviderError(code, `${this.#o.describe}: ${what}`, beforeEffect, cause === undefined ? {} : { cause });
  }

  /** The worker takes nothing more: fail what waits on it, once. */
  #end(why: string, code: ProviderErrorCode): void {
    if (this.#ended !== undefined) return;
    this.#ended = why;
    clearTimeout(this.#idle);
    this.#settleLoad.reject(new ProviderError(code === 'PROVIDER_ERROR' ? 'PROVIDER_UNAVAILABLE' : code, `${this.#o.describe}: ${why}`, true));
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(this.#error(code, why, false));
  }

  #kill(): Promise<boolean> {
    this.#ending ??= killGroup(this.#child, { graceMs: this.#o.killGraceMs });
    return this.#ending;
  }

  /** A call is under way: the worker keeps the process alive. */
  #busy(): void {
    this.#inflight++;
    clearTimeout(this.#idle);
    for (const s of [this.#child, this.#child.stdin, this.#child.stdout, this.#child.stderr]) (s as { ref?: () => void } | null)?.ref?.();
  }

  #done(): void {
    if (--this.#inflight > 0 || this.#ended !== undefined) return;
    if (this.#retiring) void this.close();
    else this.#idleFromNow();
  }

  /** Idle: hold nothing on the event loop, and end after PYTHON_IDLE_MS. */
  #idleFromNow(): void {
    for (const s of [this.#child, this.#child.stdin, this.#child.stdout, this.#child.stderr]) (s as { unref?: () => void } | null)?.unref?.();
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.close(), PYTHON_IDLE_MS);
    this.#idle.unref();
  }
}
