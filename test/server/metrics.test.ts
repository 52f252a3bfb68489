/**
 * GET /metrics, parsed strictly (test/helpers/prom-text.ts): the process and
 * Node.js defaults, build info, HTTP requests by route template and status
 * class, MCP sessions by transport (a real MCP SDK client over Streamable
 * HTTP), and every call outcome counted (ok, pending approval, invalid
 * arguments, not found, forbidden) with approvals by tool and event. No
 * label holds a caller's raw words.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolcapVersion } from '../../src/model/version.js';
import { Registry } from '../../src/registry/registry.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { mcpHttpHandler } from '../../src/mcp/http.js';
import { createApi } from '../../src/server/app.js';
import { routeTemplate, statusClass } from '../../src/server/http-metrics.js';
import type { Store } from '../../src/store/types.js';
import { parsePrometheusText, sampleValue, type Family } from '../helpers/prom-text.js';
import { exampleStack, type ExampleStack } from './example-stack.js';
import { BASE, call, cleanFolders } from './helpers.js';

let registry: Registry;
let store: Store;
let runtime: Runtime;
let app: Hono;
let mcp: ReturnType<typeof mcpHttpHandler>;

let stack: ExampleStack;

beforeAll(async () => {
  stack = await exampleStack('toolcap-metrics-');
  ({ registry, store, runtime, mcp, app } = stack);
});

afterAll(async () => {
  await stack.close();
  cleanFolders();
});

const post = (path: string, body: unknown) => call(app, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function scrape(): Promise<Map<string, Family>> {
  const res = await call(app, '/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

describe('route templates and status classes (bounded labels)', () => {
  it.each([
    ['/tools', '/tools'],
    ['/tools/text.reverse', '/tools/{name}'],
    ['/tools/text.reverse/call', '/tools/{name}/call'],
    ['/tools/learned', '/tools/learned'],
    ['/approvals/abc/approve', '/approvals/{id}/approve'],
    ['/mcp', '/mcp'],
    ['/metrics/', '/metrics'],
    ['/no/such/path', 'unmatched'],
    ['/tools/a/b/c/d', 'unmatched'],
  ])('%s is %s', (path, template) => expect(routeTemplate(path)).toBe(template));
  it.each([[200, '2xx'], [202, '2xx'], [304, '3xx'], [404, '4xx'], [499, '4xx'], [503, '5xx']])('%i is %s', (status, cls) => expect(statusClass(status)).toBe(cls));
});

describe('GET /metrics', () => {
  it('every call outcome, approvals by tool, HTTP requests, MCP sessions, build info and the process defaults', async () => {
    expect((await post('/tools/text.reverse/call', { arguments: { text: 'abc' } })).status).toBe(200);
    expect((await post('/tools/text.reverse/call', { arguments: { text: 42 } })).status).toBe(400);
    expect((await post('/tools/no-such-tool-xyz/call', { arguments: {} })).status).toBe(404);
    const pending = await post('/tools/notes.append/call', { arguments: { line: 'metrics test' } });
    expect(pending.status).toBe(202);
    const { approval } = (await pending.json()) as { approval: { id: string } };
    expect((await call(app, `/approvals/${approval.id}/deny`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    // an approver may not call: FORBIDDEN, counted under the tool it asked for
    const approver: Principal = { id: 'reviewer', roles: ['approver'], personas: ['*'], via: 'key' as Principal['via'] };
    await expect(runtime.call('text.reverse', { text: 'x' }, { principal: approver })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await call(app, '/no/such/path')).status).toBe(404);

    // a real MCP client over Streamable HTTP, in process
    const client = new Client({ name: 'metrics-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { fetch: async (url, init) => app.fetch(new Request(url, init)) }));
    const during = await scrape();
    expect(sampleValue(during, 'toolcap_mcp_sessions_active', { transport: 'streamable_http' })).toBe(1);
    // DELETE closes the session on the server
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();

    const m = await scrape();
    const calls = (labels: Record<string, string>) => sampleValue(m, 'toolcap_tool_calls_total', labels);
    expect(calls({ tool: 'text.reverse', outcome: 'ok' })).toBe(1);
    expect(calls({ tool: 'text.reverse', outcome: 'INVALID_ARGUMENTS' })).toBe(1);
    expect(calls({ tool: '(unknown)', outcome: 'TOOL_NOT_FOUND' })).toBe(1);
    expect(calls({ tool: 'notes.append', outcome: 'pending_approval' })).toBe(1);
    expect(calls({ tool: 'text.reverse', outcome: 'FORBIDDEN' })).toBe(1);
    expect(sampleValue(m, 'toolcap_approvals_total', { event: 'requested', tool: 'notes.append' })).toBe(1);
    expect(sampleValue(m, 'toolcap_approvals_total', { event: 'denied', tool: 'notes.append' })).toBe(1);

    const http = (labels: Record<string, string>) => sampleValue(m, 'toolcap_http_requests_total', labels);
    expect(http({ method: 'POST', route: '/tools/{name}/call', status_class: '2xx' })).toBe(2);
    expect(http({ method: 'POST', route: '/tools/{name}/call', status_class: '4xx' })).toBe(2);
    expect(http({ method: 'POST', route: '/approvals/{id}/deny', status_class: '2xx' })).toBe(1);
    expect(http({ method: 'GET', route: 'unmatched', status_class: '4xx' })).toBe(1);
    expect(http({ method: 'POST', route: '/mcp', status_class: '2xx' })).toBeGreaterThan(0);
    expect(sampleValue(m, 'toolcap_http_request_duration_seconds_count', { method: 'POST', route: '/tools/{name}/call' })).toBe(4);

    expect(sampleValue(m, 'toolcap_mcp_sessions_opened_total', { transport: 'streamable_http' })).toBe(1);
    expect(sampleValue(m, 'toolcap_mcp_sessions_active', { transport: 'streamable_http' })).toBe(0);
    expect(sampleValue(m, 'toolcap_mcp_sessions_active', { transport: 'stdio' })).toBe(0);

    expect(sampleValue(m, 'toolcap_build_info', { version: toolcapVersion(), node_version: process.versions.node })).toBe(1);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_version_info']) {
      expect(m.has(name), name).toBe(true);
    }
    expect(m.get('toolcap_tool_calls_total')?.type).toBe('counter');
    expect(m.get('toolcap_mcp_sessions_active')?.type).toBe('gauge');
    expect(m.get('toolcap_http_request_duration_seconds')?.type).toBe('histogram');

    // no label value is a caller's raw path or tool name
    const values = [...m.values()].flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)));
    expect(values.filter((v) => v.includes('no-such') || v.includes('/no/such'))).toEqual([]);
  });

  it('a second API over the same runtime shares the series (no duplicate registration)', async () => {
    const again = createApi(registry, { runtime });
    expect((await call(again, '/tools')).status).toBe(200);
    const res = await call(again, '/metrics');
    expect(res.status).toBe(200);
    const m = parsePrometheusText(await res.text());
    expect(sampleValue(m, 'toolcap_http_requests_total', { method: 'GET', route: '/tools', status_class: '2xx' })).toBeGreaterThan(0);
  });
});

describe('docs/observability.md', () => {
  it('lists every toolcap series /metrics has, with its type, and no other', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync('docs/observability.md', 'utf8');
    const rows = [...doc.matchAll(/^\| `(toolcap_[a-z_]+)` \| (counter|gauge|histogram) \|/gm)].map((m) => [m[1], m[2]]);
    const scraped = [...(await scrape()).values()].filter((f) => f.name.startsWith('toolcap_')).map((f) => [f.name, f.type]);
    expect(rows.sort()).toEqual(scraped.sort());
  });
});
