/**
 * createToolcap, the composition root: opened on a temp copy of the
 * examples' sources, it serves a snapshot, runs a call through the runtime,
 * and close() leaves nothing running; what keeps it from opening is one
 * typed error; a change to the config's mcp section reconnects after one
 * quiet period.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { createToolcap, ToolcapOpenError, type Toolcap } from '../src/host.js';
import { createApi } from '../src/server/app.js';

const CHANGING = join(process.cwd(), 'test/fixtures/mcp-servers/changing.mjs');

const folders: string[] = [];
const opened: Toolcap[] = [];

afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
  for (const d of folders.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp project holding a copy of examples/manifests and examples/overrides, and `toolcap.config.yaml` with `config`. */
function project(config: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-host-'));
  folders.push(dir);
  cpSync('examples/manifests', join(dir, 'manifests'), { recursive: true });
  cpSync('examples/overrides', join(dir, 'overrides'), { recursive: true });
  const file = join(dir, 'toolcap.config.yaml');
  writeFileSync(file, config);
  return { dir, file };
}

/** Poll until `check` holds; fails after `timeoutMs` (a bound, not a timing assertion). */
async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Handles and requests the process holds, by kind (what would keep a test process alive). */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

describe('createToolcap', () => {
  it('opens on a config, serves a snapshot, runs a call, and close() leaves nothing running', async () => {
    const { dir, file } = project('sources: [manifests/, overrides/]\n');
    const before = resources();
    const warnings: string[] = [];
    const toolcap = await createToolcap(file, { watch: true, warn: (m) => warnings.push(m) });

    expect(toolcap.config?.root).toBe(loadConfig(file).config?.root);
    expect(toolcap.layers.length).toBe(2);
    expect(toolcap.mcp).toBeUndefined();
    expect(toolcap.configWatcher).toBeUndefined(); // no MCP servers: nothing in the config to apply live
    expect(toolcap.store.location).toContain(join(dir, '.toolcap', 'toolcap.db'));
    expect(toolcap.traceFile).toBe(join(dir, '.toolcap', 'traces.jsonl'));
    expect(toolcap.registry.status()).toMatchObject({ ok: true, watching: true });

    const snap = toolcap.registry.snapshot();
    expect(snap.tools.some((t) => t.name === 'text.reverse')).toBe(true);
    const api = createApi(toolcap.registry, { runtime: toolcap.runtime, health: toolcap.health });
    const tools = (await (await api.fetch(new Request('http://toolcap.test/tools?limit=500'))).json()) as { total: number };
    expect(tools.total).toBe(snap.tools.length);

    const call = await toolcap.runtime.call('text.reverse', { text: 'abc' }, { caller: 'test' });
    expect(call).toMatchObject({ status: 'ok', tool: 'text.reverse', result: { reversed: 'cba' } });

    await toolcap.close();
    await toolcap.close(); // twice is harmless
    expect(toolcap.registry.status().watching).toBe(false);
    expect(warnings).toEqual([]);
    // every watcher, timer and handle it made is gone (a handle's close request may still be on its way: wait for it)
    const leftover = () => [...resources()].filter(([kind, n]) => n > (before.get(kind) ?? 0));
    await until(() => leftover().length === 0, 5_000, 'no handles left').catch(() => undefined);
    expect(leftover()).toEqual([]);
  });

  it('opens from paths alone, with the store in the current folder unless told otherwise', async () => {
    const { dir } = project('sources: [manifests/]\n');
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const toolcap = await createToolcap(undefined, { paths: ['manifests'], traces: false });
      opened.push(toolcap);
      expect(toolcap.config).toBeUndefined();
      expect(toolcap.layers).toEqual(['manifests']);
      expect(toolcap.traceFile).toBeUndefined();
      expect(toolcap.store.location).toContain(join(dir, '.toolcap', 'toolcap.db'));
    } finally {
      process.chdir(cwd);
    }
  });

  it.each([
    { what: 'a config with an error', config: 'sources: [nowhere/]\n', reason: 'config', unreadable: false, code: 'PATH_NOT_FOUND' },
    { what: 'a catalog with an error', config: 'sources: [broken.yaml]\n', reason: 'catalog', unreadable: false, code: undefined },
    { what: 'a store that cannot be opened', config: 'sources: [manifests/]\nstore: { path: manifests/toolcap }\n', reason: 'store', unreadable: false, code: undefined },
  ])('refuses $what with one ToolcapOpenError ($reason)', async ({ config, reason, unreadable, code }) => {
    const { dir, file } = project(config);
    writeFileSync(join(dir, 'broken.yaml'), 'toolcap: 1\ntools:\n  - name: Not A Name\n');
    const error = await createToolcap(file, { traces: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolcapOpenError);
    expect(error).toMatchObject({ name: 'ToolcapOpenError', reason, unreadable });
    if (code !== undefined) expect((error as ToolcapOpenError).diagnostics).toMatchObject([{ code }]);
    if (reason === 'store') expect((error as ToolcapOpenError).cause).toBeDefined();
  });

  it('reconnects the MCP servers once after a burst of edits to the mcp section, and not for other edits', async () => {
    const server = (defaults: string) =>
      `mcp:\n  servers:\n    changing:\n      command: ${JSON.stringify(process.execPath)}\n      args: [${JSON.stringify(CHANGING)}]\n      defaults: { ${defaults} }\n`;
    const { file } = project(`sources: [manifests/]\n${server('consent: false')}`);
    const warnings: string[] = [];
    const toolcap = await createToolcap(file, { watch: true, debounceMs: 100, traces: false, warn: (m) => warnings.push(m) });
    opened.push(toolcap);
    const first = toolcap.mcp;
    expect(first?.status()).toMatchObject([{ server: 'changing', state: 'up' }]);
    expect(toolcap.layers[0]).toMatchObject({ discovered: true });
    expect(toolcap.registry.snapshot().tools.some((t) => t.name === 'mcp.changing.add_tool')).toBe(true);

    // a burst of saves: one quiet period, one read, one reconnect
    for (const timeoutSec of [5, 6, 7]) writeFileSync(file, `sources: [manifests/]\n${server(`consent: false, timeoutSec: ${timeoutSec}`)}`);
    await until(() => warnings.some((m) => m.startsWith('the MCP settings changed')), 20_000, 'the reconnect');
    expect(warnings.filter((m) => m.startsWith('the MCP settings changed'))).toEqual(['the MCP settings changed; servers: changing up']);
    expect(toolcap.mcp).not.toBe(first);
    const second = toolcap.mcp;

    // an edit outside the mcp section (and a reload of the same settings) changes nothing
    writeFileSync(file, `# a comment\nsources: [manifests/]\n${server('consent: false, timeoutSec: 7')}`);
    await toolcap.configWatcher?.reload();
    expect(toolcap.mcp).toBe(second);

    // a broken config keeps what runs
    writeFileSync(file, 'sources: 3\n');
    await toolcap.configWatcher?.reload();
    expect(warnings).toContain('the config has errors; keeping the MCP servers as they are');
    expect(toolcap.mcp).toBe(second);
    expect(warnings.filter((m) => m.startsWith('the MCP settings changed'))).toHaveLength(1);
  }, 60_000);
});
