/**
 * The gateway over Streamable HTTP on a real socket (Hono + the SDK's HTTP
 * client transport): sessions, personas per session, list_changed over the
 * session stream, and the JSON-RPC answers to malformed requests.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpHttpHandler, type McpHttpHandler } from '../../src/mcp/http.js';
import { closeAll, examplesEnv, rejection, track, within, type Env } from './gateway-helpers.js';

afterEach(closeAll);

describe('Streamable HTTP', () => {
  async function httpEnv(): Promise<{ url: string; handler: McpHttpHandler; env: Env; stop(): Promise<void> }> {
    const { env } = await examplesEnv();
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime });
    const app = new Hono();
    app.all('/mcp', (c) => handler(c.req.raw));
    const server: HttpServer = createServer(getRequestListener(app.fetch));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      handler,
      env,
      stop: async () => {
        await handler.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  it('lists and calls per session, personas from the query or a header, and closes sessions on DELETE', async () => {
    const h = await httpEnv();
    try {
      const shared = track(new Client({ name: 'http-shared', version: '1.0.0' }));
      const sharedTransport = new StreamableHTTPClientTransport(new URL(h.url));
      await shared.connect(sharedTransport);
      const ops = track(new Client({ name: 'http-ops', version: '1.0.0' }));
      await ops.connect(new StreamableHTTPClientTransport(new URL(`${h.url}?persona=ops`)));
      const opsByHeader = track(new Client({ name: 'http-ops-header', version: '1.0.0' }));
      await opsByHeader.connect(new StreamableHTTPClientTransport(new URL(h.url), { requestInit: { headers: { 'x-toolcap-persona': 'ops' } } }));
      expect(h.handler.sessionCount).toBe(3);

      expect((await shared.listTools()).tools.map((t) => t.name)).not.toContain('ops.restart');
      expect((await ops.listTools()).tools.map((t) => t.name)).toContain('ops.restart');
      expect((await opsByHeader.listTools()).tools.map((t) => t.name)).toContain('ops.restart');

      const r = await shared.callTool({ name: 'text.reverse', arguments: { text: 'http' } });
      expect(r.structuredContent).toEqual({ reversed: 'ptth' });
      const unknown = await rejection(shared.callTool({ name: 'ops.restart', arguments: { text: 'x' } }));
      expect(unknown.code).toBe(ErrorCode.InvalidParams);

      // list_changed reaches a session over its SSE stream (sent until seen: the stream opens after initialize)
      const changed = new Promise<void>((resolve) => ops.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
      let seen = false;
      void changed.then(() => (seen = true));
      await within(
        (async () => {
          while (!seen) {
            h.handler.notifyAll();
            await new Promise((r) => setTimeout(r, 25));
          }
        })(),
        5000,
        'list_changed over HTTP',
      );
      expect(seen).toBe(true);

      await sharedTransport.terminateSession();
      expect(h.handler.sessionCount).toBe(2);
    } finally {
      await h.stop();
    }
  });

  it('answers malformed requests with JSON-RPC errors and 4xx statuses, and keeps serving', async () => {
    const h = await httpEnv();
    try {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const parse = await fetch(h.url, { method: 'POST', headers, body: '{"jsonrpc": "2.0", oops' });
      expect(parse.status).toBe(400);
      expect(((await parse.json()) as { error: { code: number } }).error.code).toBe(ErrorCode.ParseError);

      const notInit = await fetch(h.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(notInit.status).toBe(400);
      expect(((await notInit.json()) as { error: { code: number } }).error).toBeDefined();

      const put = await fetch(h.url, { method: 'PUT', headers, body: '{}' });
      expect(put.status).toBe(405);

      const get = await fetch(h.url, { method: 'GET', headers: { accept: 'text/event-stream' } });
      expect(get.status).toBe(400);

      const lost = await fetch(h.url, { method: 'POST', headers: { ...headers, 'mcp-session-id': 'no-such-session' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
      expect(lost.status).toBe(404);

      const badInit = await fetch(h.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { nonsense: true } }) });
      expect(badInit.status).toBe(400);
      expect(((await badInit.json()) as { error: { code: number } }).error.code).toBe(-32000); // not a valid initialize: no session made
      expect(h.handler.sessionCount).toBe(0);

      const client = track(new Client({ name: 'after-errors', version: '1.0.0' }));
      await client.connect(new StreamableHTTPClientTransport(new URL(h.url)));
      expect((await client.listTools()).tools.length).toBe(4);
    } finally {
      await h.stop();
    }
  });
});
