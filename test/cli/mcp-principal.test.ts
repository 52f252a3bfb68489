/**
 * `toolcap mcp serve --principal ID` (src/cli/mcp.ts), in-process over
 * stdio streams: with a config whose `auth.principals` grants ID roles and
 * personas, the gateway acts as ID (its default persona served, its calls
 * audited with actor ID, its approvals requested by ID, a role without
 * `call` refused); a persona ID is not granted, or one nobody knows, is
 * refused at start with exit 2 naming the personas ID may use, and nothing
 * reaches stdout.
 */
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpServeCommand, type McpServeFlags } from '../../src/cli/mcp.js';
import { APPROVAL_STATUS_TOOL } from '../../src/mcp/approval-status.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { closeAll, copyExamples, errorMeta, OPS_TOOL, StreamClientTransport, textOf, within, writeManifest } from '../mcp/gateway-helpers.js';

afterEach(closeAll);

const CONFIG = `sources:
  - manifests/
store:
  path: .toolcap/toolcap.db
auth:
  principals:
    ci-bot: { roles: [caller], personas: [ops], defaultPersona: ops }
    reviewer: { roles: [approver], approves: { personas: ["*"], tools: ["*"] } }
`;

/** A tool only the atlas persona sees: it makes "atlas" a persona toolcap knows, which ci-bot is not granted. */
const ATLAS_TOOL = { ...OPS_TOOL, name: 'atlas.lookup', description: 'Look something up (atlas only).', scope: { personas: ['atlas'] } };

/** The examples, the ops and atlas tools, and the config above: the config file and the store it names. */
function project(): { config: string; db: string } {
  const { root, manifests } = copyExamples();
  writeManifest(join(manifests, 'scoped.yaml'), [OPS_TOOL, ATLAS_TOOL]);
  const config = join(root, 'examples', 'toolcap.config.yaml');
  writeFileSync(config, CONFIG);
  return { config, db: join(root, 'examples', '.toolcap', 'toolcap.db') };
}

/** Start `mcp serve` with `flags` and connect an SDK client over its stdio streams. */
async function serve(config: string, flags: Partial<McpServeFlags>) {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const stdout: string[] = [];
  const stderr: string[] = [];
  const running = mcpServeCommand([], { config, watch: false, ...flags }, { stdout: (t) => stdout.push(t), stderr: (t) => stderr.push(t), stdin: toServer, stdoutStream: fromServer });
  const client = new Client({ name: 'principal-test', version: '1.0.0' });
  await client.connect(new StreamClientTransport(fromServer, toServer));
  return {
    client,
    stderr,
    /** End stdin (the client closes) and wait for the exit code. */
    async stop(): Promise<number> {
      await client.close();
      return within(running, 10_000, 'mcp serve to stop');
    },
  };
}

/** Run `mcp serve` that must refuse to start: its exit code, stderr, and whatever reached stdout. */
async function refused(config: string, flags: Partial<McpServeFlags>): Promise<{ code: number; stderr: string; stdout: string }> {
  const out = new PassThrough();
  const written: string[] = [];
  out.on('data', (c: Buffer) => written.push(c.toString()));
  const stderr: string[] = [];
  const code = await within(
    mcpServeCommand([], { config, watch: false, ...flags }, { stdout: (t) => written.push(t), stderr: (t) => stderr.push(t), stdin: new PassThrough(), stdoutStream: out }),
    10_000,
    'mcp serve to refuse',
  );
  return { code, stderr: stderr.join(''), stdout: written.join('') };
}

describe('toolcap mcp serve --principal', () => {
  it('acts as the principal: its default persona, calls audited with its id, approvals requested by it', async () => {
    const { config, db } = project();
    const s = await serve(config, { principal: 'ci-bot' });
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('ops.restart');
    expect(names).not.toContain('atlas.lookup');
    expect(names.at(-1)).toBe(APPROVAL_STATUS_TOOL);

    const ran = await s.client.callTool({ name: 'ops.restart', arguments: { text: 'api' } });
    expect(ran.isError, textOf(ran)).toBeFalsy();
    const pending = await s.client.callTool({ name: 'notes.append', arguments: { line: 'from ci-bot' } });
    expect(errorMeta(pending)).toMatchObject({ code: 'APPROVAL_REQUIRED', tool: 'notes.append' });
    const approvalId = errorMeta(pending)['approvalId'] as string;
    // its own approval is visible to it through the status tool
    const status = await s.client.callTool({ name: APPROVAL_STATUS_TOOL, arguments: { approvalId } });
    expect(status.structuredContent).toMatchObject({ approvalId, status: 'pending' });

    expect(await s.stop()).toBe(0);
    expect(s.stderr.join('')).toMatch(/serving \d+ tools for persona "ops" over stdio as principal "ci-bot"/);

    const store = await openSqliteStore(db);
    try {
      const audit = await store.listAudit({ tool: 'ops.restart', limit: 100 });
      expect(audit.find((a) => a.kind === 'call.ok')).toMatchObject({ actor: 'ci-bot', persona: 'ops' });
      expect(await store.getApproval(approvalId)).toMatchObject({ status: 'pending', requestedByPrincipal: 'ci-bot' });
    } finally {
      await store.close();
    }
  });

  it('a principal without the call role lists but calls nothing', async () => {
    const { config } = project();
    const s = await serve(config, { principal: 'reviewer' });
    expect((await s.client.listTools()).tools.map((t) => t.name)).toContain('text.reverse');
    const r = await s.client.callTool({ name: 'text.reverse', arguments: { text: 'no' } });
    expect(errorMeta(r)).toMatchObject({ code: 'FORBIDDEN' });
    expect(await s.stop()).toBe(0);
    expect(s.stderr.join('')).toContain('as principal "reviewer"');
  });

  it('an id auth.principals does not list acts under that id with the local principal’s grants', async () => {
    const { config, db } = project();
    const s = await serve(config, { principal: 'laptop-user', persona: 'atlas' });
    const r = await s.client.callTool({ name: 'atlas.lookup', arguments: { text: 'abc' } });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(await s.stop()).toBe(0);
    const store = await openSqliteStore(db);
    try {
      expect((await store.listAudit({ tool: 'atlas.lookup', limit: 10 })).find((a) => a.kind === 'call.ok')?.actor).toBe('laptop-user');
    } finally {
      await store.close();
    }
  });

  it.each([
    ['a persona it is not granted', 'ci-bot', 'atlas', 'ops'],
    ['a persona spelt otherwise', 'ci-bot', 'Ops', 'ops'],
    ['a persona nobody knows', 'ci-bot', 'nobody', 'ops'],
    ['any persona, for a principal granted none', 'reviewer', 'ops', 'none'],
  ])('refuses %s at start: exit 2 naming the allowed personas, nothing on stdout', async (_label, principal, persona, allowed) => {
    const { config } = project();
    const r = await refused(config, { principal, persona });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`(personas ${principal} may use: ${allowed})`);
    expect(r.stderr).toContain(`"${persona}"`);
    expect(r.stdout).toBe('');
  });
});
