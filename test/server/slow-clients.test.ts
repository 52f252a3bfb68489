/**
 * listen()'s limits on slow and many clients: a request still arriving when
 * the request timeout passes is answered 408 (Node's default held it for
 * 300 s; headers that never end are the classic), and connections past maxConnections are closed as they arrive
 * (nothing capped them, so slow clients could run the process out of file
 * descriptors). A whole request sent in time is answered as ever.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import { createApi } from '../../src/server/app.js';
import { listen, type RunningServer } from '../../src/server/listen.js';
import { cleanFolders, folder, manifest } from './helpers.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

let running: RunningServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await running?.close();
  running = undefined;
  await registry?.close();
  cleanFolders();
});

let registry: Registry | undefined;
async function server(options: Parameters<typeof listen>[1]): Promise<RunningServer> {
  const dir = folder('toolcap-slow-');
  writeFileSync(join(dir, 'a.yaml'), manifest(['a.one']));
  registry = new Registry({ paths: [dir] });
  await registry.start();
  running = await listen((port) => createApi(registry!, { allowedHosts: [`127.0.0.1:${port}`] }), { port: 0, ...options });
  return running;
}

/** A raw connection; what the server writes back, and whether it closed. */
function open(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => resolve({ socket, received: () => received, closed }));
    socket.once('error', reject);
  });
}

describe('slow and many clients', () => {
  it.each([
    ['headers that never end', (port: number) => `GET /tools HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: 1\r\n`, /^HTTP\/1\.1 408/],
  ])('a request with %s is ended once the request timeout passes', async (_label, text, answer) => {
    const { port } = await server({ requestTimeoutMs: 400, timeoutCheckMs: 50 });
    const c = await open(port);
    c.socket.write(text(port));
    const started = Date.now();
    await c.closed;
    expect(c.received()).toMatch(answer);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a request sent whole within the timeout is answered as ever', async () => {
    const { url } = await server({ requestTimeoutMs: 400, timeoutCheckMs: 50 });
    const res = await fetch(`${url}/tools`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['a.one']);
  });

  it('connections past maxConnections are closed as they arrive; the ones open are served', async () => {
    const { port, url } = await server({ maxConnections: 3 });
    const held = await Promise.all([open(port), open(port), open(port)]);
    const extra = await open(port);
    await extra.closed;
    expect(extra.received()).toBe('');
    held[0]!.socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    await held[0]!.closed;
    expect(held[0]!.received()).toMatch(/^HTTP\/1\.1 200/);
    // one closed: room for a new one
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await new Promise((r) => setTimeout(r, 50));
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });
});
