/**
 * The Streamable HTTP handler with principals (as the server passes them
 * after authenticating): the elicitation regression of issue 11 over a real
 * socket with the SDK client, sessions bound to their principal, the session
 * caps, idle expiry, personas at initialize, and the body limit on chunked
 * bodies.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from '../../src/mcp/http.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import type { RuntimeOptions } from '../../src/runtime/runtime.js';
import { closeAll, errorMeta, examplesEnv, textOf, track, type Env } from './gateway-helpers.js';
import { waitFor } from './helpers.js';
import { ALICE, BOB, CAROL, LOCAL } from './principals.js';

const handlers: McpHttpHandler[] = [];
afterEach(async () => {
  for (const h of handlers.splice(0)) await h.close();
  await closeAll();
});

const PRINCIPALS: Record<string, Principal> = { alice: ALICE, bob: BOB, carol: CAROL, local: LOCAL };
const URL_ = 'http://127.0.0.1/mcp';
const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

async function handlerEnv(options: Partial<McpHttpOptions> = {}, runtimeOptions: Partial<RuntimeOptions> = {}): Promise<{ handler: McpHttpHandler; env: Env }> {
  const { env } = await examplesEnv(runtimeOptions);
  const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime, ...options });
  handlers.push(handler);
  return { handler, env };
}

/** The handler's answer to one request, as `principal` (undefined: none). */
function send(handler: McpHttpHandler, principal: Principal | undefined, init: { method?: string; body?: unknown; session?: string; query?: string }): Promise<Response> {
  const headers: Record<string, string> = { ...JSON_HEADERS, ...(init.session ? { 'mcp-session-id': init.session } : {}) };
  const method = init.method ?? 'POST';
  const request = new Request(`${URL_}${init.query ?? ''}`, { method, headers, ...(method === 'POST' ? { body: JSON.stringify(init.body) } : {}) });
  return handler(request, { principal });
}

/** Open a session as `principal`: its id, or the failed answer. */
async function openSession(handler: McpHttpHandler, principal: Principal | undefined, query = ''): Promise<string | Response> {
  const r = await send(handler, principal, { body: INITIALIZE, query });
  return r.status === 200 ? r.headers.get('mcp-session-id')! : r;
}

const errorOf = async (r: Response) => ((await r.json()) as { error: { code: number; message: string; data?: Record<string, unknown> } }).error;

describe('the elicitation regression over HTTP', () => {
  it('a client that accepts elicitations by itself cannot approve a write; a read where config allows it can', async () => {
    const { handler, env } = await handlerEnv({}, { selfApproval: true, rules: [{ tools: ['text.reverse'], reason: 'reviewed reads' }] });
    const app = new Hono();
    app.all('/mcp', (c) => handler(c.req.raw, { principal: PRINCIPALS[c.req.header('x-test-principal') ?? ''] }));
    const server: HttpServer = createServer(getRequestListener(app.fetch));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = track(new Client({ name: 'auto-yes', version: '1.0.0' }, { capabilities: { elicitation: {} } }));
      const asked: string[] = [];
      client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
        asked.push(request.params.message);
        return { action: 'accept', content: { approve: true } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { 'x-test-principal': 'local' } } }));

      const write = await client.callTool({ name: 'notes.append', arguments: { line: 'over http' } });
      expect(asked).toEqual([]);
      expect(errorMeta(write)).toMatchObject({ code: 'APPROVAL_REQUIRED', tool: 'notes.append' });
      const id = errorMeta(write)['approvalId'] as string;
      expect(await env.runtime.getApproval(id)).toMatchObject({ status: 'pending', requestedByPrincipal: 'local' });

      // the elicitation travels over the session's event stream
      const read = await client.callTool({ name: 'text.reverse', arguments: { text: 'http' } });
      expect(read.isError, textOf(read)).toBeFalsy();
      expect(read.structuredContent).toEqual({ reversed: 'ptth' });
      expect(asked).toHaveLength(1);
      const [approval] = await env.runtime.listApprovals({ tool: 'text.reverse' });
      expect(approval).toMatchObject({ status: 'executed', decidedVia: 'elicitation', decidedByPrincipal: 'local' });
    } finally {
      await handlers.splice(0).pop()?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('sessions', () => {
  it("answers another principal's session id as unknown (404)", async () => {
    const { handler } = await handlerEnv();
    const id = await openSession(handler, ALICE);
    expect(typeof id).toBe('string');
    expect((await send(handler, ALICE, { body: LIST, session: id as string })).status).toBe(200);
    for (const other of [CAROL, undefined]) {
      const r = await send(handler, other, { body: LIST, session: id as string });
      expect(r.status).toBe(404);
      expect((await errorOf(r)).code).toBe(-32001);
    }
    expect((await send(handler, CAROL, { method: 'DELETE', session: id as string })).status).toBe(404);
    expect(handler.sessionCount).toBe(1);
  });

  it('caps sessions per principal and in all: 429 with a JSON-RPC error, room again after a DELETE', async () => {
    const { handler } = await handlerEnv({ sessions: { maxPerPrincipal: 2, maxTotal: 3 } });
    const a1 = await openSession(handler, ALICE);
    const a2 = await openSession(handler, ALICE);
    expect([typeof a1, typeof a2]).toEqual(['string', 'string']);
    const a3 = (await openSession(handler, ALICE)) as Response;
    expect(a3.status).toBe(429);
    const perPrincipal = await errorOf(a3);
    expect(perPrincipal.data).toEqual({ code: 'TOO_MANY_SESSIONS', limit: 2 });
    expect(perPrincipal.message).toContain('"alice"');

    expect(typeof (await openSession(handler, CAROL))).toBe('string');
    const total = (await openSession(handler, BOB)) as Response;
    expect(total.status).toBe(429);
    expect((await errorOf(total)).data).toEqual({ code: 'TOO_MANY_SESSIONS', limit: 3 });
    expect(handler.sessionCount).toBe(3);

    // the SDK client sees the refusal as a failed connect
    const refused = track(new Client({ name: 'over-cap', version: '1.0.0' }));
    const viaHandler = (input: string | URL | Request, init?: RequestInit) => handler(new Request(input, init), { principal: ALICE });
    await expect(refused.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: viaHandler }))).rejects.toThrow();

    expect((await send(handler, ALICE, { method: 'DELETE', session: a1 as string })).status).toBe(200);
    expect(typeof (await openSession(handler, ALICE))).toBe('string');
  });

  it('closes a session idle for idleSec', async () => {
    const { handler } = await handlerEnv({ sessions: { idleSec: 0.05 } });
    const id = await openSession(handler, ALICE);
    expect(handler.sessionCount).toBe(1);
    expect(await waitFor(() => handler.sessionCount === 0, 100, 20)).toBe(true);
    expect((await send(handler, ALICE, { body: LIST, session: id as string })).status).toBe(404);
  });

  it('resolves the persona for the principal at initialize: 404 unknown, 403 not granted, with the allowed ones', async () => {
    const { handler } = await handlerEnv();
    const unknown = (await openSession(handler, ALICE, '?persona=Ops')) as Response;
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).data).toEqual({ code: 'UNKNOWN_PERSONA', allowed: ['ops'] });
    const forbidden = (await openSession(handler, BOB, '?persona=ops')) as Response;
    expect(forbidden.status).toBe(403);
    expect((await errorOf(forbidden)).data).toEqual({ code: 'FORBIDDEN_PERSONA', allowed: [] });
    expect(handler.sessionCount).toBe(0);
    expect(typeof (await openSession(handler, ALICE, '?persona=ops'))).toBe('string');
  });
});

describe('the body limit', () => {
  /** A chunked body that never ends: only a reader that stops at the limit answers. */
  const endless = () =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(512).fill(0x20));
      },
    });
  const chunked = (session?: string) =>
    new Request(URL_, { method: 'POST', headers: { ...JSON_HEADERS, ...(session ? { 'mcp-session-id': session } : {}) }, body: endless(), duplex: 'half' } as RequestInit);

  it('holds for chunked bodies, with and without a session', async () => {
    const { handler } = await handlerEnv({ maxBodyBytes: 4096 });
    const before = await handler(chunked(), { principal: ALICE });
    expect(before.status).toBe(413);
    const id = (await openSession(handler, ALICE)) as string;
    const within = await handler(chunked(id), { principal: ALICE });
    expect(within.status).toBe(413);
    expect((await send(handler, ALICE, { body: LIST, session: id })).status).toBe(200);
  });
});
