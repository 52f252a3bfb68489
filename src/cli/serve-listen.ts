/**
 * Put `toolcap serve`'s API on a socket, over HTTP or (with `server.tls`)
 * HTTPS, through @hono/node-server's request listener. The app is built
 * once the port is bound, because its allowed Host and Origin names carry
 * the port, and `--port 0` learns it only then.
 * @module
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import type { RunningServer } from '../server/listen.js';

export interface ServeTarget {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** PEM files: serve HTTPS. */
  tls?: { cert: string; key: string } | undefined;
}

const FAILED = () => new Response(JSON.stringify({ type: 'about:blank', title: 'The server failed to answer.', status: 500, code: 'INTERNAL' }), { status: 500, headers: { 'content-type': 'application/problem+json' } });

/**
 * Listen, then build the app for the bound port. Rejects with the system
 * error (EADDRINUSE, EACCES, ENOTFOUND) when the port cannot be bound, or
 * the file error when the certificate cannot be read.
 */
export async function listenApi(build: (port: number) => Hono, target: ServeTarget): Promise<RunningServer> {
  let app: Hono | undefined;
  const listener = getRequestListener((request, env) => (app ? app.fetch(request, env) : FAILED()), { errorHandler: FAILED });
  const server: Server = target.tls
    ? createHttpsServer({ cert: readFileSync(target.tls.cert), key: readFileSync(target.tls.key) }, (req, res) => void listener(req, res))
    : createHttpServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(target.port, target.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  try {
    app = build(port);
  } catch (error) {
    server.close();
    throw error;
  }
  const shown = target.host.includes(':') ? `[${target.host}]` : target.host;
  return {
    url: `${target.tls ? 'https' : 'http'}://${shown}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeIdleConnections();
      }),
  };
}
