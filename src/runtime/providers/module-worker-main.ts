/**
 * What runs inside a module tool's worker thread, and the message protocol
 * between it and module-worker.ts. The worker imports the module once,
 * reports `loaded` (or `load-failed`), then runs calls and health checks as
 * they arrive, each with its own AbortController, and acknowledges every
 * `abort` at once: an abort left unacknowledged tells the host that the
 * worker's event loop is blocked.
 *
 * `workerMain` is self-contained (everything it uses arrives as an
 * argument) because its source text is what the worker evaluates; see
 * {@link WORKER_SOURCE}.
 * @module
 */
import type * as WorkerThreads from 'node:worker_threads';
import { exportOf, prepareRunner, type Runner } from './module-runner.js';
import type { ModuleTarget } from './module-executor.js';

/** The call context a worker gets: the call's, without its signal (the worker makes its own). */
export interface WorkerCallContext {
  callId: string;
  attempt: number;
  tool: unknown;
  persona?: string;
  idempotencyKey?: string;
  configurations?: Readonly<Record<string, unknown>>;
  /** The call has an SQL handle: the worker gives the code a proxy that asks the host (`sql` messages). */
  sql?: boolean;
  /** The tool's OAuth access tokens by service (ProviderCallContext.oauth). */
  oauth?: Readonly<Record<string, unknown>>;
}

/** A statement the worker's code asks the host's SQL handle of call `id` to run. */
export interface SqlRequest {
  t: 'sql';
  id: number;
  req: number;
  op: 'query' | 'execute';
  text: string;
  params?: unknown;
}

/** Host → worker. */
export type ToWorker =
  | { t: 'call'; id: number; args: Record<string, unknown>; context: WorkerCallContext }
  | { t: 'check'; id: number; name: string }
  | { t: 'abort'; id: number }
  | { t: 'sql-done'; req: number; ok: true; value: unknown }
  | { t: 'sql-done'; req: number; ok: false; message: string };

/** Worker → host. */
export type FromWorker =
  | { t: 'loaded' }
  | { t: 'load-failed'; message: string; config: boolean }
  | { t: 'ack'; id: number }
  | SqlRequest
  | { t: 'done'; id: number; ok: true; value: unknown }
  | { t: 'done'; id: number; ok: false; code: 'PROVIDER_ERROR' | 'BAD_RESPONSE'; message: string };

/** The worker's body. Uses only its arguments: its source is evaluated in the worker. */
function workerMain(
  threads: typeof WorkerThreads,
  load: (url: string) => Promise<Record<string, unknown>>,
  prepare: typeof prepareRunner,
  lookup: typeof exportOf,
): void {
  const port = threads.parentPort;
  if (port === null) return;
  const { url, spec, exportName } = threads.workerData as ModuleTarget;
  const post = (message: FromWorker): void => port.postMessage(message);
  const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
  const controllers = new Map<number, AbortController>();
  const sqlWaits = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let sqlNext = 0;
  // context.sql in the worker: each statement goes to the host's handle of the call, and its answer comes back
  const sqlProxy = (id: number) => {
    const ask = (op: 'query' | 'execute', text: unknown, params: unknown): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const req = ++sqlNext;
        sqlWaits.set(req, { resolve, reject });
        try {
          port.postMessage({ t: 'sql', id, req, op, text: String(text), ...(params !== undefined ? { params } : {}) });
        } catch (err) {
          sqlWaits.delete(req);
          reject(new Error(`the SQL parameters cannot leave the worker: ${messageOf(err)}`));
        }
      });
    return { query: (name: unknown, params?: unknown) => ask('query', name, params), execute: (sql: unknown, params?: unknown) => ask('execute', sql, params) };
  };
  let namespace: Record<string, unknown> = {};
  let run: Runner = () => undefined;

  load(url).then(
    (ns) => {
      namespace = ns;
      const prepared = prepare(ns, exportName, spec, lookup);
      if ('problem' in prepared) return post({ t: 'load-failed', message: prepared.problem, config: true });
      run = prepared.run;
      return post({ t: 'loaded' });
    },
    (err: unknown) => post({ t: 'load-failed', message: `module "${spec}" failed to load: ${messageOf(err)}`, config: false }),
  );

  const work = (m: Extract<ToWorker, { t: 'call' | 'check' }>, signal: AbortSignal): unknown => {
    if (m.t === 'call') {
      const { sql, ...context } = m.context;
      // frozen as the host's are: the values are the tool's to read, not to change
      if (context.configurations !== undefined) Object.freeze(context.configurations);
      return run(m.args, { ...context, signal, ...(sql === true ? { sql: sqlProxy(m.id) } : {}) });
    }
    const { value, exports } = lookup(namespace, m.name);
    if (typeof value !== 'function') throw new Error(`module "${spec}" has no function export "${m.name}" (exports: ${exports})`);
    return (value as (s: AbortSignal) => unknown)(signal);
  };

  port.on('message', (m: ToWorker) => {
    if (m.t === 'sql-done') {
      const wait = sqlWaits.get(m.req);
      sqlWaits.delete(m.req);
      if (m.ok) wait?.resolve(m.value);
      else wait?.reject(new Error(m.message));
      return;
    }
    if (m.t === 'abort') {
      controllers.get(m.id)?.abort(new Error('the call was aborted (timeout or caller)'));
      return post({ t: 'ack', id: m.id });
    }
    const controller = new AbortController();
    controllers.set(m.id, controller);
    new Promise((resolve) => resolve(work(m, controller.signal)))
      .then(
        (value) => {
          try {
            post({ t: 'done', id: m.id, ok: true, value });
          } catch (err) {
            post({ t: 'done', id: m.id, ok: false, code: 'BAD_RESPONSE', message: `the result cannot leave the worker: ${messageOf(err)}` });
          }
        },
        (err: unknown) => post({ t: 'done', id: m.id, ok: false, code: 'PROVIDER_ERROR', message: messageOf(err) }),
      )
      .finally(() => controllers.delete(m.id));
  });
}

/**
 * The worker's script (evaluated, `eval: true`): {@link workerMain} with its
 * helpers, as source text, so the same code runs from dist/ and from the
 * TypeScript sources under test. The import is written here, outside any
 * compiled function, because test transforms rewrite `import()` in sources.
 */
export const WORKER_SOURCE = `(${workerMain.toString()})(require('node:worker_threads'), (url) => import(url), ${prepareRunner.toString()}, ${exportOf.toString()});`;
