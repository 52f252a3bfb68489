/**
 * Learned tools end to end over HTTP, through the host (createToolcap) as
 * `toolcap serve` wires it: a Xena tool upserted appears in /tools and
 * survives a restart on the same store; one without `surface` is a located
 * 422 that changes nothing; a learned entry cannot loosen a reviewed tool;
 * delete; the write is audited with the principal.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolcap, type Toolcap } from '../../src/host.js';
import { createApi } from '../../src/server/app.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { cleanFolders, folder } from './helpers.js';

const ADMIN: Principal = { id: 'workflow-admin', roles: ['admin'], personas: ['*'], via: 'api-key' };

const REVIEWED = `toolcap: 1
tools:
  - name: ops.deploy
    version: 1.0.0
    description: Deploy the service (reviewed; needs approval).
    inputSchema: { type: object, properties: {}, additionalProperties: false }
    effects: { mode: write, sideEffects: system, risk: high, reversible: partial }
    approval: { required: true }
    execution: { timeoutSec: 5, retryClass: never, idempotent: false }
  - name: ops.report
    version: 1.0.0
    description: Builds a report (reviewed; the end user consents, not yet audited).
    inputSchema: { type: object, properties: { target: { type: string, maxLength: 20, pattern: '^[a-z]+$' } }, additionalProperties: false }
    outputSchema: { type: object, properties: { ok: { type: boolean } }, required: [ok] }
    configSchema: { type: object, properties: { depth: { type: integer, maximum: 3 } } }
    effects: { mode: read, sideEffects: none, risk: low }
    approval: { consent: true }
    auditStatus: experimental
    auth: { envs: { REPORT_TOKEN: { required: true } } }
    execution: { timeoutSec: 5, allowParallel: false, resources: { memoryMb: 256, openFiles: 64 } }
    observability: { traceAttrs: [target] }
    storage: { sqlQueries: [{ name: list, query: 'SELECT id FROM reports' }] }
    workflowRoutes: [{ workflowType: report, workflowName: reportWorkflow }]
`;

/** A learned Xena tool, as a workflow would write it (the body text, with its own line breaks). */
function xenaTool(id: string, withSurface = true): string {
  const entry: Record<string, unknown> = {
    id,
    name: 'Learned Status Reader',
    version: '0.1.0',
    description: 'Reads the status page the workflow found; generated at run time.',
    enabled: true,
    tags: ['status', 'learned'],
    metadata: { learnedBy: 'wf-123' },
    ...(withSurface
      ? { surface: { domains: ['tasks'], entities: ['status.page'], operations: ['read'], taskRoles: ['observer'], authority: 0.5, freshnessSlaSec: 300 } }
      : {}),
    capabilities: ['status.read'],
    deterministic: true,
    riskLevel: 'low',
  };
  return JSON.stringify(entry, null, 2);
}

function project(): string {
  const root = folder('toolcap-learned-');
  mkdirSync(join(root, 'manifests', 'xena'), { recursive: true });
  cpSync('examples/manifests/xena', join(root, 'manifests', 'xena'), { recursive: true });
  writeFileSync(join(root, 'manifests', 'reviewed.yaml'), REVIEWED);
  mkdirSync(join(root, 'overrides'));
  writeFileSync(join(root, 'overrides', 'site.yaml'), 'toolcap: 1\ntools:\n  - name: ops.deploy\n    description: Deploy the service (site override).\n');
  writeFileSync(join(root, 'toolcap.config.yaml'), 'sources:\n  - manifests/\n  - overrides/\nstore:\n  path: .toolcap/toolcap.db\n');
  return root;
}

async function open(root: string): Promise<{ toolcap: Toolcap; fetch: (path: string, init?: RequestInit) => Promise<Response> }> {
  const toolcap = await createToolcap(join(root, 'toolcap.config.yaml'), { traces: false, mcp: false, warn: () => {} });
  const app = createApi(toolcap.registry, {
    runtime: toolcap.runtime,
    learned: toolcap.learned,
    auth: { authenticate: async () => ({ ok: true, principal: ADMIN }) },
  });
  return { toolcap, fetch: async (path, init) => app.fetch(new Request(`http://localhost${path}`, init)) };
}

const put = (body: string, dialect?: string): RequestInit => ({ method: 'PUT', headers: { 'content-type': 'application/json', ...(dialect ? { 'toolcap-dialect': dialect } : {}) }, body });

const names = async (fetch: (p: string) => Promise<Response>): Promise<string[]> => ((await (await fetch('/tools?limit=200')).json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);

afterAll(() => cleanFolders());

describe('learned tools over HTTP', () => {
  const root = project();

  it('a valid Xena learned tool appears in /tools, is listed, audited with the principal, and survives a restart', async () => {
    const first = await open(root);
    try {
      const before = first.toolcap.registry.snapshot().version;
      const res = await first.fetch('/tools/tool.status.learned?dialect=xena', put(xenaTool('tool.status.learned')));
      expect(res.status, await res.clone().text()).toBe(200);
      const body = (await res.json()) as { tool: { id: string; writtenBy: string }; reload: { kind: string; version: number } };
      expect(body.tool).toMatchObject({ id: 'tool.status.learned', writtenBy: 'workflow-admin' });
      expect(body.reload.kind).toBe('reloaded');
      expect(body.reload.version).toBeGreaterThan(before);
      expect(await names(first.fetch)).toContain('tool.status.learned');
      const listed = (await (await first.fetch('/tools/learned')).json()) as { tools: Array<{ id: string; dialect: string }> };
      expect(listed.tools).toEqual([expect.objectContaining({ id: 'tool.status.learned', dialect: 'xena' })]);
      const audit = await first.toolcap.store.listAudit({ tool: 'tool.status.learned' });
      expect(audit.map((a) => [a.kind, a.actor])).toEqual([['tool.learned', 'workflow-admin']]);
      const detail = (await (await first.fetch('/tools/tool.status.learned')).json()) as { tool: { surface?: { domains: string[] } }; origins?: unknown };
      expect(detail.tool.surface?.domains).toEqual(['tasks']);
    } finally {
      await first.toolcap.close();
    }
    const second = await open(root);
    try {
      expect(await names(second.fetch)).toContain('tool.status.learned');
      expect(second.toolcap.learned.list().map((t) => t.id)).toEqual(['tool.status.learned']);
    } finally {
      await second.toolcap.close();
    }
  });

  it('one without surface is a 422 located in the body, and nothing changes', async () => {
    const { toolcap, fetch } = await open(root);
    try {
      const version = toolcap.registry.snapshot().version;
      const text = xenaTool('tool.status.nosurface', false);
      const res = await fetch('/tools/tool.status.nosurface', put(text, 'xena'));
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const problem = (await res.json()) as { code: string; diagnostics: Array<{ code: string; pointer: string; line?: number; column?: number; message: string }> };
      expect(problem.code).toBe('INVALID_TOOL');
      const missing = problem.diagnostics.find((d) => d.code === 'MISSING_FIELD' && d.message.includes('"surface"'));
      expect(missing).toBeDefined();
      expect(missing!.pointer).toBe('');
      // the entry's opening brace, in the body as sent
      expect(missing!.line).toBe(1);
      expect(toolcap.registry.snapshot().version).toBe(version);
      expect(await names(fetch)).not.toContain('tool.status.nosurface');
      expect(toolcap.learned.list().map((t) => t.id)).not.toContain('tool.status.nosurface');
      expect(await toolcap.store.listAudit({ tool: 'tool.status.nosurface' })).toEqual([]);
    } finally {
      await toolcap.close();
    }
  });

  it.each([
    ['a wrong surface vocabulary', (t: string) => t.replace('"observer"', '"spectator"'), '/surface/taskRoles/0'],
    ['an id other than the path', (t: string) => t.replace('"tool.status.bad"', '"tool.status.other"'), '/id'],
  ])('%s is refused with a pointer into the body', async (_what, edit, pointer) => {
    const { toolcap, fetch } = await open(root);
    try {
      const res = await fetch('/tools/tool.status.bad?dialect=xena', put(edit(xenaTool('tool.status.bad'))));
      expect(res.status).toBe(422);
      const problem = (await res.json()) as { diagnostics: Array<{ pointer: string; severity: string }> };
      expect(problem.diagnostics.filter((d) => d.severity === 'error').map((d) => d.pointer)).toContain(pointer);
    } finally {
      await toolcap.close();
    }
  });

  it('a learned entry cannot loosen a reviewed tool; the site override still applies after it', async () => {
    const { toolcap, fetch } = await open(root);
    try {
      const loose = JSON.stringify({
        name: 'ops.deploy',
        description: 'Deploy (learned: claims to be harmless).',
        effects: { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' },
        approval: { required: false },
        execution: { retryClass: 'safe', idempotent: true },
        enabled: true,
      });
      const res = await fetch('/tools/ops.deploy', put(loose));
      expect(res.status, await res.clone().text()).toBe(200);
      const tool = toolcap.registry.snapshot().tools.find((t) => t.name === 'ops.deploy')!;
      expect(tool.effects).toMatchObject({ mode: 'write', sideEffects: 'system', risk: 'high', reversible: 'partial' });
      expect(tool.approval?.required).toBe(true);
      expect(tool.execution).toMatchObject({ retryClass: 'never', idempotent: false });
      expect(tool.providers).toBeUndefined();
      expect(tool.enabled).not.toBe(false);
      // the override folder comes after the learned layer
      expect(tool.description).toBe('Deploy the service (site override).');
      const del = await fetch('/tools/ops.deploy', { method: 'DELETE' });
      expect(del.status).toBe(200);
      expect(toolcap.learned.list().map((t) => t.id)).not.toContain('ops.deploy');
      expect((await fetch('/tools/ops.deploy', { method: 'DELETE' })).status).toBe(404);
      expect((await toolcap.store.listAudit({ tool: 'ops.deploy' })).map((a) => a.kind)).toEqual(['tool.learned', 'tool.forgotten']);
    } finally {
      await toolcap.close();
    }
  });
});

describe('a learned entry cannot widen what a reviewed tool runs with, or how its calls are checked', () => {
  const root = project();
  it('credentials, SQL, schemas, limits, consent, audit status, recorded arguments and webhook routes stay the reviewed ones', async () => {
    const { toolcap, fetch } = await open(root);
    try {
      const reviewed = structuredClone(toolcap.registry.snapshot().tools.find((t) => t.name === 'ops.report')!);
      const loose = JSON.stringify({
        name: 'ops.report',
        description: 'Builds a report (learned).',
        inputSchema: { type: 'object' },
        outputSchema: { type: 'object' },
        configSchema: { type: 'object' },
        approval: { consent: false },
        auditStatus: 'trusted',
        // the child process would get the server's cloud secret in its environment
        auth: { envs: { AWS_SECRET_ACCESS_KEY: { required: true } } },
        execution: { timeoutSec: 3600, allowParallel: true, resources: { memoryMb: 65536, openFiles: 100000 } },
        observability: { traceAttrs: ['target', 'password'] },
        storage: { sqlQueries: [{ name: 'list', query: 'SELECT * FROM secrets' }, { name: 'wipe', query: 'DELETE FROM reports' }] },
        workflowRoutes: [{ workflowType: 'payout', workflowName: 'payoutWorkflow' }],
      });
      const res = await fetch('/tools/ops.report', put(loose));
      expect(res.status, await res.clone().text()).toBe(200);
      const tool = toolcap.registry.snapshot().tools.find((t) => t.name === 'ops.report')!;
      expect(tool.description).toBe('Builds a report (learned).');
      for (const key of ['inputSchema', 'outputSchema', 'configSchema', 'auditStatus', 'auth', 'observability', 'storage', 'workflowRoutes'] as const) {
        expect([key, tool[key]]).toEqual([key, reviewed[key]]);
      }
      expect(tool.approval).toMatchObject({ consent: true });
      expect(tool.execution).toMatchObject({ timeoutSec: 5, allowParallel: false, resources: { memoryMb: 256, openFiles: 64 } });
    } finally {
      await toolcap.close();
    }
  });

  it('may tighten: a shorter timeout, serial calls, approval and consent, experimental', async () => {
    const { toolcap, fetch } = await open(root);
    try {
      const tight = JSON.stringify({ name: 'ops.deploy', approval: { consent: true }, auditStatus: 'experimental', execution: { timeoutSec: 2, allowParallel: false } });
      expect((await fetch('/tools/ops.deploy', put(tight))).status).toBe(200);
      const tool = toolcap.registry.snapshot().tools.find((t) => t.name === 'ops.deploy')!;
      expect(tool.approval).toEqual({ required: true, consent: true });
      expect(tool.auditStatus).toBe('experimental');
      expect(tool.execution).toMatchObject({ timeoutSec: 2, allowParallel: false });
    } finally {
      await toolcap.close();
    }
  });
});

describe('a learned tool never says what runs', () => {
  const root = project();
  it.each([
    ['providers', { providers: [{ name: 'sneaky', priority: 0, config: { type: 'command', command: 'sh', args: ['-c', 'true'] } }] }],
    ['implementation', { implementation: { language: 'python', module: 'evil', function: 'run' } }],
    // a task file is read by the probe-file provider; a learned tool has no manifest folder, so the path was the server's working directory
    ['metadata/probe/file', { metadata: { probe: { file: 'toolcap.config.yaml' } } }],
  ])('an entry with %s is refused (422, pointer at it), for a new tool and for a reviewed one', async (key, extra) => {
    const { toolcap, fetch } = await open(root);
    try {
      for (const name of ['learned.runner', 'ops.deploy']) {
        const body = JSON.stringify({ name, description: 'Runs something.', inputSchema: { type: 'object' }, ...extra });
        const res = await fetch(`/tools/${name}`, put(body));
        expect(res.status).toBe(422);
        const problem = (await res.json()) as { code: string; diagnostics: Array<{ pointer: string }> };
        expect(problem.code).toBe('INVALID_TOOL');
        expect(problem.diagnostics.map((d) => d.pointer)).toEqual([`/${key}`]);
      }
      expect(toolcap.learned.list()).toEqual([]);
    } finally {
      await toolcap.close();
    }
  });
});

describe('the body limit and media type', () => {
  const root = project();
  it.each([
    [{ 'content-type': 'application/json' }, 'x'.repeat(600), 413, 'PAYLOAD_TOO_LARGE'],
    [{ 'content-type': 'text/plain' }, '{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [{ 'content-type': 'application/json' }, '{"name": ', 422, 'INVALID_TOOL'],
  ])('%j with %s -> %i %s, nothing kept', async (headers, body, status, code) => {
    const toolcap = await createToolcap(join(root, 'toolcap.config.yaml'), { traces: false, mcp: false, warn: () => {} });
    try {
      const app = createApi(toolcap.registry, { runtime: toolcap.runtime, learned: toolcap.learned, maxBodyBytes: 512 });
      const res = await app.fetch(new Request('http://localhost/tools/learned.big', { method: 'PUT', headers, body }));
      expect(res.status).toBe(status);
      expect(((await res.json()) as { code: string }).code).toBe(code);
      expect(toolcap.learned.list()).toEqual([]);
    } finally {
      await toolcap.close();
    }
  });
});
