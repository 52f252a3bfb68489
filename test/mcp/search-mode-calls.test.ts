/**
 * Calls in search mode, with the SDK client: `toolcap_call_tool` and a
 * direct `tools/call` take the gateway's one call path (same results, same
 * audit lines, a write needing approval stays pending either way); tools not
 * found yet are callable, hidden ones are not; `toolcap mcp serve --tools
 * search` over stdio (and `mcp.tools: search` in the config); `/mcp` over
 * Streamable HTTP with list_changed on the session stream.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { run } from '../../src/cli/program.js';
import { APPROVAL_STATUS_TOOL } from '../../src/mcp/approval-status.js';
import { mcpHttpHandler } from '../../src/mcp/http.js';
import { CALL_TOOL, SEARCH_TOOL } from '../../src/mcp/search-mode.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import type { AuditRecord } from '../../src/store/types.js';
import { closeAll, connect, copyExamples, errorMeta, examplesEnv, OPS_TOOL, rejection, StreamClientTransport, textOf, track, within, writeManifest, type Env } from './gateway-helpers.js';
import { LOCAL } from './principals.js';

afterEach(closeAll);

const viaMeta = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name: CALL_TOOL, arguments: { name, arguments: args } });
const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/** The audit lines of one call, without what differs between any two calls (ids, times, durations). */
async function auditOf(env: Env, callId: string): Promise<Array<Partial<AuditRecord>>> {
  await env.runtime.flush();
  const lines = await env.store.listAudit({ callId, limit: 100 });
  return lines.map(({ kind, tool, persona, actor, detail }) => {
    const { durationMs: _d, approvalId: _a, ...rest } = (detail ?? {}) as Record<string, unknown>;
    return { kind, tool, persona, actor, detail: rest };
  });
}
const callIdOf = (r: unknown) => ((r as CallToolResult)._meta?.['toolcap.dev/call'] as { callId: string }).callId;

describe('toolcap_call_tool and tools/call take the same path', () => {
  it('a read: the same result and the same audit lines', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, principal: LOCAL, tools: 'search' }));
    // not found by any search: callable all the same, both ways
    const direct = await client.callTool({ name: 'text.reverse', arguments: { text: 'search mode' } });
    const meta = await viaMeta(client, 'text.reverse', { text: 'search mode' });
    expect(meta.structuredContent).toEqual({ reversed: 'edom hcraes' });
    expect(meta.content).toEqual(direct.content);
    const lines = await auditOf(env, callIdOf(meta));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toEqual(await auditOf(env, callIdOf(direct)));
    expect(lines.at(-1)).toMatchObject({ kind: 'call.ok', tool: 'text.reverse', actor: 'local' });
    // still a view: calling a tool does not list it
    expect(await names(client)).toEqual([SEARCH_TOOL, CALL_TOOL, APPROVAL_STATUS_TOOL]);
  });

  it('a write needing approval stays pending through either, with the same answer and status tool', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, principal: LOCAL, tools: 'search' }));
    const direct = await client.callTool({ name: 'notes.append', arguments: { line: 'direct' } });
    const meta = await viaMeta(client, 'notes.append', { line: 'through the meta-tool' });
    for (const r of [direct, meta]) {
      expect(r.isError).toBe(true);
      expect(errorMeta(r)).toMatchObject({ code: 'APPROVAL_REQUIRED', tool: 'notes.append', statusTool: APPROVAL_STATUS_TOOL });
      const id = errorMeta(r)['approvalId'] as string;
      expect(await env.runtime.getApproval(id)).toMatchObject({ status: 'pending', requestedByPrincipal: 'local', tool: 'notes.append' });
      const status = await viaMeta(client, APPROVAL_STATUS_TOOL, { approvalId: id });
      expect(status.structuredContent).toMatchObject({ approvalId: id, status: 'pending' });
    }
    const same = (t: string) => t.replace(/apr_\w+/g, 'ID').replace(/expires [^)]+/, 'expires T');
    expect(same(textOf(meta))).toBe(same(textOf(direct)));
    await env.runtime.flush();
    const kinds = (await env.store.listAudit({ tool: 'notes.append', limit: 100 })).map((a) => [a.kind, a.actor]);
    expect(kinds.filter(([k]) => k === 'call.pending_approval')).toEqual([
      ['call.pending_approval', 'local'],
      ['call.pending_approval', 'local'],
    ]);
  });

  it('refusals: a hidden or unknown tool, arguments too deep or invalid (protocol errors directly, tool errors through the meta-tool)', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, tools: 'search' }));
    let deep: Record<string, unknown> = { text: 'x' };
    for (let i = 0; i < 70; i++) deep = { deep };
    for (const [name, args, code] of [
      ['ops.restart', { text: 'x' }, 'TOOL_NOT_FOUND'], // the ops persona's: this session has none
      ['no.such_tool', {}, 'TOOL_NOT_FOUND'],
      ['text.reverse', deep, 'ARGUMENTS_TOO_DEEP'],
    ] as const) {
      const refused = await rejection(client.callTool({ name, arguments: args }));
      expect(refused.code, name).toBe(ErrorCode.InvalidParams);
      expect(refused.data, name).toMatchObject({ code, tool: name });
      const r = await viaMeta(client, name, args);
      expect(r.isError, name).toBe(true);
      expect(errorMeta(r), name).toMatchObject({ code, tool: name });
      expect(refused.message, name).toContain(errorMeta(r)['message'] as string);
    }
    // hidden and unknown read alike
    const hidden = await viaMeta(client, 'ops.restart', {});
    expect(textOf(hidden).replace('ops.restart', 'X')).toBe(textOf(await viaMeta(client, 'no.such_tool', {})).replace('no.such_tool', 'X'));
    const direct = await client.callTool({ name: 'text.reverse', arguments: { text: 42 } });
    const meta = await viaMeta(client, 'text.reverse', { text: 42 });
    expect(meta).toEqual(direct);
    expect(errorMeta(meta)).toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });
});

describe('toolcap mcp serve --tools search (stdio)', () => {
  function serve(argv: string[]) {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const stderr: string[] = [];
    const controller = new AbortController();
    const done = run(['mcp', 'serve', '--no-watch', ...argv], { stdout: () => undefined, stderr: (t) => stderr.push(t), signal: controller.signal, stdin: toServer, stdoutStream: fromServer } as Parameters<typeof run>[1]);
    return { done, stderr, stop: () => controller.abort(), transport: new StreamClientTransport(fromServer, toServer) };
  }

  it('lists the meta-tools, searches, sends list_changed and calls through the meta-tool; the config can set it, the flag wins', async () => {
    const { root, manifests } = copyExamples();
    writeManifest(join(manifests, 'ops.yaml'), [OPS_TOOL]);
    const config = join(root, 'examples', 'toolcap.config.yaml');
    writeFileSync(config, 'sources:\n  - manifests/\nstore:\n  path: .toolcap/toolcap.db\n');

    const server = serve(['--config', config, '--tools', 'search']);
    const client = track(new Client({ name: 'stdio-search', version: '1.0.0' }));
    await client.connect(server.transport);
    expect(await names(client)).toEqual([SEARCH_TOOL, CALL_TOOL, APPROVAL_STATUS_TOOL]);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const found = await client.callTool({ name: SEARCH_TOOL, arguments: { query: 'reverse some text', limit: 2 } });
    const matches = (found.structuredContent as { matches: Array<{ name: string }> }).matches.map((m) => m.name);
    expect(matches).toContain('text.reverse');
    await within(changed, 5000, 'list_changed over stdio');
    expect(await names(client)).toEqual([SEARCH_TOOL, CALL_TOOL, ...[...matches].sort(), APPROVAL_STATUS_TOOL]);
    expect((await viaMeta(client, 'text.reverse', { text: 'stdio' })).structuredContent).toEqual({ reversed: 'oidts' });
    await client.close();
    expect(await within(server.done, 10_000, 'mcp serve to stop')).toBe(0);
    expect(server.stderr.join('')).toContain('in search mode');

    // mcp.tools in the config; --tools full overrides it
    writeFileSync(config, 'sources:\n  - manifests/\nstore:\n  path: .toolcap/toolcap.db\nmcp:\n  tools: search\n');
    for (const [argv, expected] of [
      [[], [SEARCH_TOOL, CALL_TOOL, APPROVAL_STATUS_TOOL]],
      [['--tools', 'full'], ['notes.append', 'text.reverse', 'text.word_count', 'toolcap.catalog_summary', APPROVAL_STATUS_TOOL]],
    ] as const) {
      const s = serve(['--config', config, ...argv]);
      const c = track(new Client({ name: 'stdio-config', version: '1.0.0' }));
      await c.connect(s.transport);
      expect(await names(c), argv.join(' ')).toEqual(expected);
      await c.close();
      expect(await within(s.done, 10_000, 'mcp serve to stop')).toBe(0);
    }

    // a mode nobody knows is a usage error, before anything is served
    const bad = serve(['--config', config, '--tools', 'some']);
    expect(await within(bad.done, 10_000, 'mcp serve to refuse')).toBe(2);
    writeFileSync(config, 'sources:\n  - manifests/\nmcp:\n  tools: some\n');
    const badConfig = serve(['--config', config]);
    expect(await within(badConfig.done, 10_000, 'mcp serve to refuse')).not.toBe(0);
    expect(badConfig.stderr.join('')).toContain('UNKNOWN_ENUM_VALUE');
  });
});

describe('/mcp in search mode (Streamable HTTP)', () => {
  it('lists the meta-tools, and a search sends list_changed on the session stream', async () => {
    const { env } = await examplesEnv();
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime, tools: 'search' });
    const server: HttpServer = createServer(getRequestListener((request) => handler(request)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = track(new Client({ name: 'http-search', version: '1.0.0' }));
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)));
      expect(await names(client)).toEqual([SEARCH_TOOL, CALL_TOOL]);
      let notices = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notices++);
      // the session's event stream opens after initialize: wait until a notice gets through
      await within(
        (async () => {
          while (notices === 0) {
            handler.notifyAll();
            await new Promise((r) => setTimeout(r, 25));
          }
        })(),
        5000,
        'the session stream',
      );
      const before = notices;
      const r = await client.callTool({ name: SEARCH_TOOL, arguments: { query: 'count the words of a text', limit: 1 } });
      const [match] = (r.structuredContent as { matches: Array<{ name: string }> }).matches;
      expect(match?.name).toBe('text.word_count');
      await within((async () => { while (notices === before) await new Promise((r2) => setTimeout(r2, 10)); })(), 5000, 'list_changed after the search');
      expect(await names(client)).toEqual([SEARCH_TOOL, CALL_TOOL, 'text.word_count']);
      expect((await viaMeta(client, 'text.reverse', { text: 'http' })).structuredContent).toEqual({ reversed: 'ptth' });
    } finally {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
