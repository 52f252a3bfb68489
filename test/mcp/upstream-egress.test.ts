/**
 * The gateway's upstream MCP hop under the egress policy and the size limit
 * (src/mcp/upstream-fetch.ts, lean-fetch.ts, upstream-redirects.ts): real
 * MCP servers (the SDK's Server over its Streamable HTTP server transport)
 * on a loopback node:http server, called by McpClients through the SDK's
 * client transports. A host name is resolved by an injected resolver, as
 * the egress tests do, so "DNS" can answer a metadata or private address.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createToolcap } from '../../src/host.js';
import { McpClients } from '../../src/mcp/clients.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import type { McpConfig, McpServerConfig } from '../../src/mcp/config.js';
import { UpstreamRedirectError, UpstreamTooLargeError } from '../../src/mcp/upstream-errors.js';
import { upstreamFetch } from '../../src/mcp/upstream-fetch.js';
import { EgressError, type Resolver } from '../../src/runtime/containment/egress.js';
import { ProviderError } from '../../src/runtime/providers/types.js';
import { closeAll, connect, errorMeta, textOf } from './gateway-helpers.js';
import { mcpConfig, removeTemps, serverConfig, tempDir, waitFor } from './helpers.js';

/** The limit the tests configure: small, so an oversize answer is cheap to make. */
const LIMIT = 64 * 1024;
const BIG = 3 * LIMIT;

let http: HttpServer;
let port: number;
/** The loopback origin of the test server. */
let base: string;
/** Requests the server saw: method, path, headers. */
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];
/** Resolved when a flood's response is closed by the client (its connection dropped). */
let floodClosed: Promise<void> = Promise.resolve();

/** The tools every test server lists; `fat` adds one whose description is past the limit. */
function mcpServer(fat: boolean, fatInstructions = false): Server {
  const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} }, ...(fatInstructions ? { instructions: 'i'.repeat(BIG) } : {}) });
  const tools = [
    { name: 'echo', description: 'Echo the message.', inputSchema: { type: 'object' as const, properties: { message: { type: 'string' } } } },
    { name: 'big', description: `Answer with ${BIG} characters.`, inputSchema: { type: 'object' as const, properties: {} } },
    ...(fat ? [{ name: 'fat', description: 'x'.repeat(BIG), inputSchema: { type: 'object' as const, properties: {} } }] : []),
  ];
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    // a server's own error answer dressed as toolcap's size refusal: it cannot know the marker
    if (request.params.name === 'forged') throw new McpError(ErrorCode.InternalError, `MCP server "sseup": an event-stream message exceeds ${LIMIT} bytes`, { oversize: String(request.params.arguments?.marker) });
    const text = request.params.name === 'big' ? 'y'.repeat(BIG) : `Echo: ${String(request.params.arguments?.message)}`;
    return { content: [{ type: 'text', text }] };
  });
  return server;
}

/** A stateless SDK server (no session id generator) for one request: JSON answers (`json`) or event streams. */
async function answerMcp(req: IncomingMessage, res: ServerResponse, body: unknown, options: { json: boolean; fat: boolean }): Promise<void> {
  const server = mcpServer(options.fat);
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: options.json });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** A tools/call of `flood`: an event stream whose one message never ends (64 KiB more every few ms). */
function flood(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write('event: message\ndata: "');
  const timer = setInterval(() => res.write('z'.repeat(64 * 1024)), 2);
  floodClosed = new Promise((done) => res.on('close', () => (clearInterval(timer), done())));
}

/** The HTTP+SSE sessions of /legacy, by id. */
const legacy = new Map<string, SSEServerTransport>();

async function route(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
  const body: unknown = raw === '' ? undefined : JSON.parse(raw);
  const path = new URL(req.url ?? '/', base).pathname;
  switch (path) {
    case '/mcp':
      if ((body as { params?: { name?: string } } | undefined)?.params?.name === 'flood') return flood(res);
      return answerMcp(req, res, body, { json: false, fat: false });
    case '/mcp-json':
      return answerMcp(req, res, body, { json: true, fat: false });
    case '/mcp-fat':
      return answerMcp(req, res, body, { json: true, fat: true });
    case '/legacy/sse':
    case '/legacy-fat/sse': {
      // the older HTTP+SSE transport: answers come on this one stream (legacy-fat: an initialize answer past the limit)
      const transport = new SSEServerTransport('/legacy/messages', res);
      legacy.set(transport.sessionId, transport);
      await mcpServer(false, path === '/legacy-fat/sse').connect(transport);
      return;
    }
    case '/legacy/messages': {
      const transport = legacy.get(new URL(req.url ?? '/', base).searchParams.get('sessionId') ?? '');
      if (!transport) return void res.writeHead(404).end();
      return transport.handlePostMessage(req, res, body);
    }
    case '/to-metadata':
      res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    case '/to-private':
      res.writeHead(307, { location: `http://10.1.2.3:${port}/mcp` }).end();
      return;
    case '/to-name':
      res.writeHead(307, { location: `http://rebound.test:${port}/mcp` }).end();
      return;
    case '/to-localhost':
      res.writeHead(307, { location: `http://localhost:${port}/echo-headers` }).end();
      return;
    case '/echo-headers':
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
      return;
    default:
      res.writeHead(404).end();
  }
}

beforeAll(async () => {
  http = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      route(req, res, raw).catch(() => res.destroy());
    });
  });
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  port = (http.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await closeAll();
  http.closeAllConnections();
  await new Promise((done) => http.close(done));
  removeTemps();
});

const open: McpClients[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** McpClients for `servers`, started; with `options` for egress and DNS. */
async function started(servers: McpServerConfig[], options: { egress?: { allow: string[] }; resolver?: Resolver; maxResponseBytes?: number; retryMs?: number; warn?: (message: string) => void } = {}): Promise<McpClients> {
  const config: McpConfig = { ...mcpConfig(servers), ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}) };
  const clients = new McpClients(config, {
    cacheDir: tempDir(),
    backoff: { initialMs: options.retryMs ?? 60_000, maxMs: options.retryMs ?? 60_000 },
    ...(options.egress ? { egress: options.egress } : {}),
    ...(options.resolver ? { resolver: options.resolver } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
  });
  open.push(clients);
  await clients.start();
  return clients;
}

const httpServer = (name: string, url: string, headers: Record<string, string> = {}, transport: 'http' | 'sse' = 'http') => serverConfig(name, { transport, url, headers });
const signal = () => AbortSignal.timeout(15_000);
/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value).slice(0, 200)}`);
  expect(outcome.error).toBeInstanceOf(ProviderError);
  return outcome.error as ProviderError;
}
const statusOf = (clients: McpClients, name: string) => clients.status().find((s) => s.server === name);

describe('the upstream hop: answers past mcp.maxResponseBytes', () => {
  it('a JSON answer past the limit fails that call with RESPONSE_TOO_LARGE naming the server and the limit; the next call works', async () => {
    const clients = await started([httpServer('jsonup', `${base}/mcp-json`)], { maxResponseBytes: LIMIT });
    expect(statusOf(clients, 'jsonup')?.state).toBe('up');
    const err = await rejection(clients.callTool('jsonup', 'big', {}, signal()));
    expect(err).toMatchObject({ code: 'RESPONSE_TOO_LARGE', detail: { limit: LIMIT, part: 'body' } });
    // the server named once, by the call's own words
    expect(err.message).toBe(`MCP tool "big" on server "jsonup": the answer exceeds ${LIMIT} bytes (mcp.maxResponseBytes); the connection was dropped`);
    expect(await clients.callTool('jsonup', 'echo', { message: 'after' }, signal())).toEqual({ content: [{ type: 'text', text: 'Echo: after' }] });
  });

  it('an event-stream message past the limit fails that call at once with RESPONSE_TOO_LARGE naming the server and the limit; the next call works', async () => {
    const clients = await started([httpServer('sseup', `${base}/mcp`)], { maxResponseBytes: LIMIT });
    const err = await rejection(clients.callTool('sseup', 'big', {}, signal()));
    // toolcap's own error answer, told apart from the server's: the router fails over rather than download it again
    expect(err).toMatchObject({ code: 'RESPONSE_TOO_LARGE', detail: { limit: LIMIT, part: 'event' } });
    expect(err.message).toBe(`MCP tool "big" on server "sseup": an event-stream message exceeds ${LIMIT} bytes (mcp.maxResponseBytes); the connection was dropped`);
    expect(await clients.callTool('sseup', 'echo', { message: 'still here' }, signal())).toEqual({ content: [{ type: 'text', text: 'Echo: still here' }] });
  });

  it("a server's own JSON-RPC error that imitates the size refusal stays the server's error (PROVIDER_ERROR)", async () => {
    const clients = await started([httpServer('sseup', `${base}/mcp`)], { maxResponseBytes: LIMIT });
    for (const marker of ['', 'undefined', '00000000-0000-4000-8000-000000000000']) {
      const err = await rejection(clients.callTool('sseup', 'forged', { marker }, signal()));
      expect(err.code).toBe('PROVIDER_ERROR');
    }
  });

  it('an endless event-stream message is cut at the limit: the call fails in time, the connection is dropped, the server stays usable', async () => {
    const clients = await started([httpServer('flood', `${base}/mcp`)], { maxResponseBytes: LIMIT });
    const started_ = Date.now();
    const err = await rejection(clients.callTool('flood', 'flood', {}, signal()));
    expect(err).toMatchObject({ code: 'RESPONSE_TOO_LARGE', message: expect.stringContaining(`on server "flood": an event-stream message exceeds ${LIMIT} bytes`) });
    expect(Date.now() - started_).toBeLessThan(10_000);
    // the server sees its response closed: toolcap dropped the connection rather than reading on
    await floodClosed;
    expect(await clients.callTool('flood', 'echo', { message: 'next' }, signal())).toEqual({ content: [{ type: 'text', text: 'Echo: next' }] });
  });

  it('HTTP+SSE: a message past the limit on the one stream fails the call at once with the limit named; the server reconnects and the next call works', async () => {
    const warnings: string[] = [];
    const clients = await started([httpServer('legacy', `${base}/legacy/sse`, {}, 'sse')], { maxResponseBytes: LIMIT, retryMs: 50, warn: (m) => warnings.push(m) });
    expect(statusOf(clients, 'legacy')?.state).toBe('up');
    const started_ = Date.now();
    const err = await rejection(clients.callTool('legacy', 'big', {}, signal()));
    expect(err).toMatchObject({ code: 'RESPONSE_TOO_LARGE', detail: { limit: LIMIT, part: 'event' } });
    expect(err.message).toBe(`MCP tool "big" on server "legacy": an event-stream message exceeds ${LIMIT} bytes (mcp.maxResponseBytes); the connection was dropped`);
    expect(Date.now() - started_).toBeLessThan(10_000);
    expect(await waitFor(() => statusOf(clients, 'legacy')?.state === 'up')).toBe(true);
    expect(await clients.callTool('legacy', 'echo', { message: 'again' }, signal())).toEqual({ content: [{ type: 'text', text: 'Echo: again' }] });
    // the operator is told too, and the server's last error says why it reconnected
    expect(warnings.some((w) => w.includes(`MCP server "legacy": an event-stream message exceeds ${LIMIT} bytes`))).toBe(true);
    expect(warnings.some((w) => w.startsWith('MCP server "legacy" is down (MCP server "legacy": an event-stream message exceeds'))).toBe(true);
  });

  it('HTTP+SSE: an initialize answer past the limit fails the connect at once (not at the connect timeout), with the limit named', async () => {
    const warnings: string[] = [];
    const started_ = Date.now();
    const clients = await started([httpServer('fatinit', `${base}/legacy-fat/sse`, {}, 'sse')], { maxResponseBytes: LIMIT, retryMs: 60_000, warn: (m) => warnings.push(m) });
    expect(Date.now() - started_).toBeLessThan(10_000);
    const status = statusOf(clients, 'fatinit');
    expect(status?.state).toBe('down');
    expect(status?.lastError).toBe(`could not connect: MCP server "fatinit": an event-stream message exceeds ${LIMIT} bytes (mcp.maxResponseBytes); the connection was dropped`);
  });

  it('a tools/list past the limit fails discovery with the limit named; the server stays up', async () => {
    const clients = await started([httpServer('fat', `${base}/mcp-fat`)], { maxResponseBytes: LIMIT });
    expect(statusOf(clients, 'fat')).toMatchObject({ state: 'up', tools: 0 });
    expect(statusOf(clients, 'fat')?.lastError).toContain(`tools/list failed: MCP server "fat": the answer exceeds ${LIMIT} bytes (mcp.maxResponseBytes)`);
    const [outcome] = await clients.discover('fat');
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome?.error).toContain(`${LIMIT} bytes`);
  });
});

describe('the upstream hop: DNS answers under the egress rules', () => {
  const answering =
    (address: string): Resolver =>
    async () => [{ address, family: 4 }];

  it.each([
    ['a metadata address', '169.254.169.254', 'metadata'],
    ['a private address', '10.0.0.5', 'private'],
    ['loopback, by name', '127.0.0.1', 'loopback'],
  ])('a server name resolving to %s is refused before anything is sent', async (_what, address, kind) => {
    const before = seen.length;
    const clients = await started([httpServer('named', `http://mcp.test:${port}/mcp`)], { resolver: answering(address) });
    const status = statusOf(clients, 'named');
    expect(status?.state).toBe('down');
    expect(status?.lastError).toContain(`mcp.test resolves to ${address} (${kind}), which egress.allow does not list`);
    expect(seen.length).toBe(before);
    const err = await rejection(clients.callTool('named', 'echo', { message: 'x' }, signal()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
  });

  it('a server name resolving to loopback connects when egress.allow lists the address, to exactly that address; the default limit lets a large answer through', async () => {
    const clients = await started([httpServer('named', `http://mcp.test:${port}/mcp`)], { resolver: answering('127.0.0.1'), egress: { allow: ['127.0.0.1'] } });
    expect(statusOf(clients, 'named')?.state).toBe('up');
    expect(await clients.callTool('named', 'echo', { message: 'pinned' }, signal())).toEqual({ content: [{ type: 'text', text: 'Echo: pinned' }] });
    expect(seen.at(-1)?.headers.host).toBe(`mcp.test:${port}`);
    // the default limit (10 MiB) lets an ordinary large answer through
    const value = (await clients.callTool('named', 'big', {}, signal())) as { content: Array<{ text: string }> };
    expect(value.content[0]?.text).toHaveLength(BIG);
  });
});

describe('the upstream hop: redirects under the egress rules', () => {
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' };

  it.each([
    ['the metadata address', '/to-metadata', '169.254.169.254'],
    ['a private address not listed', '/to-private', '10.1.2.3'],
  ])('a redirect to %s is refused by name: nothing is sent there', async (_what, path, address) => {
    const up = upstreamFetch('redir', `${base}/mcp`);
    try {
      const failure = await up.fetch(`${base}${path}`, post).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(UpstreamRedirectError);
      expect((failure as UpstreamRedirectError).message).toContain(`MCP server "redir": redirect refused by egress policy: ${address}`);
    } finally {
      await up.close();
    }
  });

  it('a redirect to a name the policy allows but whose DNS answer is the metadata address is refused at connect', async () => {
    const up = upstreamFetch('redir', `${base}/mcp`, { egress: { allow: ['*'] }, resolver: async () => [{ address: '169.254.169.254', family: 4 }] });
    try {
      const failure = await up.fetch(`${base}/to-name`, post).then(
        () => undefined,
        (error: unknown) => error,
      );
      let cause: unknown = failure;
      while (cause instanceof Error && !(cause instanceof EgressError)) cause = cause.cause;
      expect(cause).toBeInstanceOf(EgressError);
      expect(cause).toMatchObject({ code: 'ADDRESS_NOT_ALLOWED', address: '169.254.169.254' });
    } finally {
      await up.close();
    }
  });

  it("a redirect to another origin the policy allows drops the credentials and the server's configured headers", async () => {
    const up = upstreamFetch('redir', `${base}/mcp`, { egress: { allow: ['localhost', '127.0.0.1'] }, resolver: async () => [{ address: '127.0.0.1', family: 4 }], credentialHeaders: ['x-api-key'] });
    try {
      const response = await up.fetch(`${base}/to-localhost`, { method: 'POST', headers: { authorization: 'Bearer secret', 'x-api-key': 'k-123', 'mcp-session-id': 's' }, body: '{}' });
      const headers = (await response.json()) as Record<string, string>;
      expect(headers.host).toBe(`localhost:${port}`);
      expect(headers.authorization).toBeUndefined();
      expect(headers['x-api-key']).toBeUndefined();
      expect(headers['mcp-session-id']).toBe('s');
    } finally {
      await up.close();
    }
  });

  it('McpClients: a server that redirects to another origin is not followed there; the server is down with the reason', async () => {
    const before = seen.length;
    const clients = await started([httpServer('hop', `${base}/to-localhost`)]);
    const status = statusOf(clients, 'hop');
    expect(status?.state).toBe('down');
    expect(status?.lastError).toMatch(/redirect/i);
    // only the first URL was asked: the hop to localhost never happened
    expect(seen.slice(before).map((r) => r.url)).toEqual(['/to-localhost']);
  });
});

describe('through the gateway, from a config file', () => {
  it('discovers and calls an HTTP server; an answer past the configured mcp.maxResponseBytes is a tool error naming the server and the limit, and the next call works', { timeout: 30_000 }, async () => {
    const dir = tempDir('toolcap-upstream-host-');
    mkdirSync(join(dir, 'm'));
    writeFileSync(join(dir, 'm', 'tools.yaml'), 'toolcap: 1\ntools: []\n');
    writeFileSync(
      join(dir, 'toolcap.config.yaml'),
      `sources: [m]\nstore: { path: .toolcap/t.db }\nmcp:\n  maxResponseBytes: ${LIMIT}\n  servers:\n    up:\n      url: ${base}/mcp-json\n      defaults: { sideEffects: none, consent: false }\n`,
    );
    const toolcap = await createToolcap(join(dir, 'toolcap.config.yaml'), { traces: false, warn: () => {} });
    try {
      expect(await waitFor(() => toolcap.registry.snapshot().tools.some((t) => t.name === 'mcp.up.big'))).toBe(true);
      const client = await connect(createGatewayServer({ registry: toolcap.registry, runtime: toolcap.runtime }));
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed).toEqual(expect.arrayContaining(['mcp.up.echo', 'mcp.up.big']));
      expect(textOf(await client.callTool({ name: 'mcp.up.echo', arguments: { message: 'via the gateway' } }))).toContain('Echo: via the gateway');
      const big = await client.callTool({ name: 'mcp.up.big', arguments: {} });
      expect(big.isError).toBe(true);
      // the runtime reports a provider's failure as PROVIDER_ERROR with the provider's own code in its words
      expect(errorMeta(big)).toMatchObject({ code: 'PROVIDER_ERROR' });
      expect(textOf(big)).toContain('(RESPONSE_TOO_LARGE)');
      expect(textOf(big)).toContain(`MCP tool "big" on server "up": the answer exceeds ${LIMIT} bytes (mcp.maxResponseBytes)`);
      expect(textOf(big)).not.toContain('MCP server "up"');
      // not retried on the same server: the same limit would refuse it again
      expect(textOf(big)).toContain('Not retried: every provider left would meet the same refusal again');
      expect(textOf(await client.callTool({ name: 'mcp.up.echo', arguments: { message: 'after' } }))).toContain('Echo: after');
    } finally {
      await toolcap.close();
    }
  });
});
