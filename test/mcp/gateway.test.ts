import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpServeCommand } from '../../src/cli/mcp.js';
import {
  CAPABILITY_META_KEY,
  createGatewayServer,
  ERROR_META_KEY,
  mcpHttpHandler,
  mcpToolOf,
  MCP_PAGE_SIZE,
  type McpHttpHandler,
} from '../../src/mcp/gateway.js';
import { toolHash } from '../../src/model/hash.js';
import { closeAll, connect, copyExamples, openEnv, StreamClientTransport, tempDir, track, within, writeManifest } from './gateway-helpers.js';

afterEach(closeAll);

/** A persona-scoped tool for the "ops" persona, run by the examples' text module. */
const OPS_TOOL = {
  name: 'ops.restart',
  version: '2.0.0',
  description: 'Restart a service (ops only).',
  scope: { personas: ['ops'] },
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  effects: { mode: 'write', sideEffects: 'system', risk: 'high', reversible: 'none' },
  execution: { timeoutSec: 5, retryClass: 'never', idempotent: false },
  approval: { required: false },
  capabilities: ['service.restart'],
  providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './providers/text.mjs', export: 'reverse' } }],
};

async function examplesEnv() {
  const { root, manifests } = copyExamples();
  writeManifest(join(manifests, 'ops.yaml'), [OPS_TOOL]);
  const env = await openEnv([manifests]);
  return { root, manifests, env };
}

const textOf = (r: unknown) => ((r as CallToolResult).content[0] as { type: 'text'; text: string }).text;
const errorMeta = (r: unknown) => ((r as CallToolResult)._meta?.[ERROR_META_KEY] ?? {}) as Record<string, unknown>;

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}

async function listAll(client: Client): Promise<{ tools: McpTool[]; pages: number }> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 100);
  return { tools, pages };
}

describe('tools/list', () => {
  it('lists the shared tools by name with annotations and the capability block', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['notes.append', 'text.reverse', 'text.word_count', 'toolcap.catalog_summary']);

    const reverse = tools.find((t) => t.name === 'text.reverse')!;
    expect(reverse.description).toContain('Reverse a piece of text');
    expect(reverse.inputSchema).toMatchObject({ type: 'object', required: ['text'], properties: { text: { type: 'string' } } });
    expect(reverse.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });

    const notes = tools.find((t) => t.name === 'notes.append')!;
    // write + filesystem: destructive; idempotent false; a local file is not the open world
    expect(notes.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    expect(notes._meta?.[CAPABILITY_META_KEY]).toMatchObject({
      version: '1.0.0',
      mode: 'write',
      sideEffects: 'filesystem',
      risk: 'medium',
      reversible: 'partial',
      rollbackHint: 'Delete the appended line from .toolcap/notes.txt.',
      approvalRequired: true,
      retryClass: 'never',
      timeoutSec: 5,
      idempotent: false,
      manifestHash: toolHash(env.registry.snapshot().tool('notes.append')!),
    });
    expect((notes._meta?.[CAPABILITY_META_KEY] as { manifestHash: string }).manifestHash).toMatch(/^sha256:[0-9a-f]{64}$/);

    const summary = tools.find((t) => t.name === 'toolcap.catalog_summary')!;
    expect(summary.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: true });
  });

  it('derives annotations from effects, and explicit hints win', () => {
    const base = { name: 'x.y' };
    expect(mcpToolOf({ ...base }).annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    expect(mcpToolOf({ ...base, effects: { mode: 'mixed', sideEffects: 'network', reversible: 'none' } }).annotations).toMatchObject({ destructiveHint: true, openWorldHint: true });
    expect(mcpToolOf({ ...base, effects: { mode: 'read', sideEffects: 'database', reversible: 'none' } }).annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(mcpToolOf({ ...base, effects: { mode: 'write', sideEffects: 'database' }, hints: { destructive: false } }).annotations).toMatchObject({ destructiveHint: false });
    // schemas MCP cannot take as a root are replaced (input) or left out (output)
    const odd = mcpToolOf({ ...base, inputSchema: true, outputSchema: { type: 'array' } });
    expect(odd.inputSchema).toEqual({ type: 'object' });
    expect(odd.outputSchema).toBeUndefined();
    expect(mcpToolOf({ ...base, outputSchema: { properties: { a: { type: 'string' } } } }).outputSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });

  it('scopes persona tools to that persona', async () => {
    const { env } = await examplesEnv();
    const shared = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const ops = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, persona: 'ops' }));
    const other = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime, persona: 'intern' }));
    expect((await shared.listTools()).tools.map((t) => t.name)).not.toContain('ops.restart');
    expect((await other.listTools()).tools.map((t) => t.name)).not.toContain('ops.restart');
    const opsTools = (await ops.listTools()).tools;
    expect(opsTools.map((t) => t.name)).toEqual(['notes.append', 'ops.restart', 'text.reverse', 'text.word_count', 'toolcap.catalog_summary']);
    expect(opsTools.find((t) => t.name === 'ops.restart')?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(opsTools.find((t) => t.name === 'ops.restart')?._meta?.[CAPABILITY_META_KEY]).toMatchObject({ capabilities: ['service.restart'], risk: 'high', version: '2.0.0' });

    // calling it: the persona's gateway runs it, the others do not know it
    const ran = await ops.callTool({ name: 'ops.restart', arguments: { text: 'abc' } });
    expect(ran.isError, textOf(ran)).toBeFalsy();
    expect(ran.structuredContent).toEqual({ reversed: 'cba' });
    const hidden = await rejection(shared.callTool({ name: 'ops.restart', arguments: { text: 'abc' } }));
    expect(hidden.code).toBe(ErrorCode.InvalidParams);
  });

  it('pages 250 tools 100 at a time, each tool once, in name order', async () => {
    const dir = tempDir();
    const tools = Array.from({ length: 250 }, (_, i) => ({
      name: `gen.tool_${String(249 - i).padStart(3, '0')}`,
      description: `Generated tool ${i}.`,
      effects: { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' },
    }));
    writeManifest(join(dir, 'tools.yaml'), tools);
    const env = await openEnv([dir]);
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const first = await client.listTools();
    expect(first.tools).toHaveLength(MCP_PAGE_SIZE);
    expect(first.nextCursor).toEqual(expect.any(String));
    const { tools: all, pages } = await listAll(client);
    expect(pages).toBe(3);
    const names = all.map((t) => t.name);
    expect(names).toHaveLength(250);
    expect(new Set(names).size).toBe(250);
    expect(names).toEqual([...names].sort());
    expect(names[0]).toBe('gen.tool_000');
    expect(names.at(-1)).toBe('gen.tool_249');

    for (const bad of ['not a cursor!', 'e30', Buffer.from('{"after":7}').toString('base64url')]) {
      const error = await rejection(client.listTools({ cursor: bad }));
      expect(error.code).toBe(ErrorCode.InvalidParams);
    }
  });
});

describe('tools/call', () => {
  it('runs a tool through the runtime and returns text and structured content', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const r = await client.callTool({ name: 'text.reverse', arguments: { text: 'toolcap' } });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(textOf(r))).toEqual({ reversed: 'pacloot' });
    expect(r.structuredContent).toEqual({ reversed: 'pacloot' });
    expect(r._meta?.['toolcap.dev/call']).toMatchObject({ provider: 'local', attempts: 1 });

    const counted = await client.callTool({ name: 'text.word_count', arguments: { text: 'one two three' } });
    expect(counted.isError).toBeFalsy();
    expect(counted.structuredContent).toEqual({ words: 3, characters: 13 });

    await env.runtime.flush();
    const audit = await env.store.listAudit({ tool: 'text.reverse' });
    expect(audit.some((a) => a.kind === 'call.ok' && a.actor === 'mcp:test-client')).toBe(true);
  });

  it('answers a call that needs approval with the approval id when the client cannot elicit; approving runs it', async () => {
    const { root, env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const r = await client.callTool({ name: 'notes.append', arguments: { line: 'from mcp' } });
    expect(r.isError).toBe(true);
    const id = /apr_[0-9a-f]{32}/.exec(textOf(r))?.[0];
    expect(id).toBeDefined();
    expect(textOf(r)).toContain(`toolcap approvals approve ${id}`);
    expect(textOf(r)).toContain(`POST /approvals/${id}/approve`);
    expect(errorMeta(r)).toMatchObject({ code: 'APPROVAL_REQUIRED', approvalId: id });

    const done = await env.runtime.approve(id!, { by: 'reviewer' });
    expect(done.call?.status).toBe('ok');
    expect(done.call?.status === 'ok' ? done.call.result : undefined).toMatchObject({ appended: 'from mcp', file: join(root, 'examples', '.toolcap', 'notes.txt') });
  });

  it('asks a client that supports elicitation, and runs the call when the user accepts', async () => {
    const { env } = await examplesEnv();
    const client = new Client({ name: 'eliciting', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
      asked.push(request.params);
      return { action: 'accept', content: { approve: true } };
    });
    const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime });
    const [c, s] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(s);
    await client.connect(c);
    track(client);

    const r = await client.callTool({ name: 'notes.append', arguments: { line: 'yes please' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ appended: 'yes please' });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.message).toContain('notes.append');
    expect(asked[0]?.message).toContain('yes please');
    expect(asked[0]?.message).toContain('approval');

    const approvals = await env.runtime.listApprovals({ tool: 'notes.append' });
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ status: 'executed', decidedBy: 'mcp-client' });
    const audit = await env.store.listAudit({ tool: 'notes.append' });
    expect(audit.find((a) => a.kind === 'approval.approved')?.actor).toBe('mcp-client');
    await gateway.close();
  });

  it.each([
    ['declines', { action: 'decline' } as ElicitResult],
    ['accepts but answers no', { action: 'accept', content: { approve: false } } as ElicitResult],
  ])('denies the call when the user %s', async (_label, answer) => {
    const { env } = await examplesEnv();
    const client = new Client({ name: 'eliciting', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => answer);
    const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime });
    const [c, s] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(s);
    await client.connect(c);
    track(client);

    const r = await client.callTool({ name: 'notes.append', arguments: { line: 'no thanks' } });
    expect(r.isError).toBe(true);
    expect(errorMeta(r)).toMatchObject({ code: 'APPROVAL_DENIED' });
    const [approval] = await env.runtime.listApprovals({ tool: 'notes.append' });
    expect(approval).toMatchObject({ status: 'denied', decidedBy: 'mcp-client' });
    await gateway.close();
  });

  it('leaves the approval pending and names it when the user cancels the form', async () => {
    const { env } = await examplesEnv();
    const client = new Client({ name: 'eliciting', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'cancel' }) as ElicitResult);
    const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime });
    const [c, s] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(s);
    await client.connect(c);
    track(client);
    const r = await client.callTool({ name: 'notes.append', arguments: { line: 'later' } });
    expect(errorMeta(r)).toMatchObject({ code: 'APPROVAL_REQUIRED' });
    const [approval] = await env.runtime.listApprovals({ tool: 'notes.append' });
    expect(approval?.status).toBe('pending');
    expect(textOf(r)).toContain(approval!.id);
    await gateway.close();
  });

  it('gives invalid arguments as a tool error and an unknown tool as a protocol error', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const bad = await client.callTool({ name: 'text.reverse', arguments: { text: 42 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/^INVALID_ARGUMENTS: /);
    expect(errorMeta(bad)).toMatchObject({ code: 'INVALID_ARGUMENTS', pointer: '/text' });

    const extra = await client.callTool({ name: 'text.reverse', arguments: { text: 'a', nope: 1 } });
    expect(errorMeta(extra)).toMatchObject({ code: 'INVALID_ARGUMENTS' });

    const unknown = await rejection(client.callTool({ name: 'no.such_tool', arguments: {} }));
    expect(unknown.code).toBe(ErrorCode.InvalidParams);
    expect(unknown.message).toContain('no.such_tool');

    // the connection survives: a good call still works
    const ok = await client.callTool({ name: 'text.reverse', arguments: { text: 'ab' } });
    expect(ok.structuredContent).toEqual({ reversed: 'ba' });
  });

  it('gives provider failures as a tool error with the code', async () => {
    const { manifests, env } = await examplesEnv();
    writeFileSync(join(manifests, 'providers', 'fail.mjs'), "export function fail() { throw new Error('boom'); }\n");
    writeManifest(join(manifests, 'fail.yaml'), [
      { name: 'broken.fail', description: 'Always fails.', effects: { mode: 'read', sideEffects: 'compute' }, execution: { retryClass: 'never' }, providers: [{ name: 'local', config: { type: 'module', module: './providers/fail.mjs', export: 'fail' } }] },
    ]);
    expect((await env.registry.refresh()).kind).toBe('reloaded');
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const r = await client.callTool({ name: 'broken.fail', arguments: {} });
    expect(r.isError).toBe(true);
    expect(errorMeta(r)).toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(textOf(r)).toMatch(/^PROVIDER_ERROR: .*boom/);
  });
});

describe('list_changed', () => {
  it('tells the client when a reload changes the catalog, and lists the new tool', async () => {
    const { manifests, env } = await examplesEnv();
    const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime });
    env.onReload = (event) => {
      if (event.kind === 'reloaded') gateway.notifyToolsChanged();
    };
    const client = await connect(gateway);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('text.shout');

    writeManifest(join(manifests, 'more.yaml'), [
      { name: 'text.shout', description: 'Upper-case text.', effects: { mode: 'read', sideEffects: 'compute' }, providers: [{ name: 'local', config: { type: 'module', module: './providers/text.mjs', export: 'reverse' } }] },
    ]);
    const event = await env.registry.refresh();
    expect(event.kind).toBe('reloaded');
    await within(changed, 5000, 'notifications/tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('text.shout');
  });

  it('ignores notifyToolsChanged before a transport is connected', async () => {
    const { env } = await examplesEnv();
    const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime });
    expect(() => gateway.notifyToolsChanged()).not.toThrow();
    expect(gateway.server.transport).toBeUndefined();
  });
});

describe('toolcap mcp serve (stdio, in-process)', () => {
  it('serves tools/list and tools/call with only protocol messages on stdout, and stops when stdin ends', async () => {
    const { root } = copyExamples();
    const config = join(root, 'examples', 'toolcap.config.yaml');
    writeFileSync(config, 'sources:\n  - manifests/\nstore:\n  path: .toolcap/toolcap.db\n');
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const stdout: string[] = [];
    fromServer.on('data', (chunk: Buffer) => stdout.push(chunk.toString('utf8')));
    const stderr: string[] = [];
    const controller = new AbortController();
    const running = mcpServeCommand([], { config, watch: false }, {
      stdout: (t) => stdout.push(`(io.stdout) ${t}`),
      stderr: (t) => stderr.push(t),
      signal: controller.signal,
      stdin: toServer,
      stdoutStream: fromServer,
    });

    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(new StreamClientTransport(fromServer, toServer));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['notes.append', 'text.reverse', 'text.word_count', 'toolcap.catalog_summary']);
    const r = await client.callTool({ name: 'text.reverse', arguments: { text: 'stdio' } });
    expect(r.structuredContent).toEqual({ reversed: 'oidts' });
    await client.close(); // ends the server's stdin

    const code = await within(running, 10_000, 'mcp serve to stop');
    expect(code).toBe(0);
    controller.abort();
    const lines = stdout.join('').split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(stderr.join('')).toContain('toolcap mcp: serving 4 tools');
    expect(stderr.join('')).toContain('stopping');
  });

  it('stops on io.signal and reports a broken config on stderr only', async () => {
    const { root } = copyExamples();
    const config = join(root, 'examples', 'toolcap.config.yaml');
    writeFileSync(config, 'sources:\n  - manifests/\nstore:\n  path: .toolcap/toolcap.db\n');
    const stdin = new PassThrough();
    const out = new PassThrough();
    const written: string[] = [];
    out.on('data', (c: Buffer) => written.push(c.toString()));
    const stderr: string[] = [];
    const controller = new AbortController();
    const running = mcpServeCommand([], { config, watch: false, persona: 'ops' }, { stdout: (t) => written.push(t), stderr: (t) => stderr.push(t), signal: controller.signal, stdin, stdoutStream: out });
    // wait until it serves, then stop it
    await within(
      (async () => {
        while (!stderr.join('').includes('serving')) await new Promise((r) => setImmediate(r));
      })(),
      10_000,
      'mcp serve to start',
    );
    controller.abort();
    expect(await within(running, 10_000, 'mcp serve to stop')).toBe(0);
    expect(stderr.join('')).toContain('for persona "ops"');
    expect(written).toEqual([]);

    const broken = join(root, 'broken.yaml');
    writeFileSync(broken, 'sources: [: nope\n');
    const errs: string[] = [];
    const bad = await mcpServeCommand([], { config: broken }, { stdout: (t) => written.push(t), stderr: (t) => errs.push(t), stdin: new PassThrough(), stdoutStream: out });
    expect(bad).not.toBe(0);
    expect(errs.join('')).not.toBe('');
    expect(written).toEqual([]);
  });
});

describe('Streamable HTTP', () => {
  async function httpEnv(): Promise<{ url: string; handler: McpHttpHandler; env: Awaited<ReturnType<typeof openEnv>>; stop(): Promise<void> }> {
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
