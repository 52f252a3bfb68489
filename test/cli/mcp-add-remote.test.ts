/**
 * `toolcap mcp add` for remotes, end to end: the reference server
 * (server-everything from npm) serving Streamable HTTP and HTTP+SSE on a free
 * port, a server.json whose remote needs a secret header, the entry written
 * with a { env: NAME } reference, and discovery connecting with the header
 * read from the environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolcap } from '../../src/host.js';
import { cli } from './helpers.js';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  await new Promise((ok) => server.close(ok));
  return port;
}

/** server-everything in `mode` on a free port, once it says it listens. */
async function serveEverything(mode: 'sse' | 'streamableHttp'): Promise<number> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  cleanup.push(() => void child.kill());
  await new Promise<void>((ok, fail) => {
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (/port/i.test(text)) ok();
    });
    child.on('exit', (code) => fail(new Error(`server-everything exited ${code}: ${text}`)));
  });
  return port;
}

describe('toolcap mcp add: remotes', () => {
  it.each([
    ['streamable-http', 'streamableHttp', '/mcp', 'http'],
    ['sse', 'sse', '/sse', 'sse'],
  ] as const)('a %s remote with a secret header connects and lists its tools', { timeout: 60_000 }, async (type, mode, path, transport) => {
    const port = await serveEverything(mode);
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-remote-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'm'));
    writeFileSync(join(dir, 'm', 'tools.yaml'), 'toolcap: 1\ntools: []\n');
    const config = join(dir, 'toolcap.config.yaml');
    writeFileSync(config, 'sources: [m]\nstore: { path: .toolcap/toolcap.db }\n');
    const entry = {
      name: 'io.github.modelcontextprotocol/everything',
      version: '2026.8.31',
      remotes: [{ type, url: `http://127.0.0.1:${port}${path}`, headers: [{ name: 'X-Api-Key', description: 'The key', isRequired: true, isSecret: true }] }],
    };
    writeFileSync(join(dir, 'server.json'), JSON.stringify(entry, null, 2));
    const out = await cli('mcp', 'add', join(dir, 'server.json'), '--config', config);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/EVERYTHING_X_API_KEY\s+\(secret\) header X-Api-Key: The key/);
    const text = readFileSync(config, 'utf8');
    expect(text).toContain(`url: http://127.0.0.1:${port}${path}`);
    expect(text).toContain('X-Api-Key: { env: EVERYTHING_X_API_KEY }');
    expect(text.includes('transport: sse')).toBe(transport === 'sse');

    process.env['EVERYTHING_X_API_KEY'] = 'k-123';
    cleanup.push(() => void delete process.env['EVERYTHING_X_API_KEY']);
    const toolcap = await createToolcap(config, { traces: false, warn: () => undefined });
    cleanup.push(() => toolcap.close());
    expect(toolcap.mcp?.status()).toMatchObject([{ server: 'everything', state: 'up' }]);
    expect(toolcap.registry.snapshot().tools.map((t) => t.name)).toContain('mcp.everything.echo');
  });
});
