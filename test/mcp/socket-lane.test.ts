/**
 * The `/mcp` socket lane (src/server/mcp-lane.ts, src/mcp/direct-post.ts):
 * one MCP handler behind two real sockets, `listen()` (the lane first) and
 * the plain Hono adapter (no lane), so the same session answers on both.
 * Every request of the table goes to both and must get the same status,
 * headers and body; the good ones must not reach the Hono app on the lane
 * socket; the refusals the lane leaves to the app are the app's refusals.
 * The real SDK client then runs a session through the lane.
 */
import { writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ListToolsRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { DirectLane, laneRequest } from '../../src/mcp/direct-post.js';
import { MAX_BATCH, mcpHttpHandler, type McpHttpHandler } from '../../src/mcp/http.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { createApi } from '../../src/server/app.js';
import type { ApiAuth } from '../../src/server/auth.js';
import { listen, type RunningServer } from '../../src/server/listen.js';
import { closeAll, examplesEnv, openEnv, slowToolEnv, tempDir, textOf, track, writeManifest, type Env } from './gateway-helpers.js';
import { waitFor } from './helpers.js';
import { ALICE, CAROL } from './principals.js';

/** A key that authenticates but grants no role, so no `list`: refused with 403 on either path. */
const NO_ROLE: Principal = { id: 'norole', roles: [], personas: [], via: 'api-key' };
const PRINCIPALS: Record<string, Principal> = { alice: ALICE, carol: CAROL, norole: NO_ROLE };
/** Authentication by a test header: the same ApiAuth serves both sockets. */
const AUTH: ApiAuth = {
  authenticate: async (request) => {
    const who = PRINCIPALS[request.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''];
    return who ? { ok: true, principal: who } : { ok: false, code: 'INVALID_TOKEN', message: 'Unknown test token.' };
  },
};
const API_LIMIT = 64 * 1024;
const MCP_LIMIT = 4 * 1024;
const ACCEPT = 'application/json, text/event-stream';
const VERSION = '2025-06-18';

interface Setup {
  env: Env;
  handler: McpHttpHandler;
  lane: RunningServer;
  /** POSTs that reached the Hono app on the lane socket. */
  appCalls: () => number;
  plainPort: number;
  close(): Promise<void>;
}

const setups: Setup[] = [];
afterEach(async () => {
  for (const s of setups.splice(0)) await s.close();
  await closeAll();
});

async function setup(): Promise<Setup> {
  const { env } = await examplesEnv();
  const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime, maxBodyBytes: MCP_LIMIT });
  const options = { runtime: env.runtime, mcp: handler, auth: AUTH, maxBodyBytes: API_LIMIT, allowedHosts: ['127.0.0.1'], allowedOrigins: ['http://127.0.0.1'] };
  const laneApp = createApi(env.registry, options);
  const fetchSpy = vi.spyOn(laneApp, 'fetch');
  const lane = await listen(laneApp, { port: 0 });
  const plain: HttpServer = createServer(getRequestListener(createApi(env.registry, options).fetch));
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  const s: Setup = {
    env,
    handler,
    lane,
    appCalls: () => fetchSpy.mock.calls.filter(([request]) => request.method === 'POST').length,
    plainPort: (plain.address() as AddressInfo).port,
    close: async () => {
      await handler.close();
      await lane.close();
      plain.closeAllConnections();
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    },
  };
  setups.push(s);
  return s;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One raw HTTP request (node:http, so Host and Origin are ours to set). */
function raw(port: number, init: { method?: string; headers?: Record<string, string>; body?: string; path?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: init.method ?? 'POST', path: init.path ?? '/mcp', headers: init.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (!['date', 'connection', 'keep-alive'].includes(k) && v !== undefined) headers[k] = String(v);
        resolve({ status: res.statusCode ?? 0, headers, body });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A session opened by `token` through the plain socket: its id. */
async function openSession(s: Setup, token: string): Promise<string> {
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const r = await raw(s.plainPort, { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: ACCEPT }, body: JSON.stringify(init) });
  expect(r.status).toBe(200);
  const id = r.headers['mcp-session-id']!;
  await raw(s.plainPort, { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': id, 'mcp-protocol-version': VERSION }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  return id;
}

/** The parts of a call record that differ between two runs of the same call. */
const steady = (body: string): unknown => {
  try {
    return JSON.parse(body.replace(/"(callId|durationMs)":("[^"]*"|[\d.]+)/g, '"$1":"*"').replace(/"(approvalId)":"[^"]*"/g, '"$1":"*"')) as unknown;
  } catch {
    return body;
  }
};

const call = (id: number, name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** A request of the table: who sends it, to which session, with what headers and body; and whether the lane answers it itself. */
interface Case {
  name: string;
  token?: string;
  session?: 'own' | 'other' | 'unknown';
  headers?: Record<string, string>;
  body: string;
  /** The lane answers it without the Hono app. */
  onLane: boolean;
  status: number;
}

const CASES: Case[] = [
  { name: 'a good call', body: call(7, 'text.reverse', { text: 'lane' }), onLane: true, status: 200 },
  { name: 'a tool error (invalid arguments)', body: call(8, 'text.reverse', { nope: 1 }), onLane: true, status: 200 },
  { name: 'an unknown tool (protocol error)', body: call(9, 'no.such.tool', {}), onLane: true, status: 200 },
  { name: 'tools/list', body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' }), onLane: true, status: 200 },
  { name: 'an unknown session', session: 'unknown', body: call(11, 'text.reverse', { text: 'x' }), onLane: false, status: 404 },
  { name: "another principal's session", token: 'carol', body: call(12, 'text.reverse', { text: 'x' }), onLane: false, status: 404 },
  { name: 'no credentials', token: '', body: call(13, 'text.reverse', { text: 'x' }), onLane: true, status: 401 },
  { name: 'an unknown token', token: 'mallory', body: call(25, 'text.reverse', { text: 'x' }), onLane: true, status: 401 },
  { name: 'a principal without the list permission', token: 'norole', body: call(26, 'text.reverse', { text: 'x' }), onLane: true, status: 403 },
  { name: 'bad JSON', body: '{"jsonrpc":"2.0",', onLane: true, status: 400 },
  // a Web body's text() drops a leading UTF-8 BOM; the lane must read the same JSON
  { name: 'a body starting with a UTF-8 BOM', body: `\uFEFF${call(24, 'text.reverse', { text: 'bom' })}`, onLane: true, status: 200 },
  { name: 'a body over the MCP limit', body: call(14, 'text.reverse', { text: 'x'.repeat(MCP_LIMIT) }), onLane: false, status: 413 },
  { name: 'a body over the API limit', body: call(15, 'text.reverse', { text: 'x'.repeat(API_LIMIT) }), onLane: false, status: 413 },
  { name: 'an unsupported protocol version header', headers: { 'mcp-protocol-version': '1999-01-01' }, body: call(16, 'text.reverse', { text: 'x' }), onLane: true, status: 400 },
  { name: 'no Accept', headers: { accept: 'application/json' }, body: call(17, 'text.reverse', { text: 'x' }), onLane: true, status: 406 },
  { name: 'a Content-Type that is not JSON', headers: { 'content-type': 'text/plain' }, body: call(18, 'text.reverse', { text: 'x' }), onLane: true, status: 415 },
  { name: 'a notification only', body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 999 } }), onLane: true, status: 202 },
  { name: 'a batch', body: `[${call(19, 'text.reverse', { text: 'a' })},${call(20, 'text.reverse', { text: 'b' })}]`, onLane: true, status: 200 },
  { name: 'a batch of more than MAX_BATCH messages', body: `[${Array.from({ length: MAX_BATCH + 1 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 300 + i, method: 'tools/list' })).join(',')}]`, onLane: true, status: 400 },
  { name: 'not a JSON-RPC message', body: JSON.stringify({ hello: 'world' }), onLane: true, status: 400 },
  { name: 'a second initialize', body: JSON.stringify({ jsonrpc: '2.0', id: 21, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }), onLane: true, status: 400 },
  { name: 'a Host not allowed', headers: { host: 'evil.example' }, body: call(22, 'text.reverse', { text: 'x' }), onLane: false, status: 421 },
  { name: 'an Origin not allowed', headers: { origin: 'http://evil.example' }, body: call(23, 'text.reverse', { text: 'x' }), onLane: false, status: 403 },
];

describe('the /mcp socket lane answers as the Hono path does', () => {
  it.each(CASES)('$name', async (c) => {
    const s = await setup();
    const own = await openSession(s, 'alice');
    const sessionId = c.session === 'unknown' ? '00000000-0000-4000-8000-000000000000' : own;
    const token = c.token ?? 'alice';
    const headers = {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': VERSION,
      ...(token === '' ? {} : { authorization: `Bearer ${token}` }),
      ...c.headers,
    };
    const before = s.appCalls();
    const viaLane = await raw(s.lane.port, { headers, body: c.body });
    const reachedApp = s.appCalls() - before;
    const viaApp = await raw(s.plainPort, { headers, body: c.body });

    expect(viaLane.status).toBe(c.status);
    expect(viaLane.status).toBe(viaApp.status);
    // a body's length differs with the digits of durationMs: its presence is what must agree
    const { 'content-length': laneLength, ...laneHeaders } = viaLane.headers;
    const { 'content-length': appLength, ...appHeaders } = viaApp.headers;
    expect(laneHeaders).toEqual(appHeaders);
    expect(laneLength === undefined).toBe(appLength === undefined);
    expect(steady(viaLane.body)).toEqual(steady(viaApp.body));
    expect(reachedApp).toBe(c.onLane ? 0 : 1);
  });

  it('records the lane request in the HTTP metrics as the middleware does', async () => {
    const s = await setup();
    const id = await openSession(s, 'alice');
    const headers = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': id, 'mcp-protocol-version': VERSION, authorization: 'Bearer alice' };
    const count = async () => {
      const metric = await s.env.runtime.metrics.registry.getSingleMetric('toolcap_http_requests_total')?.get();
      return metric?.values.find((v) => v.labels['route'] === '/mcp' && v.labels['method'] === 'POST' && v.labels['status_class'] === '2xx')?.value ?? 0;
    };
    const start = await count();
    expect((await raw(s.lane.port, { headers, body: call(1, 'text.reverse', { text: 'x' }) })).status).toBe(200);
    expect((await raw(s.lane.port, { headers: { ...headers, authorization: 'Bearer nobody' }, body: call(2, 'text.reverse', { text: 'x' }) })).status).toBe(401);
    expect(await count()).toBe(start + 1);
    const refused = await s.env.runtime.metrics.registry.getSingleMetric('toolcap_http_requests_total')?.get();
    expect(refused?.values.find((v) => v.labels['route'] === '/mcp' && v.labels['status_class'] === '4xx')?.value).toBeGreaterThanOrEqual(1);
  });
});

/** One request written on a raw socket (headers a Node client would not send: repeated ones), and its status line's code. */
async function rawStatus(port: number, head: string, body: string): Promise<number> {
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => {
    answer += c;
    if (/\r\n\r\n/.test(answer)) socket.end();
  });
  socket.write(`POST /mcp HTTP/1.1\r\n${head}content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
}

describe('repeated headers on the lane', () => {
  it.each([
    ['a second Host not allowed', 'host: 127.0.0.1\r\nhost: evil.example\r\n', 421],
    ['a second Origin not allowed', 'host: 127.0.0.1\r\norigin: http://127.0.0.1\r\norigin: http://evil.example\r\n', 403],
  ])('%s is refused as the Hono path refuses it', async (_name, extra, status) => {
    const s = await setup();
    const id = await openSession(s, 'alice');
    const head = `${extra}authorization: Bearer alice\r\ncontent-type: application/json\r\naccept: ${ACCEPT}\r\nmcp-session-id: ${id}\r\nmcp-protocol-version: ${VERSION}\r\n`;
    const body = call(41, 'text.reverse', { text: 'x' });
    const viaApp = await rawStatus(s.plainPort, head, body);
    const viaLane = await rawStatus(s.lane.port, head, body);
    expect(viaApp).toBe(status);
    expect(viaLane).toBe(status);
  });
});

describe('a client that hangs up while the lane checks its credentials', () => {
  /** An API whose authentication of "Bearer slow" waits for `open()`: the window between the request's head and its body being read. */
  async function slowAuthSetup() {
    const { env } = await examplesEnv();
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime });
    let entered!: () => void;
    const checking = new Promise<void>((resolve) => (entered = resolve));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const auth: ApiAuth = {
      authenticate: async (request) => {
        if (request.headers.get('authorization') === 'Bearer slow') {
          entered();
          await gate;
        }
        return { ok: true, principal: ALICE };
      },
    };
    const lines: string[] = [];
    const server = await listen(createApi(env.registry, { runtime: env.runtime, mcp: handler, auth, warn: (line) => void lines.push(line) }), { port: 0 });
    setups.push({ env, handler, lane: server, appCalls: () => 0, plainPort: 0, close: async () => (await handler.close(), await server.close()) });
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const opened = await raw(server.port, { headers: { authorization: 'Bearer alice', 'content-type': 'application/json', accept: ACCEPT }, body: JSON.stringify(init) });
    const sessionId = opened.headers['mcp-session-id']!;
    const gone = async () => {
      const metric = await env.runtime.metrics.registry.getSingleMetric('toolcap_http_requests_total')?.get();
      return metric?.values.find((v) => v.labels['route'] === '/mcp' && v.labels['method'] === 'POST' && v.labels['status_class'] === '4xx')?.value ?? 0;
    };
    return { port: server.port, sessionId, checking, open, lines, gone };
  }

  it.each([
    ['whole', 0],
    ['cut short', 10],
  ])('a body sent %s: the request is ended as one that went away (499, one line), not left waiting or run for nobody', async (_name, missing) => {
    const t = await slowAuthSetup();
    const body = call(31, 'text.reverse', { text: 'left' });
    const sent = body.slice(0, body.length - missing);
    const socket = connect(t.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${t.port}\r\nauthorization: Bearer slow\r\ncontent-type: application/json\r\naccept: ${ACCEPT}\r\n` +
        `mcp-session-id: ${t.sessionId}\r\nmcp-protocol-version: ${VERSION}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${sent}`,
    );
    await t.checking;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.destroy();
    await closed;
    // let the server see the hang-up before the credentials check ends
    await new Promise((r) => setTimeout(r, 50));
    const before = await t.gone();
    t.open();
    expect(await waitFor(async () => (await t.gone()) === before + 1, 60)).toBe(true);
    expect(t.lines.filter((l) => l.includes('went away during POST /mcp'))).toHaveLength(1);
  });
});

describe('a pipelined request whose client hangs up', () => {
  it('ends its wait when the connection closes, though its response, queued behind the first, hears no close of its own', { timeout: 20_000 }, async () => {
    const env = await slowToolEnv(3000);
    const lines: string[] = [];
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime, warn: (line) => void lines.push(line) });
    const server = await listen(createApi(env.registry, { runtime: env.runtime, mcp: handler }), { port: 0 });
    setups.push({ env, handler, lane: server, appCalls: () => 0, plainPort: 0, close: async () => (await handler.close(), await server.close()) });
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const opened = await raw(server.port, { headers: { 'content-type': 'application/json', accept: ACCEPT }, body: JSON.stringify(init) });
    const sessionId = opened.headers['mcp-session-id']!;
    const head = `host: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\naccept: ${ACCEPT}\r\nmcp-session-id: ${sessionId}\r\nmcp-protocol-version: ${VERSION}\r\n`;
    const post = (id: number) => {
      const body = call(id, 'slow.wait', {});
      return `POST /mcp HTTP/1.1\r\n${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    const socket = connect(server.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(post(51) + post(52));
    await new Promise((r) => setTimeout(r, 300));
    socket.destroy();
    // both waits end at the hang-up, long before the calls do (3 s): neither keeps the session busy
    expect(await waitFor(() => lines.filter((l) => l.includes('went away during POST /mcp')).length === 2, 30)).toBe(true);
  });
});

describe('a request sent under the id of one whose client went away', () => {
  it.each([
    ['on the lane', {}],
    ['through the route (a chunked body, which the lane leaves to it)', { 'transfer-encoding': 'chunked' }],
  ])('%s: is answered when its own call ends, not held for the abandoned call', { timeout: 20_000 }, async (_how, extra: Record<string, string>) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'wait.mjs'), 'export async function wait({ ms }) { await new Promise((r) => setTimeout(r, ms)); return { waited: ms }; }\n');
    writeManifest(join(dir, 'wait.yaml'), [
      { name: 'wait.for', description: 'Waits as long as asked.', version: '1.0.0', effects: { mode: 'read', sideEffects: 'none' }, inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] }, providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './wait.mjs', export: 'wait' } }] },
      { name: 'wait.again', description: 'Waits as long as asked, too.', version: '1.0.0', effects: { mode: 'read', sideEffects: 'none' }, inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] }, providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './wait.mjs', export: 'wait' } }] },
    ]);
    const env = await openEnv([dir]);
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime, warn: () => undefined });
    const server = await listen(createApi(env.registry, { runtime: env.runtime, mcp: handler, warn: () => undefined }), { port: 0 });
    setups.push({ env, handler, lane: server, appCalls: () => 0, plainPort: 0, close: async () => (await handler.close(), await server.close()) });
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const opened = await raw(server.port, { headers: { 'content-type': 'application/json', accept: ACCEPT }, body: JSON.stringify(init) });
    const headers = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': opened.headers['mcp-session-id']!, 'mcp-protocol-version': VERSION };
    // the first try hangs (4 s) and its client gives up
    const first = httpRequest({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/mcp', headers });
    first.on('error', () => undefined);
    first.end(call(61, 'wait.for', { ms: 4000 }));
    await new Promise((r) => setTimeout(r, 300));
    first.destroy();
    await new Promise((r) => setTimeout(r, 50));
    // the next request under that id (another tool: calls of the one module tool waited for each other here) ends at once: it must not wait for the first
    const started = Date.now();
    const retry = await raw(server.port, { headers: { ...headers, ...extra }, body: call(61, 'wait.again', { ms: 10 }) });
    expect(retry.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(JSON.parse(retry.body)).toMatchObject({ id: 61, result: { structuredContent: { waited: 10 } } });
  });
});

describe('the SDK client over the lane', () => {
  it('initializes, lists, calls, hears list_changed on its GET stream and deletes its session', async () => {
    const s = await setup();
    const client = track(new Client({ name: 'lane-client', version: '1.0.0' }));
    const changed: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void changed.push(n.method));
    const transport = new StreamableHTTPClientTransport(new URL(`${s.lane.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer alice' } } });
    await client.connect(transport);
    const before = s.appCalls();
    const listed = await client.listTools();
    expect(listed.tools.map((t) => t.name)).toContain('text.reverse');
    expect(textOf(await client.callTool({ name: 'text.reverse', arguments: { text: 'abc' } }))).toBe('{"reversed":"cba"}');
    const error = await client.callTool({ name: 'text.reverse', arguments: {} });
    expect(error.isError).toBe(true);
    // the three POSTs never reached the app
    expect(s.appCalls() - before).toBe(0);
    s.handler.notifyAll();
    expect(await waitFor(() => changed.length > 0)).toBe(true);
    expect(s.handler.sessionCount).toBe(1);
    await transport.terminateSession();
    expect(s.handler.sessionCount).toBe(0);
  });
});

describe('DirectLane', () => {
  it('a request waiting when its session closes is told so, not left hanging', async () => {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'sid', enableJsonResponse: true });
    const lane = new DirectLane(transport);
    const server = new Server({ name: 'slow', version: '1' }, { capabilities: { tools: {} } });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      started();
      return new Promise<never>(() => undefined);
    });
    await server.connect(transport);
    const outcome = lane.deliver({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { headers: {} });
    await running;
    expect(lane.inFlight(1)).toBe(true);
    await transport.close();
    lane.close();
    expect(await outcome).toBe('closed');
    expect(lane.inFlight(1)).toBe(false);
  });

  it('a request whose client went away ends its wait at once, and its late answer is dropped, not handed to the transport', async () => {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'sid', enableJsonResponse: true });
    const lane = new DirectLane(transport);
    const errors: Error[] = [];
    const server = new Server({ name: 'slow', version: '1' }, { capabilities: { tools: {} } });
    server.onerror = (error) => errors.push(error);
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      started();
      await finished;
      return { tools: [] };
    });
    await server.connect(transport);
    let forget: (() => void) | undefined;
    const outcome = lane.deliver({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, { headers: {} }, (f) => (forget = f));
    await running;
    forget!();
    // the wait ends before the call does (a session must not stay busy for a client that left)
    expect(await outcome).toBe('gone');
    expect(lane.inFlight(7)).toBe(true);
    finish();
    await waitFor(() => !lane.inFlight(7));
    // the transport never saw the answer: it has no request 7 and would have reported "No connection established"
    expect(errors).toEqual([]);
    await transport.close();
  });

  it('takes one request with the headers the transport accepts, and nothing else', () => {
    const ok = { accept: ACCEPT, 'content-type': 'application/json', 'mcp-protocol-version': VERSION } as Record<string, string>;
    const header = (h: Record<string, string>) => (name: string) => h[name];
    const request = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x', arguments: {} } };
    expect(laneRequest(request, header(ok))).toEqual(request);
    // what the transport's schema refuses is the transport's to answer
    expect(laneRequest({ ...request, extra: 'key' }, header(ok))).toBeUndefined();
    expect(laneRequest(request, header({ ...ok, accept: 'application/json' }))).toBeUndefined();
    expect(laneRequest(request, header({ ...ok, 'content-type': 'text/plain; a=application/json' }))).toBeUndefined();
    expect(laneRequest(request, header({ ...ok, 'mcp-protocol-version': 'old' }))).toBeUndefined();
    expect(laneRequest([request], header(ok))).toBeUndefined();
    expect(laneRequest({ jsonrpc: '2.0', method: 'notifications/initialized' }, header(ok))).toBeUndefined();
    expect(laneRequest({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'a', version: '1' } } }, header(ok))).toBeUndefined();
    expect(laneRequest({ jsonrpc: '2.0', id: 1, result: {} }, header(ok))).toBeUndefined();
  });
});
