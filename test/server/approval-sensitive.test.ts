/**
 * An approval shows its call's arguments to the people who decide it, and
 * showed them whole: a parameter the tool's schema marks sensitive (kept out
 * of audit rows and spans) went to every approver in `GET /approvals`, the
 * console, the CLI and the elicitation form. Every view now masks those
 * values (`[SENSITIVE]`), while the stored call keeps them: approving runs
 * exactly the reviewed call, bound by its arguments hash.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printApproval } from '../../src/cli/call-output.js';
import { approvalStatus } from '../../src/mcp/approval-status.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import { contentHash } from '../../src/model/hash.js';
import { cli } from '../cli/helpers.js';
import { BASE, cleanFolders } from './helpers.js';
import { HOST, identityApi, PRINCIPALS, type IdentityApi } from './identity-fixture.js';

const PASSWORD = 'hunter2-open-sesame';
const TOKEN = 'nested-recovery-0xC0FFEE';
// names no redactor knows as credentials (password, token, secret are redacted by name already, where a redactor runs): only the schema says
const ARGS = { user: 'ana', pin: PASSWORD, extra: { recovery: TOKEN, note: 'visible' }, keys: [{ value: TOKEN, label: 'one' }] };
const SHOWN = { user: 'ana', pin: '[SENSITIVE]', extra: { recovery: '[SENSITIVE]', note: 'visible' }, keys: [{ value: '[SENSITIVE]', label: 'one' }] };

const MANIFEST = `toolcap: 1
tools:
  - name: vault.check
    version: 1.0.0
    description: Checks a password; every call needs approval.
    inputSchema:
      type: object
      properties:
        user: { type: string }
        pin: { type: string, x-sensitive: true }
        extra:
          type: object
          properties:
            recovery: { type: string, format: password }
            note: { type: string }
        keys:
          type: array
          items:
            allOf:
              - type: object
                properties: { value: { type: string, writeOnly: true } }
              - type: object
                properties: { label: { type: string } }
      required: [user, pin]
    effects: { mode: read, sideEffects: none, risk: low, reversible: full }
    approval: { required: true }
    providers:
      - { name: local, priority: 0, config: { type: module, module: ./providers/vault.mjs, export: check } }
`;
// the run sees the real values, not the masks
const PROVIDER = `export function check({ pin, extra, keys }) {
  return { matches: pin === ${JSON.stringify(PASSWORD)} && extra.recovery === ${JSON.stringify(TOKEN)} && keys[0].value === ${JSON.stringify(TOKEN)} };
}
`;

let api: IdentityApi;
beforeAll(async () => {
  api = await identityApi({}, { console: { pollMs: 50 } }, { 'vault.yaml': MANIFEST, 'providers/vault.mjs': PROVIDER });
});
afterAll(async () => {
  await api.close();
  cleanFolders();
});

const request = (path: string, who: string, init: { method?: string; body?: unknown } = {}) =>
  api.app.fetch(
    new Request(`${BASE}${path}`, {
      method: init.method ?? 'GET',
      headers: { host: HOST, authorization: `Bearer tok-${who}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    }),
  );

/** Ask for the gated call as root (admin): the pending answer, whose approval is masked too. */
async function ask(args: unknown = ARGS): Promise<string> {
  const res = await request('/tools/vault.check/call', 'admin', { method: 'POST', body: { arguments: args } });
  const text = await res.text();
  expect(res.status, text).toBe(202);
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(TOKEN);
  const body = JSON.parse(text) as { approval: { id: string; arguments: unknown; argumentsHash: string } };
  expect(body.approval.arguments).toEqual(SHOWN);
  // the hash still binds the real arguments
  expect(body.approval.argumentsHash).toBe(contentHash(ARGS));
  return body.approval.id;
}

describe('the views an approver gets', () => {
  it('GET /approvals and GET /approvals/{id} mask the sensitive values; approving runs the real ones', async () => {
    const id = await ask();
    const list = await request('/approvals?status=pending', 'approver');
    const listed = await list.text();
    expect(list.status).toBe(200);
    expect(listed).not.toContain(PASSWORD);
    expect(listed).not.toContain(TOKEN);
    expect((JSON.parse(listed) as { approvals: Array<{ id: string; arguments: unknown }> }).approvals.find((a) => a.id === id)?.arguments).toEqual(SHOWN);
    const one = await request(`/approvals/${id}`, 'approver');
    expect(((await one.json()) as { arguments: unknown }).arguments).toEqual(SHOWN);

    const approved = await request(`/approvals/${id}/approve`, 'approver', { method: 'POST', body: {} });
    const text = await approved.text();
    expect(approved.status, text).toBe(200);
    expect(text).not.toContain(PASSWORD);
    expect(JSON.parse(text)).toMatchObject({ approval: { status: 'executed', arguments: SHOWN }, call: { result: { matches: true } } });
    // and the store keeps what ran
    expect((await api.store.getApproval(id))?.arguments).toEqual(ARGS);
  });

  it('the console approvals page masks them', async () => {
    await ask();
    const page = await request('/ui/approvals', 'approver');
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('vault.check');
    expect(html).toContain('[SENSITIVE]');
    expect(html).not.toContain(PASSWORD);
    expect(html).not.toContain(TOKEN);
  });

  it('the CLI prints them masked (the view it gets from the runtime, or from GET /approvals with --server)', async () => {
    await ask();
    let out = '';
    for (const a of await api.runtime.listApprovals({ status: 'pending' })) printApproval(a, { stdout: (t) => (out += t), stderr: () => undefined }, api.runtime.redactor);
    expect(out).toContain('vault.check');
    expect(out).toContain('[SENSITIVE]');
    expect(out).not.toContain(PASSWORD);
    expect(out).not.toContain(TOKEN);
  });

  it('the MCP approval-status tool shows no arguments at all', async () => {
    const id = await ask();
    const result = await approvalStatus(api.runtime, PRINCIPALS.admin, { approvalId: id });
    expect(JSON.stringify(result)).not.toContain(PASSWORD);
    expect(result.structuredContent).toMatchObject({ approvalId: id, status: 'pending' });
  });

  it('the elicitation form masks them', async () => {
    const gateway = createGatewayServer({ registry: api.registry, runtime: api.runtime });
    const client = new Client({ name: 'asker', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (req): ElicitResult => {
      asked.push(req.params.message);
      return { action: 'cancel' };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const result = await client.callTool({ name: 'vault.check', arguments: ARGS });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain('[SENSITIVE]');
      expect(asked[0]).toContain('visible');
      expect(asked[0]).not.toContain(PASSWORD);
      expect(asked[0]).not.toContain(TOKEN);
      expect(JSON.stringify(result)).not.toContain(PASSWORD);
    } finally {
      await client.close();
      await gateway.close();
    }
  });
});

describe('toolcap approvals (the CLI on a config)', () => {
  let root: string;
  let config: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'toolcap-approval-sensitive-'));
    mkdirSync(join(root, 'toolcap', 'providers'), { recursive: true });
    writeFileSync(join(root, 'toolcap', 'vault.yaml'), MANIFEST);
    writeFileSync(join(root, 'toolcap', 'providers', 'vault.mjs'), PROVIDER);
    config = join(root, 'toolcap.config.yaml');
    writeFileSync(config, 'sources: [toolcap/]\nstore: { path: .toolcap/toolcap.db }\napprovals: { selfApproval: true }\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('list and show mask the sensitive values; approve runs the real ones', async () => {
    const asked = await cli('call', 'vault.check', '--config', config, '--args', JSON.stringify(ARGS), '--json');
    expect(asked.stdout).not.toContain(PASSWORD);
    const id = (JSON.parse(asked.stdout) as { approval: { id: string } }).approval.id;
    const list = await cli('approvals', 'list', '--config', config);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('[SENSITIVE]');
    expect(list.stdout + list.stderr).not.toContain(PASSWORD);
    expect(list.stdout + list.stderr).not.toContain(TOKEN);
    const shown = await cli('approvals', 'show', id, '--config', config, '--json');
    expect((JSON.parse(shown.stdout) as { approval: { arguments: unknown } }).approval.arguments).toEqual(SHOWN);
    const approved = await cli('approvals', 'approve', id, '--config', config, '--json');
    expect(approved.stdout).not.toContain(PASSWORD);
    expect(JSON.parse(approved.stdout)).toMatchObject({ call: { result: { matches: true } } });
  });
});

describe('shownArguments', () => {
  it('masks by the schema at any depth, through additionalProperties and anyOf/oneOf branches; keys and other values stay', async () => {
    const { shownArguments, SENSITIVE_MASK: M } = await import('../../src/runtime/containment/recorded-arguments.js');
    const schema = {
      type: 'object',
      properties: { a: { sensitive: true }, list: { type: 'array', items: { oneOf: [{ properties: { k: { 'x-sensitive': true } } }] } } },
      additionalProperties: { anyOf: [{ type: 'string' }, { type: 'object', properties: { deep: { writeOnly: true } } }] },
    };
    expect(shownArguments(schema, { a: 1, list: [{ k: 'x', j: 'y' }, 'plain'], other: { deep: 'z', shallow: 'w' }, more: 'text' })).toEqual({
      a: M,
      list: [{ k: M, j: 'y' }, 'plain'],
      other: { deep: M, shallow: 'w' },
      more: 'text',
    });
    // a whole sensitive schema, and one that says nothing
    expect(shownArguments({ format: 'password' }, { a: 1 })).toBe(M);
    expect(shownArguments(undefined, { a: 1 })).toEqual({ a: 1 });
  });
});
