/**
 * Put the API on a socket: `node:http` (or `node:https` with `tls`) through
 * Hono's Node adapter. Closing stops accepting, ends idle keep-alive
 * connections at once and waits for requests in flight.
 * @module
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Hono } from 'hono';
import { socketLaneOf } from './mcp-lane.js';
import { problem, problemResponse } from './problem.js';

export interface ListenOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 4317 */
  port?: number;
  /** PEM files of a certificate and its key: serve HTTPS. */
  tls?: { cert: string; key: string } | undefined;
  /** Longest a client may take to send a request's headers, ms. @default 20000 (Node's: 60000) */
  headersTimeoutMs?: number;
  /** Longest a client may take to send a whole request, body included, ms; answered 408. @default 60000 (Node's: 300000) */
  requestTimeoutMs?: number;
  /** How often those limits are checked, ms. @default 5000 (Node's: 30000) */
  timeoutCheckMs?: number;
  /** Most connections open at once; more are closed as they arrive. @default 2048 (Node's: none) */
  maxConnections?: number;
}

/**
 * Limits on slow and many clients. A request body trickled a byte at a time
 * held its connection for Node's default 300 s, and nothing capped the
 * connections, so a few hundred such clients ran the process out of file
 * descriptors (the store, the watcher and child processes need theirs).
 * Bodies are at most 1 MiB and answers are not covered (a long call or a
 * `Prefer: wait` is time spent answering, not receiving); a stream that
 * stays open (an MCP GET) counts as one connection.
 */
const SERVER_LIMITS = { headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, timeoutCheckMs: 5_000, maxConnections: 2048 } as const;

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:4317 */
  url: string;
  port: number;
  server: Server;
  /** Stop listening and wait for open requests. */
  close(): Promise<void>;
}

// the adapter's last resort, when a response could not be produced at all (or the app is not built yet)
const failed = () => problemResponse(problem('INTERNAL', 'The server failed to answer.'));

/**
 * What the adapter answers when it cannot even make a Request: a Host it
 * cannot build a URL from (`localhost:4317@evil`, `a/b`, none on HTTP/1.0),
 * an absolute-form target it cannot parse, or a request target that is not a
 * path (`*`, a backslash). The client's fault, never a toolcap bug: 421 for
 * the host, 404 for the path.
 */
function unreadable(error: unknown): Response {
  if (!(error instanceof RequestError)) return failed();
  if (/host|absolute/i.test(error.message)) return problemResponse(problem('MISDIRECTED_REQUEST', 'The request names no host this server can answer for.'));
  return problemResponse(problem('NOT_FOUND', 'The request target is not a path this server has. See /openapi.json.'));
}

/**
 * Listen; resolves once the port is bound, rejects with the system error
 * (EADDRINUSE, EACCES, ENOTFOUND), or the file error when a `tls` file
 * cannot be read. `app` may be a function of the bound port: an app whose
 * allowed Host names carry the port is built once `port: 0` has learnt it.
 * @example const server = await listen(createApi(registry), { port: 0 }); await server.close();
 */
export async function listen(app: Hono | ((port: number) => Hono), options: ListenOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  let built: Hono | undefined = typeof app === 'function' ? undefined : app;
  const listener = getRequestListener((request, env) => (built ? built.fetch(request, env) : failed()), { errorHandler: unreadable });
  let lane = built ? socketLaneOf(built) : undefined;
  // a POST to an open MCP session is answered off the socket (mcp-lane.ts); everything else, and whatever the lane leaves, by the app
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (lane?.(req, res, () => void listener(req, res))) return;
    void listener(req, res);
  };
  const requestTimeout = options.requestTimeoutMs ?? SERVER_LIMITS.requestTimeoutMs;
  const limits = {
    // (Node refuses a headers timeout longer than the request's)
    headersTimeout: Math.min(options.headersTimeoutMs ?? SERVER_LIMITS.headersTimeoutMs, requestTimeout),
    requestTimeout,
    connectionsCheckingInterval: options.timeoutCheckMs ?? SERVER_LIMITS.timeoutCheckMs,
  };
  const server: Server = options.tls
    ? createHttpsServer({ cert: readFileSync(options.tls.cert), key: readFileSync(options.tls.key), ...limits }, handle)
    : createHttpServer(limits, handle);
  server.maxConnections = options.maxConnections ?? SERVER_LIMITS.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4317, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  if (!built) {
    try {
      built = (app as (port: number) => Hono)(port);
      lane = socketLaneOf(built);
    } catch (error) {
      server.close();
      throw error;
    }
  }
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${shown}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeIdleConnections();
      }),
  };
}
