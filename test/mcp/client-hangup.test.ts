/**
 * A client that hangs up aborts its call, on every path of `/mcp`: the
 * socket lane (`toolcap serve`), the Hono route (the lane left out: the
 * plain Node adapter), each alone on its connection and pipelined behind
 * another request. The upstream is the real everything server (stdio) and
 * the tool its `trigger-long-running-operation` (8 s): the call's record
 * must come within a few seconds of the hang-up, an error, where a call left
 * to run would finish, `ok`, after 8 s; and the hang-up must not count
 * against the provider's health (the next call runs).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/index.js';
import { McpClients } from '../../src/mcp/clients.js';
import { mcpHttpHandler, type McpHttpHandler } from '../../src/mcp/http.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { listen, type RunningServer } from '../../src/server/listen.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { EVERYTHING, mcpConfig, nodeServer, removeTemps, tempDir, waitFor } from './helpers.js';

const TOOL = 'mcp.everything.trigger-long-running-operation';
const SECONDS = 8;
const ACCEPT = 'application/json, text/event-stream';
const VERSION = '2025-06-18';

let clients: McpClients;
let registry: Registry;
let store: Store;
let runtime: Runtime;
let handler: McpHttpHandler;
let lane: RunningServer;
let plain: HttpServer;
let plainPort: number;
const lines: string[] = [];

beforeAll(async () => {
  const dir = tempDir();
  const cacheDir = join(dir, 'cache');
  const reviewed = join(dir, 'reviewed');
  for (const d of [cacheDir, reviewed]) mkdirSync(d, { recursive: true });
  writeFileSync(join(reviewed, 'long.json'), JSON.stringify({ toolcap: 1, tools: [{ name: TOOL, approval: { consent: false } }] }));
  clients = new McpClients(mcpConfig([nodeServer('everything', EVERYTHING, ['stdio'])]), { cacheDir });
  await clients.start();
  expect(clients.status()[0]).toMatchObject({ state: 'up' });
  registry = new Registry({ paths: [{ path: cacheDir, discovered: true }, reviewed] });
  expect((await registry.start()).kind).toBe('reloaded');
  store = await openSqliteStore(join(dir, 'toolcap.db'));
  runtime = new Runtime({ registry, store, providers: new ProviderTypes({ mcpConnector: clients }), onWarning: () => undefined });
  handler = mcpHttpHandler({ registry, runtime, warn: (line) => void lines.push(line) });
  lane = await listen(createApi(registry, { runtime, mcp: handler, warn: () => undefined }), { port: 0 });
  plain = createServer(getRequestListener(createApi(registry, { runtime, mcp: handler, warn: () => undefined }).fetch));
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  plainPort = (plain.address() as AddressInfo).port;
}, 30_000);

afterEach(() => void (lines.length = 0));

afterAll(async () => {
  await handler?.close();
  await lane?.close();
  plain?.closeAllConnections();
  await new Promise<void>((resolve) => (plain ? plain.close(() => resolve()) : resolve()));
  await runtime?.close();
  await clients?.close();
  await registry?.close();
  await store?.close();
  removeTemps();
});

/** Raw HTTP/1.1 over one socket: the request texts are written at once (pipelined when several). */
function openSocket(port: number, requests: string[]) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString()));
  socket.on('error', () => undefined);
  const ready = new Promise<void>((resolve) => socket.once('connect', () => (socket.write(requests.join('')), resolve())));
  return { socket, ready, received: () => received };
}

const post = (port: number, headers: Record<string, string>, body: string) =>
  `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** A session opened over its own connection: the headers a request in it carries. */
async function session(port: number): Promise<Record<string, string>> {
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const s = openSocket(port, [post(port, { 'content-type': 'application/json', accept: ACCEPT, connection: 'close' }, JSON.stringify(init))]);
  await s.ready;
  expect(await waitFor(() => /mcp-session-id: /i.test(s.received()))).toBe(true);
  s.socket.destroy();
  const id = /mcp-session-id: ([^\r]+)/i.exec(s.received())![1]!;
  return { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': id, 'mcp-protocol-version': VERSION };
}

const longCall = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: TOOL, arguments: { duration: SECONDS, steps: SECONDS } } });

describe('a client that hangs up during tools/call', () => {
  it.each([
    ['the socket lane', 'lane', 1, false],
    ['the socket lane, pipelined behind another call', 'lane', 2, false],
    ['the Hono route (plain Node adapter, no lane)', 'plain', 1, false],
    ['the Hono route, pipelined behind another call', 'plain', 2, false],
    // a batch is the transport's to answer, on the socket lane too
    ['the socket lane, a batch', 'lane', 1, true],
  ] as const)('on %s: aborts the upstream call', { timeout: 30_000 }, async (_path, where, count, batch) => {
    const port = where === 'lane' ? lane.port : plainPort;
    const headers = await session(port);
    const before = (await store.listCalls({ tool: TOOL })).length;
    const ids = Array.from({ length: count }, (_, i) => 100 + i);
    const s = openSocket(port, ids.map((id) => post(port, headers, batch ? `[${longCall(id)}]` : longCall(id))));
    await s.ready;
    await new Promise((r) => setTimeout(r, 500));
    const hungUp = Date.now();
    s.socket.destroy();
    // every call ends (and is recorded) soon after the hang-up, not when the tool would have finished
    expect(await waitFor(async () => (await store.listCalls({ tool: TOOL })).length === before + count, 80, 50)).toBe(true);
    expect(Date.now() - hungUp).toBeLessThan((SECONDS - 3) * 1000);
    const calls = (await store.listCalls({ tool: TOOL })).slice(0, count);
    for (const call of calls) {
      expect(call.outcome).not.toBe('ok');
      expect(call.durationMs).toBeLessThan((SECONDS - 3) * 1000);
    }
    // one quiet line per request, and a hang-up is no failure of the provider: the next call runs
    expect(await waitFor(() => lines.filter((l) => l.includes('went away during POST /mcp')).length === count, 40, 50)).toBe(true);
    expect(await runtime.call(TOOL, { duration: 0.1, steps: 1 })).toMatchObject({ status: 'ok' });
  });
});
