/**
 * `toolcap tools upsert|learned|forget` in process (the config's store, as
 * its local principal) and as a client of a served API (`--server`): a Xena
 * learned tool is kept and listed by `list` after a new process opens the
 * same store; one without `surface` exits 1 with a located finding and
 * changes nothing; a principal without tools.write is refused.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { serveCli } from './helpers.js';
import { createToolcap } from '../../src/host.js';

let root: string;
let configFile: string;

const entry = (id: string, surface = true): string =>
  JSON.stringify(
    {
      id,
      name: 'Learned Queue Reader',
      version: '0.1.0',
      description: 'Reads a queue a workflow found.',
      enabled: true,
      tags: ['learned'],
      metadata: {},
      ...(surface ? { surface: { domains: ['tasks'], entities: ['queue.item'], operations: ['read'], taskRoles: ['observer'], authority: 0.4, freshnessSlaSec: 600 } } : {}),
      capabilities: ['queue.read'],
      deterministic: true,
      riskLevel: 'low',
    },
    null,
    2,
  );

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-learned-cli-'));
  cpSync('examples/manifests/xena', join(root, 'xena'), { recursive: true });
  configFile = join(root, 'toolcap.config.yaml');
  writeFileSync(configFile, 'sources: [xena/]\nstore: { path: .toolcap/toolcap.db }\n');
  writeFileSync(join(root, 'good.json'), entry('tool.queue.learned'));
  writeFileSync(join(root, 'bad.json'), entry('tool.queue.nosurface', false));
  writeFileSync(join(root, 'other.json'), entry('tool.queue.other'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {} });
  return { code, stdout, stderr };
}

describe('toolcap tools upsert / learned / forget', () => {
  it('keeps a valid Xena tool; a later process lists it and serves it', async () => {
    const up = await cli('tools', 'upsert', join(root, 'good.json'), '--as', 'xena', '--config', configFile);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/kept learned tool tool\.queue\.learned \(xena, by local\)/);
    const listed = await cli('tools', 'learned', '--config', configFile, '--json');
    expect((JSON.parse(listed.stdout) as { tools: Array<{ id: string }> }).tools.map((t) => t.id)).toEqual(['tool.queue.learned']);
    // a host opened on the same store (as serve, call and tasks snapshot open it) serves it
    const host = await createToolcap(configFile, { mcp: false, traces: false, warn: () => {} });
    try {
      expect(host.registry.snapshot().tools.map((t) => t.name)).toContain('tool.queue.learned');
    } finally {
      await host.close();
    }
  });

  it('refuses one without surface with a located finding, exit 1, nothing kept', async () => {
    const bad = await cli('tools', 'upsert', join(root, 'bad.json'), '--as', 'xena', '--config', configFile);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/INVALID_TOOL/);
    expect(bad.stderr).toMatch(/bad\.json:1:1 \/ error MISSING_FIELD: .*"surface"/);
    const listed = await cli('tools', 'learned', '--config', configFile, '--json');
    expect((JSON.parse(listed.stdout) as { tools: Array<{ id: string }> }).tools.map((t) => t.id)).not.toContain('tool.queue.nosurface');
  });

  it('works as a client of a served API, and forgets', async () => {
    const served = await serveCli(['--config', configFile]);
    try {
      const url = served.url;
      const up = await cli('tools', 'upsert', join(root, 'other.json'), '--as', 'xena', '--server', url);
      expect(up.code, up.stderr).toBe(0);
      const page = (await (await fetch(new URL('/tools?limit=200', url))).json()) as { tools: Array<{ name: string }> };
      expect(page.tools.map((t) => t.name)).toContain('tool.queue.other');
      const bad = await cli('tools', 'upsert', join(root, 'bad.json'), '--as', 'xena', '--server', url);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/INVALID_TOOL/);
      expect(bad.stderr).toMatch(/MISSING_FIELD: .*"surface"/);
      const gone = await cli('tools', 'forget', 'tool.queue.other', '--server', url);
      expect(gone.code, gone.stderr).toBe(0);
      const after = (await (await fetch(new URL('/tools?limit=200', url))).json()) as { tools: Array<{ name: string }> };
      expect(after.tools.map((t) => t.name)).not.toContain('tool.queue.other');
      expect((await cli('tools', 'forget', 'tool.queue.other', '--server', url)).code).toBe(1);
    } finally {
      await served.stop();
    }
  });
});
