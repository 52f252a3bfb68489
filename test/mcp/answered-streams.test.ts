/**
 * An open Streamable HTTP session keeps none of its answers: the SDK's
 * transport held every JSON-mode Response until the session closed
 * (typescript-sdk#2559), so each session that listed a large catalog kept
 * the whole listing (src/mcp/answered-streams.ts). Checked with weak
 * references to the answers the handler returned, after a forced GC.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { releaseAnsweredStreams } from '../../src/mcp/answered-streams.js';
import { mcpHttpHandler, type McpHttpHandler } from '../../src/mcp/http.js';
import { closeAll, examplesEnv } from './gateway-helpers.js';

afterEach(closeAll);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const URL_ = 'http://127.0.0.1/mcp';
const PROTOCOL = '2025-06-18';

async function post(handler: McpHttpHandler, body: unknown, session?: string): Promise<Response> {
  return handler(
    new Request(URL_, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL } : {}) },
      body: JSON.stringify(body),
    }),
  );
}

/** Open a session; its id. */
async function open(handler: McpHttpHandler): Promise<string> {
  const init = await post(handler, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'answered', version: '1' } } });
  expect(init.status).toBe(200);
  const session = init.headers.get('mcp-session-id');
  expect(session).toBeTruthy();
  await init.text();
  expect((await post(handler, { jsonrpc: '2.0', method: 'notifications/initialized' }, session!)).status).toBe(202);
  return session!;
}

/** Weak references to the answers of `requests` on one session, each read to its end. */
async function answered(handler: McpHttpHandler, session: string, requests: Array<{ method: string; params: Record<string, unknown> }>): Promise<Array<WeakRef<Response>>> {
  const refs: Array<WeakRef<Response>> = [];
  let id = 1;
  for (const r of requests) {
    const response = await post(handler, { jsonrpc: '2.0', id: id++, ...r }, session);
    expect(response.status).toBe(200);
    const json = (await response.json()) as { result?: unknown };
    expect(json.result).toBeDefined();
    refs.push(new WeakRef(response));
  }
  return refs;
}

/** How many of `refs` still reach their answer after a full GC (weak targets live to the end of the current job). */
async function kept(refs: Array<WeakRef<Response>>): Promise<number> {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  return refs.filter((r) => r.deref() !== undefined).length;
}

describe('answered Streamable HTTP requests', () => {
  it.each([
    ['tools/list', { method: 'tools/list', params: {} }],
    ['tools/call', { method: 'tools/call', params: { name: 'text.reverse', arguments: { text: 'kept?' } } }],
  ])('%s answers are not kept by the open session', async (_label, request) => {
    const { env } = await examplesEnv();
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime });
    try {
      const session = await open(handler);
      const refs = await answered(handler, session, Array.from({ length: 5 }, () => request));
      expect(handler.sessionCount).toBe(1);
      expect(await kept(refs)).toBe(0);
      // the session still answers
      expect((await answered(handler, session, [request])).length).toBe(1);
    } finally {
      await handler.close();
    }
  });

  it('answers concurrent requests of one session each with its own result, and keeps none', async () => {
    const { env } = await examplesEnv();
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime });
    try {
      const session = await open(handler);
      const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
      const responses = await Promise.all(words.map((text, i) => post(handler, { jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'text.reverse', arguments: { text } } }, session)));
      const bodies = (await Promise.all(responses.map((r) => r.json()))) as Array<{ id: number; result: { structuredContent: { reversed: string } } }>;
      expect(bodies.map((b) => [b.id, b.result.structuredContent.reversed])).toEqual(words.map((w, i) => [100 + i, [...w].reverse().join('')]));
      const refs = responses.map((r) => new WeakRef(r));
      responses.length = 0;
      expect(await kept(refs)).toBe(0);
    } finally {
      await handler.close();
    }
  });

  it('patches the SDK transport it knows and leaves any other shape alone', () => {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'x', enableJsonResponse: true });
    expect(releaseAnsweredStreams(transport)).toBe(true);
    const other = {} as unknown as WebStandardStreamableHTTPServerTransport;
    expect(releaseAnsweredStreams(other)).toBe(false);
  });
});
