/** Shared helpers for the MCP client and discovery tests: configs, temp folders, ports, bounded polling. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MCP_DEFAULTS, type McpConfig, type McpServerConfig } from '../../src/mcp/config.js';
import { stopChild } from '../helpers/stop-child.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURES = join(ROOT, 'test/fixtures/mcp-servers');
const pkg = (name: string, file: string) => join(ROOT, 'node_modules/@modelcontextprotocol', name, 'dist', file);
/** Entry points of the reference servers, run with this node. */
export const EVERYTHING = pkg('server-everything', 'index.js');
export const FILESYSTEM = pkg('server-filesystem', 'index.js');
export const MEMORY = pkg('server-memory', 'index.js');

/** A server config with MCP's defaults; `overrides` win. */
export function serverConfig(name: string, overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    name,
    transport: 'stdio',
    args: [],
    env: {},
    headers: {},
    allowTools: [],
    denyTools: [],
    healthCheckIntervalSec: 300,
    defaults: { ...MCP_DEFAULTS },
    location: { file: 'toolcap.config.yaml' },
    ...overrides,
  };
}

/** A stdio server config running `script` with this node. */
export function nodeServer(name: string, script: string, args: string[] = [], overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return serverConfig(name, { command: process.execPath, args: [script, ...args], ...overrides });
}

export function mcpConfig(servers: McpServerConfig[], lists: { allowTools?: string[]; denyTools?: string[] } = {}): McpConfig {
  return { enabled: true, allowTools: lists.allowTools ?? [], denyTools: lists.denyTools ?? [], servers };
}

const temps: string[] = [];
export function tempDir(prefix = 'toolcap-mcp-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
export function removeTemps(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Poll `check` until it returns true, at most `tries` times `intervalMs` apart; true when it did. */
export async function waitFor(check: () => boolean | Promise<boolean>, tries = 200, intervalMs = 50): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return check();
}

/** Start the everything server over Streamable HTTP on a free port; resolves once it listens. */
export async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const listening = await waitFor(() => output.includes(`port ${port}`) || child.exitCode !== null, 400, 50);
  if (!listening || child.exitCode !== null) {
    child.kill('SIGKILL');
    throw new Error(`everything server did not start: ${output}`);
  }
  const stop = () => stopChild(child);
  return { url: `http://127.0.0.1:${port}/mcp`, child, stop };
}
