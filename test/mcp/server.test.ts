/**
 * The gateway server over an in-memory SDK client: tools/list (persona
 * scope, annotations, the capability block, paging), tools/call through the
 * runtime (approvals by elicitation or by id, tool errors, protocol errors)
 * and list_changed on reloads.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, ErrorCode, ToolListChangedNotificationSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { CAPABILITY_META_KEY } from '../../src/mcp/projection.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import { MCP_PAGE_SIZE } from '../../src/mcp/tool-list.js';
import { toolHash } from '../../src/model/hash.js';
import { closeAll, connect, errorMeta, examplesEnv, listAll, openEnv, rejection, tempDir, textOf, track, within, writeManifest } from './gateway-helpers.js';

afterEach(closeAll);

describe('tools/list', () => {
  it('lists the shared tools by name with annotations and the capability block', async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['notes.append', 'text.reverse', 'text.word_count', 'toolcap.catalog_summary']);

    const reverse = tools.find((t) => t.name === 'text.reverse')!;
    expect(reverse.description).toContain('Reverse a piece of text');
    expect(reverse.inputSchema).toMatchObject({ type: 'object', required: ['text'], properties: { text: { type: 'string' } } });
    // read-only: destructiveHint means nothing (MCP), so it is not written
    expect(reverse.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });

    const notes = tools.find((t) => t.name === 'notes.append')!;
    // an append can be undone (reversible: partial): additive, not destructive; a local file is not the open world
    expect(notes.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
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
    expect(summary.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: true });
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
    // sideEffects: system says nothing about the world: MCP's default (open world) applies
    expect(opsTools.find((t) => t.name === 'ops.restart')?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
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
  const SHOUT = { name: 'text.shout', description: 'Upper-case text.', effects: { mode: 'read', sideEffects: 'compute' }, providers: [{ name: 'local', config: { type: 'module', module: './providers/text.mjs', export: 'reverse' } }] };

  it('tells the client when a reload changes the catalog, with no wiring, and lists the new tool', async () => {
    const { manifests, env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('text.shout');

    writeManifest(join(manifests, 'more.yaml'), [SHOUT]);
    const event = await env.registry.refresh();
    expect(event.kind).toBe('reloaded');
    await within(changed, 5000, 'notifications/tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('text.shout');
  });

  it('sends one notice per reload when the caller also sends it from its reload hook', async () => {
    const { manifests, env } = await examplesEnv();
    const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime });
    env.onReload = (event) => {
      if (event.kind === 'reloaded') gateway.notifyToolsChanged();
    };
    const client = await connect(gateway);
    let notices = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notices++);
    writeManifest(join(manifests, 'more.yaml'), [SHOUT]);
    expect((await env.registry.refresh()).kind).toBe('reloaded');
    // a request after the reload: its answer comes after any notice sent during the reload
    await client.listTools();
    expect(notices).toBe(1);
  });

  it('sends nothing after close, and nothing before a transport is connected', async () => {
    const { manifests, env } = await examplesEnv();
    const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime });
    expect(() => gateway.notifyToolsChanged()).not.toThrow();
    expect(gateway.server.transport).toBeUndefined();
    await gateway.close();
    writeManifest(join(manifests, 'more.yaml'), [SHOUT]);
    expect((await env.registry.refresh()).kind).toBe('reloaded');
  });
});
