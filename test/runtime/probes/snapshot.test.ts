/**
 * The task snapshot over a real toolcap (registry, SQLite store, runtime
 * with the built-in providers and probe-file): an http provider to a local
 * stand-in for a tracker's API mapped by metadata.probe, file and folder
 * sources, a path escaping the manifest's folder, items that are not
 * observations, a probe past its timeout, an adapter bound by tool id, an
 * MCP server (a real stdio server made with the SDK) whose JSON text is
 * mapped, and which tools count as task sources.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolcap, type Toolcap } from '../../../src/host.js';
import { ProbeAdapters } from '../../../src/runtime/probes/adapters.js';
import { taskSnapshot } from '../../../src/runtime/probes/snapshot.js';
import type { SourceReport, TaskSnapshot } from '../../../src/runtime/probes/types.js';

let root: string;
let server: Server;
let toolcap: Toolcap;
let snap: TaskSnapshot;
const now = () => new Date(Date.now() - 5_000).toISOString();

const source = (name: string, extra: string) => `
  - name: ${name}
    description: ${name}
    capabilities: [tasks.probe]
    surface: { domains: [tasks], entities: [task], operations: [probe], taskRoles: [source], authority: 0.5, freshnessSlaSec: 600 }
    effects: { mode: read, sideEffects: none }
${extra}`;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-probes-'));
  server = createServer((req, res) => {
    if (req.url === '/slow') return; // never answers
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ data: { issues: [
      { number: 7, name: 'Fresh issue', state: 'open', updated: now(), link: 'https://tracker.example/7', assignee: { name: 'kim' } },
      { number: 8, name: 'No time', state: 'open' },
      { number: 9, name: 'Bad link', state: 'open', updated: now(), link: 'javascript:alert(1)' },
    ] } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = join(root, 'manifests');
  mkdirSync(join(dir, 'tasks'), { recursive: true });
  writeFileSync(join(dir, 'tasks', 'a.json'), JSON.stringify({ taskId: 'A', title: 'From a.json', state: 'open', updatedAt: now() }));
  writeFileSync(join(dir, 'tasks', 'b.jsonl'), `${JSON.stringify({ taskId: 'B', title: 'From b.jsonl', state: 'done', updatedAt: Math.floor(Date.now() / 1000) - 3600 })}\n\n`);
  writeFileSync(join(dir, 'tasks', 'notes.txt'), 'not a task file');
  writeFileSync(join(dir, 'bad.jsonl'), '{"id": 1}\n[1,2]\n');
  writeFileSync(join(root, 'outside.jsonl'), '');
  const sdk = join(process.cwd(), 'node_modules/@modelcontextprotocol/sdk/dist/esm/server');
  writeFileSync(
    join(root, 'tracker.mjs'),
    `import { McpServer } from '${sdk}/mcp.js';
import { StdioServerTransport } from '${sdk}/stdio.js';
const server = new McpServer({ name: 'tracker', version: '1.0.0' });
server.registerTool('list_tasks', { description: 'open tasks' }, async () => ({
  content: [{ type: 'text', text: JSON.stringify([{ key: 'M-1', summary: 'From MCP', status: 'open', at: new Date().toISOString() }]) }],
}));
await server.connect(new StdioServerTransport());
`,
  );
  writeFileSync(
    join(dir, 'tools.yaml'),
    `toolcap: 1\ntools:` +
      source('t.http', `    providers: [{ name: tracker, config: { type: http, baseUrl: "${base}", path: /issues } }]\n    metadata: { probe: { items: $.data.issues, taskId: number, title: name, updatedAt: updated, url: link, assignee: assignee.name } }\n`) +
      source('t.slow', `    providers: [{ name: tracker, config: { type: http, baseUrl: "${base}", path: /slow } }]\n    execution: { timeoutSec: 1, retryClass: never }\n    metadata: { probe: {} }\n`) +
      source('t.folder', `    metadata: { probe: { file: tasks } }\n`) +
      source('t.escape', `    metadata: { probe: { file: ../outside.jsonl } }\n`) +
      source('t.allbad', `    metadata: { probe: { file: bad.jsonl } }\n`) +
      source('t.badpath', `    providers: [{ name: tracker, config: { type: http, baseUrl: "${base}", path: /issues } }]\n    metadata: { probe: { items: "$.data[issues" } }\n`) +
      source('t.bound', '') +
      source('t.mcp', `    providers: [{ name: mcp, config: { server: tracker, tool: list_tasks } }]\n    metadata: { probe: { taskId: key, title: summary, state: status, updatedAt: at } }\n`) +
      source('t.none', '') +
      source('t.off', `    enabled: false\n    metadata: { probe: { file: tasks } }\n`) +
      `  - name: t.observer\n    description: not a source\n    capabilities: [tasks.probe]\n    surface: { domains: [tasks], entities: [task], operations: [probe], taskRoles: [observer], authority: 0.5, freshnessSlaSec: 60 }\n    effects: { mode: read, sideEffects: none }\n    metadata: { probe: { file: tasks } }\n`,
  );
  writeFileSync(join(root, 'toolcap.config.yaml'), 'sources: [manifests/]\nstore: { path: .toolcap/toolcap.db }\nmcp: { servers: { tracker: { command: node, args: [tracker.mjs] } } }\n');
  toolcap = await createToolcap(join(root, 'toolcap.config.yaml'), { traces: false, warn: () => undefined });
  const adapters = new ProbeAdapters()
    .register({ name: 'static', probe: async () => [{ taskId: 'S-1', title: 'Bound by id', state: 'open', updatedAt: now() }] })
    .bind('t.bound', 'static');
  snap = await taskSnapshot(toolcap.runtime, toolcap.registry, adapters);
});

afterAll(async () => {
  await toolcap?.close();
  server?.close();
  rmSync(root, { recursive: true, force: true });
});

const report = (tool: string): SourceReport => {
  const r = snap.sources.find((s) => s.tool === tool);
  if (!r) throw new Error(`no report for ${tool}`);
  return r;
};

describe('task snapshot', () => {
  it('lists exactly the enabled tools with tasks.probe and role source', () => {
    expect(snap.sources.map((s) => s.tool).sort()).toEqual(['t.allbad', 't.badpath', 't.bound', 't.escape', 't.folder', 't.http', 't.mcp', 't.none', 't.slow']);
    expect(snap.counts).toEqual({ ok: 4, stale: 0, error: 4, unsupported: 1 });
  });

  it('maps an http answer by metadata.probe, rejecting bad items without passing them on', () => {
    expect(report('t.http')).toMatchObject({
      status: 'ok',
      adapter: 'mapping',
      observations: [{ taskId: '7', title: 'Fresh issue', state: 'open', url: 'https://tracker.example/7', assignee: 'kim', stale: false }],
      rejected: [{ index: 1, field: 'updatedAt' }, { index: 2, field: 'url' }],
    });
    expect(report('t.http').observations).toHaveLength(1);
    expect(JSON.stringify(report('t.http').rejected)).not.toContain('javascript');
  });

  it('reads a folder of .json and .jsonl task files, newest first, epoch seconds as times', () => {
    const r = report('t.folder');
    expect(r).toMatchObject({ status: 'ok', adapter: 'file', observations: [{ taskId: 'A', stale: false }, { taskId: 'B', state: 'done', stale: true }] });
    expect(r.newestAt).toBe(r.observations?.[0]?.updatedAt);
  });

  it.each([
    ['t.escape', 'NO_HEALTHY_PROVIDER', /outside the manifest's folder/],
    ['t.allbad', 'BAD_OBSERVATIONS', /none of the 2 items/],
    ['t.badpath', 'PROBE_MAPPING', /metadata\.probe\.items: path "\$\.data\[issues" at 6: unclosed/],
    ['t.slow', 'TIMEOUT', /./],
  ])('%s is an error with code %s', (tool, code, reason) => {
    expect(report(tool)).toMatchObject({ status: 'error', code, reason: expect.stringMatching(reason) });
  });

  it('maps the JSON text an MCP tool answers', () => {
    expect(report('t.mcp')).toMatchObject({ status: 'ok', adapter: 'mapping', observations: [{ taskId: 'M-1', title: 'From MCP', state: 'open', stale: false }] });
  });

  it('uses an adapter bound by tool id, and reports a source with none as unsupported', () => {
    expect(report('t.bound')).toMatchObject({ status: 'ok', adapter: 'static', observations: [{ taskId: 'S-1' }] });
    expect(report('t.none')).toMatchObject({ status: 'unsupported', reason: expect.stringMatching(/no probe adapter/) });
  });

  it('runs probes through the runtime: each call is on the audit log and in health', async () => {
    await toolcap.runtime.flush();
    const audit = await toolcap.store.listAudit({ tool: 't.http', limit: 100 });
    expect(audit.some((a) => a.callId === report('t.http').callIds?.[0])).toBe(true);
    expect(toolcap.runtime.health.lookup('t.slow')).toMatchObject({ calls: 1, successRate: 0 });
  });
});
