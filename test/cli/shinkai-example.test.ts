/**
 * examples/shinkai end to end, as a user runs it: `toolcap call` as its own
 * process (bin/toolcap.js's body over the sources), each call a fresh
 * process over the same store folder, so the tool's SQL state survives
 * restarts; then `toolcap serve` and the HTTP API over a real socket. The
 * Notes Keeper runs in a worker thread (the module provider's default),
 * reading its configuration from the config and the environment and its
 * own SQLite database through `context.sql`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, type ChildBundle } from '../helpers/child-bundle.js';
import { stopChild } from '../helpers/stop-child.js';

// the CLI compiled once for this file and run with node (through vite-node each start transpiled the sources again)
let toolcapChild: ChildBundle;
beforeAll(async () => {
  toolcapChild = await bundleChild(new URL('./toolcap-child.ts', import.meta.url));
});
afterAll(() => toolcapChild.remove());
const KEY = 'notes-signing-key-5f0c1a9e7d';

let root: string;
let config: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-shinkai-example-'));
  cpSync('examples/shinkai', root, { recursive: true });
  config = join(root, 'toolcap.config.yaml');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** The environment of a child: this one's, with the signing key or (null) without it. */
function envWith(key: string | null): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['NOTES_SIGNING_KEY'];
  if (key !== null) env['NOTES_SIGNING_KEY'] = key;
  return env;
}

/** Run `toolcap ...args` as its own process. */
function toolcap(args: string[], key: string | null = KEY): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [toolcapChild.file, ...args], { env: envWith(key), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const call = (args: object, key: string | null = KEY) => toolcap(['call', 'notes_keeper', '--config', config, '--args', JSON.stringify(args), '--json'], key);

describe('examples/shinkai through toolcap call, one process per call', () => {
  it('adds a note, then a new process lists it: configuration and SQL state across restarts', async () => {
    const added = await call({ action: 'add', text: 'buy milk' });
    expect(added.stderr).not.toContain(KEY);
    expect(added.code).toBe(0);
    const a = JSON.parse(added.stdout);
    expect(a).toMatchObject({ status: 'ok', provider: 'module', result: { owner: 'ada', total: 1, calls: 1, notes: [{ text: 'buy milk', signature: expect.stringMatching(/^[0-9a-f]{16}$/) }] } });
    const listed = await call({ action: 'list' });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({ status: 'ok', result: { owner: 'ada', total: 1, calls: 2, notes: [{ id: a.result.notes[0].id, text: 'buy milk' }] } });
    // the tool's own database, beside the store
    expect(readdirSync(join(root, '.toolcap', 'tools'))).toEqual([expect.stringMatching(/^notes_keeper_[0-9a-f]{8}\.db$/)]);
  }, 60_000);

  it('without its secret the tool is unavailable: a located warning, NO_HEALTHY_PROVIDER, exit 1', async () => {
    const r = await call({ action: 'list' }, null);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/toolcap\.config\.yaml:\d+:\d+: TOOL_CONFIGURATION_INVALID Tool "notes_keeper" is unavailable: the environment variable NOTES_SIGNING_KEY is not set/);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', code: 'NO_HEALTHY_PROVIDER', message: expect.stringMatching(/NOTES_SIGNING_KEY is not set/) });
  }, 60_000);

  it('a result that breaks the declared "result" fails the call (runtime.results: fail), and the secret stays out of the output', async () => {
    const tool = join(root, 'tools', 'notes-keeper', 'tool.mjs');
    const original = readFileSync(tool, 'utf8');
    writeFileSync(tool, `export async function run(_p, { configurations }) { return { owner: configurations.signingKey, total: 'many' }; }\n`);
    try {
      const r = await call({ action: 'list' });
      expect(r.code).toBe(1);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ status: 'error', code: 'RESULT_MISMATCH' });
      expect(out.problems.map((p: { pointer: string }) => p.pointer)).toEqual(expect.arrayContaining(['/total', '/calls', '/notes']));
      expect(r.stdout + r.stderr).not.toContain(KEY);
    } finally {
      writeFileSync(tool, original);
    }
  }, 60_000);
});

describe('examples/shinkai through the HTTP API', () => {
  let server: ChildProcess | undefined;
  // waited for: the folder is removed next
  afterAll(() => stopChild(server));

  it('calls the tool, sees the notes of the earlier processes, and shows result drift with the tool', async () => {
    server = spawn(process.execPath, [toolcapChild.file, 'serve', '--config', config, '--port', '0'], { env: envWith(KEY), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      server!.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /at (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server!.on('close', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    });
    const post = (args: object) => fetch(`${url}/tools/notes_keeper/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ arguments: args }) });
    const added = await post({ action: 'add', text: 'call the plumber' });
    expect(added.status).toBe(200);
    expect(await added.json()).toMatchObject({ status: 'ok', result: { total: 2 } });
    const listed = (await (await post({ action: 'list' })).json()) as { result: { notes: Array<{ text: string }> } };
    expect(listed.result.notes.map((n: { text: string }) => n.text)).toEqual(['buy milk', 'call the plumber']);
    const bad = await post({ action: 'shout' });
    expect(bad.status).toBe(400);
    const tool = (await (await fetch(`${url}/tools/notes_keeper`)).json()) as { health: unknown };
    expect(tool.health).toMatchObject({ resultDrift: { checked: 2, mismatches: 0 } });
    expect(JSON.stringify(tool)).not.toContain(KEY);
  }, 60_000);
});
