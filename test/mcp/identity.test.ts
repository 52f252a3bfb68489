/**
 * The gateway with a principal, over in-memory and stdio-style transports
 * with the SDK client: an eliciting client that accepts by itself cannot
 * approve a write (issue 11), can approve where config allows it (recorded
 * as elicitation by that principal), four eyes still holds; the session's
 * persona is resolved for the principal; toolcap_approval_status gives the
 * caller its own approvals' outcomes and nobody else's.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { APPROVAL_STATUS_TOOL } from '../../src/mcp/approval-status.js';
import { createGatewayServer, type Gateway, type GatewayOptions } from '../../src/mcp/server.js';
import { CallError } from '../../src/runtime/errors.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { closeAll, connect, errorMeta, examplesEnv, StreamClientTransport, textOf, track, type Env } from './gateway-helpers.js';
import { ALICE, BOB, CAROL, LOCAL } from './principals.js';

afterEach(closeAll);

type Transport = 'in-memory' | 'stdio';

/** A client that declares elicitation and says yes to every form by itself, as a compromised or careless agent would. */
async function yesClient(gateway: Gateway, transport: Transport): Promise<{ client: Client; asked: string[] }> {
  const client = new Client({ name: 'auto-yes', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
    asked.push(request.params.message);
    return { action: 'accept', content: { approve: true } };
  });
  if (transport === 'in-memory') {
    const [c, s] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(s);
    await client.connect(c);
  } else {
    // newline-delimited JSON-RPC over two streams: what `toolcap mcp serve` speaks on stdin/stdout
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    await gateway.server.connect(new StdioServerTransport(toServer, fromServer));
    await client.connect(new StreamClientTransport(fromServer, toServer));
  }
  track(client);
  return { client, asked };
}

const gatewayOf = (env: Env, options: Partial<GatewayOptions> = {}) => createGatewayServer({ registry: env.registry, runtime: env.runtime, ...options });

const structured = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, unknown>;

describe('approvals an agent cannot grant itself', () => {
  it.each<Transport>(['in-memory', 'stdio'])('a client that accepts elicitations by itself cannot approve a write (%s)', async (transport) => {
    // a single-user setup with self-approval on: elicitation still never decides a write by default
    const { root, env } = await examplesEnv({ selfApproval: true });
    const gateway = gatewayOf(env, { principal: LOCAL, configPath: '/etc/toolcap/toolcap.config.yaml' });
    const { client, asked } = await yesClient(gateway, transport);

    const r = await client.callTool({ name: 'notes.append', arguments: { line: 'I approve myself' } });
    expect(asked).toEqual([]);
    expect(r.isError).toBe(true);
    const meta = errorMeta(r);
    expect(meta).toMatchObject({ code: 'APPROVAL_REQUIRED', tool: 'notes.append', statusTool: APPROVAL_STATUS_TOOL });
    const id = meta['approvalId'] as string;
    expect(textOf(r)).toContain(`toolcap approvals approve ${id} --config /etc/toolcap/toolcap.config.yaml`);
    expect(textOf(r)).toContain(`${APPROVAL_STATUS_TOOL} with {"approvalId":"${id}"}`);

    const approval = await env.runtime.getApproval(id);
    expect(approval).toMatchObject({ status: 'pending', requestedByPrincipal: 'local' });
    expect(existsSync(join(root, 'examples', '.toolcap', 'notes.txt'))).toBe(false);
    await gateway.close();
  });

  it.each<Transport>(['in-memory', 'stdio'])('approves a read tool where a rule allows elicitation and self-approval, recorded as elicitation by the principal (%s)', async (transport) => {
    const { env } = await examplesEnv({ rules: [{ tools: ['text.reverse'], reason: 'reads of this tool are reviewed', selfApproval: true }] });
    const gateway = gatewayOf(env, { principal: LOCAL });
    const { client, asked } = await yesClient(gateway, transport);

    const r = await client.callTool({ name: 'text.reverse', arguments: { text: 'eyes' } });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(r.structuredContent).toEqual({ reversed: 'seye' });
    expect(asked).toHaveLength(1);

    const [approval] = await env.runtime.listApprovals({ tool: 'text.reverse' });
    expect(approval).toMatchObject({ status: 'executed', decidedVia: 'elicitation', decidedByPrincipal: 'local', requestedByPrincipal: 'local' });
    const audit = await env.store.listAudit({ tool: 'text.reverse' });
    expect(audit.find((a) => a.kind === 'approval.approved')?.actor).toBe('local');
    await gateway.close();
  });

  it('four eyes holds for an elicitation answer: without self-approval the approval stays pending, saying why', async () => {
    const { env } = await examplesEnv({ rules: [{ tools: ['text.reverse'], reason: 'reads of this tool are reviewed' }] });
    const gateway = gatewayOf(env, { principal: LOCAL });
    const { client } = await yesClient(gateway, 'in-memory');

    const r = await client.callTool({ name: 'text.reverse', arguments: { text: 'eyes' } });
    expect(errorMeta(r)).toMatchObject({ code: 'APPROVAL_REQUIRED' });
    expect(textOf(r)).toContain('could not decide it');
    const [approval] = await env.runtime.listApprovals({ tool: 'text.reverse' });
    expect(approval?.status).toBe('pending');
    await gateway.close();
  });
});

describe('toolcap_approval_status', () => {
  it("gives the caller its approval's status and, once another principal approved it, the outcome; nobody else's", async () => {
    const { env } = await examplesEnv();
    const alice = await connect(gatewayOf(env, { principal: ALICE }));
    const carol = await connect(gatewayOf(env, { principal: CAROL }));

    const names = (await alice.listTools()).tools.map((t) => t.name);
    expect(names.at(-1)).toBe(APPROVAL_STATUS_TOOL);

    const pending = await alice.callTool({ name: 'notes.append', arguments: { line: 'from alice' } });
    const id = errorMeta(pending)['approvalId'] as string;
    expect(structured(await alice.callTool({ name: APPROVAL_STATUS_TOOL, arguments: { approvalId: id } }))).toMatchObject({ approvalId: id, status: 'pending', tool: 'notes.append' });

    // alice cannot approve it (four eyes); bob, an approver, can
    await expect(env.runtime.approve(id, { principal: ALICE, channel: 'http' })).rejects.toMatchObject({ code: 'SELF_APPROVAL' });
    const done = await env.runtime.approve(id, { principal: BOB, channel: 'http' });
    expect(done.call?.status).toBe('ok');

    const status = await alice.callTool({ name: APPROVAL_STATUS_TOOL, arguments: { approvalId: id } });
    expect(status.isError, textOf(status)).toBeFalsy();
    expect(structured(status)).toMatchObject({ status: 'executed', decidedVia: 'http', outcome: { status: 'ok', result: { appended: 'from alice' } } });

    // another caller, and an id that never existed, get the same answer
    for (const [client, approvalId] of [
      [carol, id],
      [alice, 'apr_00000000000000000000000000000000'],
    ] as const) {
      const other = await client.callTool({ name: APPROVAL_STATUS_TOOL, arguments: { approvalId } });
      expect(errorMeta(other)).toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
      expect(textOf(other)).not.toContain('from alice');
    }
  });

  it('is not listed, and not special, without a principal', async () => {
    const { env } = await examplesEnv();
    const client = await connect(gatewayOf(env));
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(APPROVAL_STATUS_TOOL);
  });
});

describe('personas bound to the principal', () => {
  it.each<[string, Principal, string, string, string[]]>([
    ['a misspelt persona', ALICE, 'Ops', 'UNKNOWN_PERSONA', ['ops']],
    ['a padded persona', ALICE, 'ops ', 'UNKNOWN_PERSONA', ['ops']],
    ['a persona not granted', BOB, 'ops', 'FORBIDDEN_PERSONA', []],
  ])('refuses %s when the session opens, naming the allowed ones', async (_label, principal, persona, code, allowed) => {
    const { env } = await examplesEnv();
    let thrown: unknown;
    try {
      gatewayOf(env, { principal, persona });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CallError);
    expect(thrown).toMatchObject({ code, extra: { allowed } });
  });

  it('serves the granted persona and calls as the principal', async () => {
    const { env } = await examplesEnv();
    const ops = await connect(gatewayOf(env, { principal: ALICE, persona: 'ops' }));
    expect((await ops.listTools()).tools.map((t) => t.name)).toContain('ops.restart');
    const ran = await ops.callTool({ name: 'ops.restart', arguments: { text: 'abc' } });
    expect(ran.isError, textOf(ran)).toBeFalsy();
    await env.runtime.flush();
    const audit = await env.store.listAudit({ tool: 'ops.restart' });
    expect(audit.find((a) => a.kind === 'call.ok')?.actor).toBe('alice');

    // no persona and no default: the shared tools only
    const shared = await connect(gatewayOf(env, { principal: ALICE }));
    expect((await shared.listTools()).tools.map((t) => t.name)).not.toContain('ops.restart');
  });
});
