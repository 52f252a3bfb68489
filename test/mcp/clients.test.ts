import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/mcp/config.js';
import { McpClients, listAllTools } from '../../src/mcp/clients.js';
import { discoveryCachePath, readDiscoveryCache } from '../../src/mcp/discovery.js';
import { ProviderError } from '../../src/runtime/providers/types.js';
import {
  EVERYTHING,
  FILESYSTEM,
  FIXTURES,
  MEMORY,
  freePort,
  mcpConfig,
  nodeServer,
  removeTemps,
  serverConfig,
  startEverythingHttp,
  tempDir,
  waitFor,
} from './helpers.js';

const T = 30_000;
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(removeTemps);

function clients(servers: McpServerConfig[], extra: Partial<ConstructorParameters<typeof McpClients>[1]> = {}, lists = {}) {
  const cacheDir = tempDir();
  const c = new McpClients(mcpConfig(servers, lists), { cacheDir, backoff: { initialMs: 50, maxMs: 200 }, ...extra });
  open.push(c);
  return { c, cacheDir };
}

const signal = () => new AbortController().signal;

async function rejection(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

/** The server's own tool names, every page, through a client the test starts itself. */
async function directToolNames(command: string, args: string[]): Promise<string[]> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
  try {
    return (await listAllTools(client)).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('McpClients with the everything server', () => {
  it('over stdio: discovers every tool with the server defaults, calls echo, maps tool errors', { timeout: T }, async () => {
    const changed: string[] = [];
    const { c, cacheDir } = clients([nodeServer('everything', EVERYTHING, ['stdio'])], { onToolsChanged: (s) => changed.push(s) });
    await c.start();
    const [status] = c.status();
    expect(status).toMatchObject({ server: 'everything', state: 'up' });
    expect(c.ready('everything')).toEqual({ healthy: true });

    const direct = await directToolNames(process.execPath, [EVERYTHING, 'stdio']);
    const tools = c.tools('everything');
    expect(tools.map((t) => t.id).sort()).toEqual([...direct].sort());
    expect(status?.tools).toBe(direct.length);
    expect(changed).toEqual(['everything']);
    for (const t of tools) {
      expect(t.name.startsWith('mcp.everything.')).toBe(true);
      expect(t.execution).toMatchObject({ timeoutSec: 30, allowParallel: false, idempotencyKey: false });
      expect(t.approval).toEqual({ consent: true });
      expect(t.providers).toEqual([{ name: 'mcp', priority: 0, config: { server: 'everything', tool: t.id } }]);
      // Never looser than the network default, except read-only tools, which stop at read_external_service.
      expect(['read_external_service', 'network', 'filesystem', 'write']).toContain(t.effects?.sideEffects);
      if (t.hints?.readOnly === true) expect(t.effects?.sideEffects).toBe('read_external_service');
    }
    const echo = tools.find((t) => t.name === 'mcp.everything.echo');
    expect(echo?.effects?.mode).toBe('read');
    expect(readDiscoveryCache(cacheDir, 'everything')?.tools).toEqual(tools);

    expect(await c.callTool('everything', 'echo', { message: 'hi' }, signal())).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });

    const bad = await rejection(c.callTool('everything', 'get-sum', { a: 'x' }, signal()));
    expect(bad.code).toBe('PROVIDER_ERROR');
    expect(bad.beforeEffect).toBe(false);
    expect(bad.message).toMatch(/Input validation error|invalid/i);
    const missing = await rejection(c.callTool('everything', 'no-such-tool', {}, signal()));
    expect(missing.code).toBe('PROVIDER_ERROR');

    const ac = new AbortController();
    ac.abort();
    expect((await rejection(c.callTool('everything', 'echo', { message: 'x' }, ac.signal))).code).toBe('ABORTED');

    // A second discovery of an unchanged list neither rewrites nor notifies.
    const [again] = await c.discover('everything');
    expect(again).toMatchObject({ ok: true, changed: false });
    expect(changed).toEqual(['everything']);
  });

  it('over Streamable HTTP: discovers and calls echo', { timeout: T }, async () => {
    const http = await startEverythingHttp();
    try {
      const { c } = clients([serverConfig('web', { transport: 'http', url: http.url, headers: { 'x-test': '1' } })]);
      await c.start();
      expect(c.status()[0]).toMatchObject({ state: 'up' });
      expect(c.tools('web').map((t) => t.name)).toContain('mcp.web.echo');
      expect(await c.callTool('web', 'echo', { message: 'over http' }, signal())).toEqual({ content: [{ type: 'text', text: 'Echo: over http' }] });
      await c.close();
    } finally {
      await http.stop();
    }
  });

  it('applies global and per-server filters and the persona to discovered tools', { timeout: T }, async () => {
    const server = nodeServer('everything', EVERYTHING, ['stdio'], { persona: 'atlas', denyTools: ['get-env'], defaults: { sideEffects: 'filesystem', timeoutSec: 5, allowParallel: false, consent: false, idempotencyKey: false } });
    const { c } = clients([server], {}, { allowTools: ['echo', 'get-*'], denyTools: ['mcp.everything.get-tiny-image'] });
    await c.start();
    const names = c.tools('everything').map((t) => t.id);
    expect(names).toContain('echo');
    expect(names).toContain('get-sum');
    expect(names).not.toContain('get-env');
    expect(names).not.toContain('get-tiny-image');
    expect(names.every((n) => n === 'echo' || n?.startsWith('get-'))).toBe(true);
    const sum = c.tools('everything').find((t) => t.id === 'get-sum');
    expect(sum?.scope).toEqual({ personas: ['atlas'] });
    expect(sum?.execution?.timeoutSec).toBe(5);
    expect(sum?.approval).toEqual({ consent: false });
    // Read-only, and the server default (filesystem) is above the floor: read_external_service.
    expect(sum?.effects?.sideEffects).toBe('read_external_service');
  });
});

describe('McpClients with reference servers', () => {
  it('server-filesystem: discovers and reads a file', { timeout: T }, async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'hello.txt'), 'hello from a file');
    const { c } = clients([nodeServer('fs', FILESYSTEM, [dir])]);
    await c.start();
    const names = c.tools('fs').map((t) => t.id);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'list_directory']));
    expect(await c.callTool('fs', 'read_text_file', { path: join(dir, 'hello.txt') }, signal())).toEqual({ content: 'hello from a file' });
    const listing = (await c.callTool('fs', 'list_directory', { path: dir }, signal())) as { content: string };
    expect(listing.content).toContain('[FILE] hello.txt');
  });

  it('server-memory: creates an entity and reads it back', { timeout: T }, async () => {
    const file = join(tempDir(), 'memory.jsonl');
    const { c } = clients([nodeServer('memory', MEMORY, [], { env: { MEMORY_FILE_PATH: file } })]);
    await c.start();
    const create = c.tools('memory').find((t) => t.id === 'create_entities');
    // Closed-world, non-destructive write: stricter than the network default.
    expect(create?.effects).toMatchObject({ mode: 'write', sideEffects: 'filesystem', reversible: 'partial' });
    await c.callTool('memory', 'create_entities', { entities: [{ name: 'toolcap', entityType: 'project', observations: ['reads manifests'] }] }, signal());
    const graph = (await c.callTool('memory', 'read_graph', {}, signal())) as { entities: Array<{ name: string; observations: string[] }> };
    expect(graph.entities).toEqual([expect.objectContaining({ name: 'toolcap', observations: ['reads manifests'] })]);
  });
});

describe('McpClients failures and changes', () => {
  it('a server that crashes mid-call: PROVIDER_ERROR, down, then restarted', { timeout: T }, async () => {
    const { c, cacheDir } = clients([nodeServer('crashy', join(FIXTURES, 'crashy.mjs'))]);
    await c.start();
    expect(c.status()[0]?.state).toBe('up');
    const ping = c.tools('crashy').find((t) => t.id === 'ping');
    expect(ping?.effects?.sideEffects).toBe('network'); // no annotations: the default
    const before = readFileSync(discoveryCachePath(cacheDir, 'crashy'), 'utf8');

    const err = await rejection(c.callTool('crashy', 'crash', {}, signal()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.beforeEffect).toBe(false);
    expect(err.message).toBe('server exited during the call');

    const down = c.status()[0];
    expect(down?.state).not.toBe('up');
    expect(down?.lastError).toMatch(/exited/);
    // Its tools stay listed while it is down.
    expect(down?.tools).toBe(2);
    expect(readFileSync(discoveryCachePath(cacheDir, 'crashy'), 'utf8')).toBe(before);

    expect(await waitFor(() => c.status()[0]?.state === 'up')).toBe(true);
    expect(await c.callTool('crashy', 'ping', {}, signal())).toEqual({ content: [{ type: 'text', text: 'pong' }] });
  });

  it('a server that changes its tool list: list_changed re-discovers and rewrites the cache', { timeout: T }, async () => {
    const changed: string[] = [];
    const { c, cacheDir } = clients([nodeServer('changing', join(FIXTURES, 'changing.mjs'))], { onToolsChanged: (s) => changed.push(s) });
    await c.start();
    expect(c.tools('changing').map((t) => t.name)).toEqual(['mcp.changing.add_tool']);
    expect(changed).toEqual(['changing']);
    expect(await c.callTool('changing', 'add_tool', {}, signal())).toEqual({ content: [{ type: 'text', text: 'added_1' }] });
    const cachedNames = () => readDiscoveryCache(cacheDir, 'changing')?.tools.map((t) => t.name) ?? [];
    expect(await waitFor(() => cachedNames().includes('mcp.changing.added_1'))).toBe(true);
    expect(changed).toEqual(['changing', 'changing']);
    expect(c.status()[0]?.tools).toBe(2);
  });

  it('reads every page of a paged tools/list', { timeout: T }, async () => {
    const { c } = clients([nodeServer('paged', join(FIXTURES, 'paged.mjs'), [], { env: { TOOL_COUNT: '8' } })]);
    await c.start();
    expect(c.tools('paged').map((t) => t.name)).toEqual(Array.from({ length: 8 }, (_, i) => `mcp.paged.tool_${i + 1}`));
    expect(await c.callTool('paged', 'tool_8', {}, signal())).toEqual({ content: [{ type: 'text', text: 'tool_8' }] });
  });

  it('a command that does not exist and a URL nobody listens on: down, not thrown, with reasons', { timeout: T }, async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const { c } = clients(
      [serverConfig('ghost', { command: 'toolcap-no-such-command-xyz' }), serverConfig('nowhere', { transport: 'http', url: `http://127.0.0.1:${port}/mcp` })],
      { warn: (m) => warnings.push(m), backoff: { initialMs: 60_000, maxMs: 60_000 } },
    );
    await expect(c.start()).resolves.toBeUndefined();
    const [ghost, nowhere] = c.status();
    expect(ghost).toMatchObject({ server: 'ghost', state: 'down', tools: 0 });
    expect(ghost?.lastError).toMatch(/command not found: toolcap-no-such-command-xyz/);
    expect(ghost?.backoffUntil).toBeGreaterThan(Date.now());
    expect(nowhere).toMatchObject({ server: 'nowhere', state: 'down' });
    expect(nowhere?.lastError).toMatch(/could not connect/);
    const ready = c.ready('ghost');
    expect(ready.healthy).toBe(false);
    expect(ready.reason).toMatch(/command not found.*next reconnect at/);
    expect(c.ready('nowhere').healthy).toBe(false);
    const err = await rejection(c.callTool('nowhere', 'echo', {}, signal()));
    expect(err).toMatchObject({ code: 'PROVIDER_UNAVAILABLE', beforeEffect: true });
    expect(warnings.length).toBe(2);
    const [outcome] = await c.discover('ghost');
    expect(outcome).toMatchObject({ ok: false, changed: false });
  });

  it('keeps a previously-up server\'s cached tools when it can no longer start', { timeout: T }, async () => {
    const { c, cacheDir } = clients([nodeServer('paged', join(FIXTURES, 'paged.mjs'))]);
    await c.start();
    expect(c.tools('paged')).toHaveLength(7);
    await c.close();
    const path = discoveryCachePath(cacheDir, 'paged');
    const before = readFileSync(path, 'utf8');

    const broken = new McpClients(mcpConfig([nodeServer('paged', join(FIXTURES, 'no-such-fixture.mjs'))]), { cacheDir, backoff: { initialMs: 60_000 } });
    open.push(broken);
    await broken.start();
    const [status] = broken.status();
    expect(status).toMatchObject({ state: 'down', tools: 7 });
    expect(status?.lastError).toMatch(/no-such-fixture|exited|closed/i);
    expect(status?.discoveredAt).toBeDefined();
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(before);
    expect(broken.ready('paged').healthy).toBe(false);
  });
});
