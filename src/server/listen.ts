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
}

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
  const server: Server = options.tls ? createHttpsServer({ cert: readFileSync(options.tls.cert), key: readFileSync(options.tls.key) }, handle) : createHttpServer(handle);
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
