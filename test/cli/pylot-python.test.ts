/**
 * A Pylot project end to end: examples/pylot (manifests in config/, the
 * Python package beside them, no providers block) run through `toolcap
 * validate`, `toolcap call` and `toolcap serve`'s HTTP API, with real Python
 * workers behind them.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, serveCli as serve } from './helpers.js';

let root: string;
let config: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-pylot-'));
  cpSync('examples/pylot', join(root, 'pylot'), { recursive: true, filter: (src) => !src.includes('.toolcap') && !src.includes('__pycache__') });
  config = join(root, 'pylot', 'toolcap.config.yaml');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});



describe('a Pylot project through the CLI and the HTTP API', () => {
  it('validates: every module imports and every class is found', async () => {
    const r = await cli('validate', '--config', config);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/5 tools; 0 errors, 0 warnings/);
  });

  it('toolcap call runs a Python tool and prints its result', async () => {
    const r = await cli('call', 'read_note', '--args', '{"name": "welcome.txt"}', '--config', config, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', tool: 'read_note', provider: 'python', result: { name: 'welcome.txt', text: expect.stringContaining('Pylot example') } });
  });

  it('toolcap call reports the Python exception and exits 1', async () => {
    const r = await cli('call', 'read_note', '--args', '{"name": "../config/tool_manifest.json"}', '--config', config);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ValueError: note '\.\.\/config\/tool_manifest\.json' is not in the notes folder/);
    expect(r.stderr).not.toMatch(/Traceback/);
  });

  it('a broken module fails validate at its manifest line', async () => {
    const broken = join(root, 'pylot', 'config', 'broken.json');
    writeFileSync(broken, JSON.stringify({ schema_version: '1.0', metadata: { name: 'b' }, tools: [{ name: 'gone', description: 'd', module: 'pylot_tools.gone', permissions: ['read_files'] }] }, null, 2));
    try {
      const r = await cli('validate', '--config', config);
      expect(r.code).toBe(1);
      const out = r.stdout + r.stderr;
      expect(out).toMatch(/broken\.json:\d+:\d+: error MODULE_NOT_IMPORTABLE: Tool "gone"/);
    } finally {
      rmSync(broken);
    }
  });

  it('POST /tools/{name}/call runs it through toolcap serve', async () => {
    const server = await serve(['--config', config]);
    try {
      const call = (name: string, args: Record<string, unknown>) =>
        fetch(`${server.url}/tools/${name}/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ arguments: args }) });
      const ok = await call('read_note', { name: 'welcome.txt' });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ status: 'ok', provider: 'python', result: { name: 'welcome.txt' } });
      const listed = await call('list_notes', {});
      expect(await listed.json()).toMatchObject({ status: 'ok', result: { notes: ['welcome.txt'] } });
      const failed = await call('read_note', { name: 'nope.txt' });
      expect(failed.status).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(await failed.json())).toMatch(/FileNotFoundError: no note named 'nope.txt'/);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 30_000);
});
