/**
 * selected_over end to end: GET /search answers with a toolcap-selection
 * header (a cached answer too); POST /tools/{name}/call with that
 * `selection` records the candidates it was chosen over on the span; the
 * MCP search tool (a real MCP SDK client over Streamable HTTP) gives an id
 * that a tools/call's `_meta` passes back; a malformed id is a 400 / an
 * InvalidParams error.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mcpHttpHandler } from '../../src/mcp/http.js';
import { SELECTION_META_KEY } from '../../src/mcp/selection-meta.js';
import { Registry } from '../../src/registry/registry.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { SELECTION_ID } from '../../src/runtime/selections.js';
import type { Store } from '../../src/store/types.js';
import { exampleStack, type ExampleStack } from './example-stack.js';
import { BASE, call, cleanFolders } from './helpers.js';

let registry: Registry;
let store: Store;
let runtime: Runtime;
let app: Hono;
let mcp: ReturnType<typeof mcpHttpHandler>;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

let stack: ExampleStack;

beforeAll(async () => {
  stack = await exampleStack('toolcap-selection-', { runtime: { tracer: provider.getTracer('test') }, mcp: { tools: 'search' } });
  ({ registry, store, runtime, mcp, app } = stack);
});
beforeEach(() => exporter.reset());
afterAll(async () => {
  await stack.close();
  await provider.shutdown();
  cleanFolders();
});

const post = (path: string, body: unknown) => call(app, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const spanOf = (tool: string) => exporter.getFinishedSpans().find((s) => s.name === `execute_tool ${tool}`);
const overOf = (attrs: Record<string, unknown>) => ((attrs['toolcap.selected_over'] as string[] | undefined) ?? []).map((t) => JSON.parse(t) as { name: string; rank: number; score: number; penalties: string[] });

describe('HTTP: /search then a call naming the selection', () => {
  it('the header, fresh and from the cache (304 too), and selected_over on the span', async () => {
    const first = await call(app, '/search?q=reverse%20a%20piece%20of%20text&limit=5');
    expect(first.status).toBe(200);
    const id = first.headers.get('toolcap-selection');
    expect(id).toMatch(SELECTION_ID);
    const answer = (await first.json()) as { candidates: Array<{ name: string; rank: number; score: number }> };
    const top = answer.candidates[0]!;
    expect(top.name).toBe('text.reverse');
    expect(answer.candidates.length).toBeGreaterThan(1);

    // the same search again is answered from the cache: a new selection all the same, with the ranking
    const again = await call(app, '/search?q=reverse%20a%20piece%20of%20text&limit=5');
    const second = again.headers.get('toolcap-selection');
    expect(second).toMatch(SELECTION_ID);
    expect(second).not.toBe(id);
    const notModified = await call(app, '/search?q=reverse%20a%20piece%20of%20text&limit=5', { headers: { 'if-none-match': again.headers.get('etag')! } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('toolcap-selection')).toMatch(SELECTION_ID);

    const r = await post('/tools/text.reverse/call', { arguments: { text: 'abc' }, selection: second });
    expect(r.status).toBe(200);
    const span = spanOf('text.reverse')!;
    expect(span.attributes).toMatchObject({ 'toolcap.selection.id': second, 'toolcap.selection.found': true, 'toolcap.selection.rank': 1, 'toolcap.selection.query': 'reverse a piece of text' });
    const over = overOf(span.attributes);
    expect(over.map((c) => c.name)).toEqual(answer.candidates.slice(1).map((c) => c.name));
    expect(over.map((c) => c.score)).toEqual(answer.candidates.slice(1).map((c) => c.score));
  });

  it('a call with an id it was never given records not found; a malformed one is 400 BAD_BODY', async () => {
    const r = await post('/tools/text.reverse/call', { arguments: { text: 'abc' }, selection: 'sel_AAAAAAAAAAAAAAAAAAAAAA' });
    expect(r.status).toBe(200);
    expect(spanOf('text.reverse')!.attributes).toMatchObject({ 'toolcap.selection.found': false });
    const bad = await post('/tools/text.reverse/call', { arguments: { text: 'abc' }, selection: 'not-an-id' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'BAD_BODY', pointer: '/selection' });
  });
});

describe('MCP: toolcap_search_tools then tools/call with _meta', () => {
  it('the search answer carries the id; the call passes it back in _meta', async () => {
    const client = new Client({ name: 'selection-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { fetch: async (url, init) => app.fetch(new Request(url, init)) }));
    try {
      const found = await client.callTool({ name: 'toolcap_search_tools', arguments: { query: 'count the words of a text', limit: 5 } });
      const structured = found.structuredContent as { selection: string; matches: Array<{ name: string; rank: number }> };
      expect(structured.selection).toMatch(SELECTION_ID);
      expect((found._meta as Record<string, unknown>)[SELECTION_META_KEY]).toBe(structured.selection);
      const chosen = structured.matches.find((m) => m.name === 'text.word_count')!;
      expect(chosen).toBeDefined();

      const r = await client.callTool({ name: 'text.word_count', arguments: { text: 'one two three' }, _meta: { [SELECTION_META_KEY]: structured.selection } });
      expect(r.isError).not.toBe(true);
      const span = spanOf('text.word_count')!;
      expect(span.attributes).toMatchObject({ 'toolcap.selection.id': structured.selection, 'toolcap.selection.found': true, 'toolcap.selection.rank': chosen.rank });
      expect(overOf(span.attributes).map((c) => c.name)).toEqual(structured.matches.filter((m) => m.rank > chosen.rank).map((m) => m.name));
      expect((span.attributes['toolcap.selection.ranked_above'] as string[]).length).toBe(chosen.rank - 1);

      await expect(client.callTool({ name: 'text.word_count', arguments: { text: 'x' }, _meta: { [SELECTION_META_KEY]: 42 } })).rejects.toThrow(/selection id/);
    } finally {
      await (client.transport as StreamableHTTPClientTransport).terminateSession();
      await client.close();
    }
  });
});
