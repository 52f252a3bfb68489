/**
 * Put the API on a socket: `node:http` with Hono's Node adapter. Closing
 * stops accepting, ends idle keep-alive connections at once and waits for
 * requests in flight.
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { problem } from './problem.js';

export interface ListenOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 4317 */
  port?: number;
}

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:4317 */
  url: string;
  port: number;
  server: Server;
  /** Stop listening and wait for open requests. */
  close(): Promise<void>;
}

/**
 * Listen; resolves once the port is bound, rejects with the system error
 * (EADDRINUSE, EACCES, ENOTFOUND) when it cannot be.
 */
export function listen(app: Hono, options: ListenOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const listener = getRequestListener(app.fetch, {
    // the adapter's last resort, if a response could not be produced at all
    errorHandler: () => new Response(JSON.stringify(problem('INTERNAL', 'The server failed to answer.')), { status: 500, headers: { 'content-type': 'application/problem+json' } }),
  });
  const server = createServer((req, res) => void listener(req, res));
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    server.once('error', fail);
    server.listen(options.port ?? 4317, host, () => {
      server.off('error', fail);
      const port = (server.address() as AddressInfo).port;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${port}`,
        port,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
