/**
 * createToolcap, the composition root: opened on a temp copy of the
 * examples' sources, it serves a snapshot, runs a call through the runtime,
 * and close() leaves nothing running; what keeps it from opening is one
 * typed error; a change to the config's mcp section reconnects after one
 * quiet period; the config's egress and runtime sections reach the registry
 * (trusted module folders) and the providers (egress, module isolation,
 * response size).
 */
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
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
    // the process's own stdout and stderr are made on first use (a module worker's output is forwarded to them) and live as long as it does
    void process.stdout;
    void process.stderr;
    const before = resources();
    const warnings: string[] = [];
    const toolcap = await createToolcap(file, { watch: true, warn: (m) => warnings.push(m) });

    expect(toolcap.config?.root).toBe(loadConfig(file).config?.root);
    // the two sources, with the learned layer (runtime/learned) after the files, before overrides/
    expect(toolcap.layers.length).toBe(3);
    expect(toolcap.layers[1]).toMatchObject({ learned: true });
    expect(toolcap.mcp).toBeUndefined();
    expect(toolcap.configWatcher).toBeUndefined(); // no MCP servers: nothing in the config to apply live
    expect(toolcap.store.location).toContain(join(dir, '.toolcap', 'toolcap.db'));
    expect(toolcap.traceFile).toBe(join(dir, '.toolcap', 'traces.jsonl'));
    expect(toolcap.registry.status()).toMatchObject({ ok: true, watching: true });

    const snap = toolcap.registry.snapshot();
    expect(snap.tools.some((t) => t.name === 'text.reverse')).toBe(true);
    const api = createApi(toolcap.registry, { runtime: toolcap.runtime, health: toolcap.health });
    const tools = (await (await api.fetch(new Request('http://toolcap.test/tools?limit=500'))).json()) as { total: number };
    expect(tools.total).toBe(snap.tools.filter((t) => t.enabled !== false).length);

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
      expect(toolcap.layers).toEqual(['manifests', expect.objectContaining({ learned: true })]);
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

describe("the config's egress and runtime sections reach the registry and the providers", () => {
  /** m/ holds the manifest and where.mjs; trusted/ a module outside it; an http tool reads `url`. */
  function containment(config: string, url = 'http://127.0.0.1:9/big'): string {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolcap-host-containment-')));
    folders.push(dir);
    mkdirSync(join(dir, 'm'));
    mkdirSync(join(dir, 'trusted'));
    const where = "import { threadId } from 'node:worker_threads';\nexport default () => ({ threadId });\n";
    writeFileSync(join(dir, 'm', 'where.mjs'), where);
    writeFileSync(join(dir, 'trusted', 'shared.mjs'), where);
    const read = '    effects: { mode: read, sideEffects: compute }\n    approval: { required: false }\n';
    const { origin, pathname } = new URL(url);
    writeFileSync(
      join(dir, 'm', 'tools.yaml'),
      'toolcap: 1\ntools:\n' +
        `  - name: where.local\n    description: d\n${read}    providers:\n      - { name: local, config: { type: module, module: ./where.mjs } }\n` +
        `  - name: where.shared\n    description: d\n${read}    providers:\n      - { name: shared, config: { type: module, module: ../trusted/shared.mjs } }\n` +
        `  - name: fetch.big\n    description: d\n    effects: { mode: read, sideEffects: read_external_service }\n    approval: { required: false }\n    execution: { retryClass: never }\n` +
        `    providers:\n      - { name: api, config: { type: http, baseUrl: ${JSON.stringify(origin)}, method: GET, path: ${pathname} } }\n`,
    );
    const file = join(dir, 'toolcap.config.yaml');
    writeFileSync(file, `sources: [m/]\n${config}`);
    return file;
  }
  const open = async (file: string) => {
    const toolcap = await createToolcap(file, { traces: false });
    opened.push(toolcap);
    return toolcap;
  };
  const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

  it('a module outside the manifest folder fails the load unless runtime.trustedModuleDirs lists its folder; then it runs', async () => {
    const error = await failure(createToolcap(containment(''), { traces: false }));
    expect(error).toMatchObject({ reason: 'catalog', diagnostics: [expect.objectContaining({ code: 'MODULE_PATH_REFUSED', line: 14, pointer: '/tools/1/providers/0/config/module' })] });
    const toolcap = await open(containment('runtime:\n  trustedModuleDirs: [trusted]\n'));
    expect(await toolcap.runtime.call('where.shared', {})).toMatchObject({ status: 'ok' });
  });

  it.each([
    ['worker (the default)', '', false],
    ['inline', '  moduleIsolation: inline\n', true],
  ])('module tools run %s', async (_label, isolation, inline) => {
    const toolcap = await open(containment(`runtime:\n  trustedModuleDirs: [trusted]\n${isolation}`));
    const result = await toolcap.runtime.call('where.local', {});
    expect(result).toMatchObject({ status: 'ok' });
    expect((result as { result: { threadId: number } }).result.threadId === threadId).toBe(inline);
  });

  /** The code of a failed call and what its provider said (the runtime's answer; the provider's own code is in the outcome). */
  const outcome = async (toolcap: Toolcap, tool: string) => {
    const error = (await failure(toolcap.runtime.call(tool, {}))) as { code: string; extra: { providers: Array<{ outcome: string }> } } | undefined;
    return { code: error?.code, said: error?.extra.providers[0]?.outcome };
  };

  it("egress.allow replaces the default hosts: the manifest's own loopback baseUrl is refused before anything is sent", async () => {
    const trusting = 'runtime: { trustedModuleDirs: [trusted] }\n';
    // without the section the provider may reach its own host: nothing listens on port 9, so the failure is the connection's
    expect(await outcome(await open(containment(trusting)), 'fetch.big')).not.toMatchObject({ code: 'NO_HEALTHY_PROVIDER' });
    const toolcap = await open(containment(`${trusting}egress:\n  allow: [api.example.com]\n  crossOriginRedirects: refuse\n`));
    expect(await outcome(toolcap, 'fetch.big')).toMatchObject({ code: 'NO_HEALTHY_PROVIDER', said: expect.stringMatching(/egress refused: 127\.0\.0\.1/) });
  });

  it('runtime.maxResponseBytes caps what an http provider reads', async () => {
    const server = createServer((_req, res) => res.end('x'.repeat(4096)));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`;
      const runtime = 'runtime:\n  trustedModuleDirs: [trusted]\n';
      expect(await (await open(containment(runtime, url))).runtime.call('fetch.big', {})).toMatchObject({ status: 'ok' });
      const capped = await open(containment(`${runtime}  maxResponseBytes: 1024\n`, url));
      expect(await outcome(capped, 'fetch.big')).toMatchObject({ code: 'PROVIDER_ERROR', said: expect.stringMatching(/exceeds 1024 bytes/) });
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
});
