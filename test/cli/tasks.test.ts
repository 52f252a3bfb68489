/**
 * `toolcap tasks snapshot` and `GET /tasks/snapshot` on the bundled Xena
 * example (examples/manifests/xena with examples/overrides/xena-tasks.yaml):
 * one ok source (a command provider mapped by metadata.probe), one stale
 * (the file adapter over a checked-in export), one unsupported (an adapter
 * name nothing registers); in-process CLI, a served API and the CLI as its
 * client, and every probe on the audit log.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { serveCli } from './helpers.js';
import type { TaskSnapshot } from '../../src/runtime/probes/types.js';

let root: string;
let configFile: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-tasks-'));
  cpSync('examples/manifests/xena', join(root, 'xena'), { recursive: true });
  cpSync('examples/overrides/xena-tasks.yaml', join(root, 'xena-tasks.yaml'));
  configFile = join(root, 'toolcap.config.yaml');
  writeFileSync(configFile, 'sources: [xena/, xena-tasks.yaml]\nstore: { path: .toolcap/toolcap.db }\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function cli(env: Record<string, string>, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  return { code, stdout, stderr };
}

function expectExampleSnapshot(snap: TaskSnapshot): void {
  expect(snap.counts).toEqual({ ok: 1, stale: 1, error: 0, unsupported: 1 });
  const by = Object.fromEntries(snap.sources.map((s) => [s.tool, s]));
  expect(by['tool.tasks.example.source']).toMatchObject({ status: 'ok', adapter: 'mapping', freshnessSlaSec: 120, observations: [{ taskId: 'EX-42', state: 'in_progress', assignee: 'xena', stale: false }, { taskId: 'EX-41', stale: true }] });
  expect(by['tool.tasks.example.source']?.callIds).toHaveLength(1);
  expect(by['tool.tasks.support.queue']).toMatchObject({ status: 'stale', adapter: 'file', newestAt: '2025-06-02T09:14:00.000Z', observations: [{ taskId: 'SUP-311', assignee: 'dana', stale: true }, { taskId: 'SUP-308', stale: true }] });
  expect(by['tool.tasks.linear.assigned']).toMatchObject({ status: 'unsupported', reason: expect.stringContaining('"linearAssigned"') });
  expect(by['tool.tasks.linear.assigned']).not.toHaveProperty('observations');
}

describe('toolcap tasks snapshot on the Xena example', () => {
  it('reports one ok, one stale and one unsupported source, and prints them', async () => {
    const json = await cli({}, 'tasks', 'snapshot', '--config', configFile, '--json');
    expect(json.code, json.stderr).toBe(0);
    expectExampleSnapshot(JSON.parse(json.stdout) as TaskSnapshot);
    const text = await cli({}, 'tasks', 'snapshot', '--config', configFile);
    expect(text.stdout).toMatch(/1 ok, 1 stale, 0 error, 1 unsupported/);
    expect(text.stdout).toMatch(/^unsupported tool\.tasks\.linear\.assigned$/m);
  });

  it('each probe is a call on the audit log', async () => {
    const snap = JSON.parse((await cli({}, 'tasks', 'snapshot', '--config', configFile, '--json')).stdout) as TaskSnapshot;
    const ids = snap.sources.flatMap((s) => s.callIds ?? []);
    expect(ids).toHaveLength(2);
    const audit = await cli({}, 'audit', '--config', configFile, '--call-id', ids[0]!, '--json');
    const records = (JSON.parse(audit.stdout) as { audit: Array<{ callId: string; event: string }> }).audit;
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.callId === ids[0])).toBe(true);
  });

  it('a bad persona is a usage-level error, not a crash', async () => {
    const r = await cli({}, 'tasks', 'snapshot', '--config', configFile, '--persona', 'nobody');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/UNKNOWN_PERSONA/);
  });
});

describe('GET /tasks/snapshot, and the CLI as its client', () => {
  it('answers the same sources over HTTP and through --server', async () => {
    const served = await serveCli(['--config', configFile]);
    try {
      const url = served.url;
      const res = await fetch(new URL('/tasks/snapshot', url));
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expectExampleSnapshot((await res.json()) as TaskSnapshot);
      const bad = await fetch(new URL('/tasks/snapshot?limit=3', url));
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ code: 'BAD_PARAMETER' });
      const remote = await cli({}, 'tasks', 'snapshot', '--server', url, '--json');
      expect(remote.code, remote.stderr).toBe(0);
      expectExampleSnapshot(JSON.parse(remote.stdout) as TaskSnapshot);
    } finally {
      await served.stop();
    }
  });
});
