/**
 * Stdio MCP servers start contained: their own process group, ended as a
 * whole on close, on a crash and on reconnect (a grandchild that ignores
 * SIGTERM included), and an environment that is an allow-list (the base
 * plus the server's configured `env`), never toolcap's secrets.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpClients } from '../../src/mcp/clients.js';
import { serverEnv } from '../../src/mcp/stdio-client.js';
import type { McpServerConfig } from '../../src/mcp/config.js';
import { mcpConfig, nodeServer, removeTemps, tempDir, waitFor } from './helpers.js';

const T = 30_000;
const FAMILY = join(import.meta.dirname, 'fixtures', 'family.mjs');
const open: McpClients[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(removeTemps);

const planted = { PGPASSWORD: 'pg-secret-9c1f', TOOLCAP_PLANTED_TOKEN: 'sk-live-planted-4e2a' };
beforeEach(() => Object.assign(process.env, planted));
afterEach(() => {
  for (const name of Object.keys(planted)) delete process.env[name];
});

function start(server: McpServerConfig): McpClients {
  const c = new McpClients(mcpConfig([server]), { cacheDir: tempDir(), backoff: { initialMs: 50, maxMs: 200 }, killGraceMs: 200 });
  open.push(c);
  return c;
}

const signal = () => new AbortController().signal;

async function callJson(c: McpClients, tool: string): Promise<Record<string, unknown>> {
  const result = (await c.callTool('family', tool, {}, signal())) as { content: Array<{ text: string }> };
  return JSON.parse(result.content[0]!.text) as Record<string, unknown>;
}

/** The process group of `pid`, or undefined once it is gone (a zombie runs nothing: gone). */
function groupOf(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return state === 'Z' || state === 'X' ? undefined : Number(pgrp);
}

describe.runIf(process.platform === 'linux')('stdio servers in their own process group', () => {
  it('a server and its SIGTERM-ignoring grandchild share a group of their own, and close ends both', { timeout: T }, async () => {
    const c = start(nodeServer('family', FAMILY));
    await c.start();
    const { pid, grandchild } = (await callJson(c, 'pids')) as { pid: number; grandchild: number };
    expect(groupOf(pid)).toBe(pid);
    expect(groupOf(grandchild)).toBe(pid);
    expect(groupOf(process.pid)).not.toBe(pid);

    await c.close();
    expect(groupOf(pid)).toBeUndefined();
    expect(groupOf(grandchild)).toBeUndefined();
  });

  it('a server that crashes takes its grandchild with it; the reconnected one is ended on close', { timeout: T }, async () => {
    const c = start(nodeServer('family', FAMILY));
    await c.start();
    const first = (await callJson(c, 'pids')) as { pid: number; grandchild: number };
    await expect(c.callTool('family', 'crash', {}, signal())).rejects.toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(await waitFor(() => groupOf(first.grandchild) === undefined)).toBe(true);

    expect(await waitFor(() => c.ready('family').healthy)).toBe(true);
    const second = (await callJson(c, 'pids')) as { pid: number; grandchild: number };
    expect(second.pid).not.toBe(first.pid);
    await c.close();
    expect(groupOf(second.pid)).toBeUndefined();
    expect(groupOf(second.grandchild)).toBeUndefined();
  });
});

describe('stdio server environment', () => {
  it('is the base plus the configured env, never a secret of toolcap’s environment', { timeout: T }, async () => {
    const c = start(nodeServer('family', FAMILY, [], { env: { FAMILY_VERSION: '2.0.0', EXPLICIT_SETTING: 'yes' } }));
    await c.start();
    const env = await callJson(c, 'env');
    expect(env).toMatchObject({ EXPLICIT_SETTING: 'yes', FAMILY_VERSION: '2.0.0', PATH: process.env['PATH'] });
    expect(env).not.toHaveProperty('PGPASSWORD');
    expect(env).not.toHaveProperty('TOOLCAP_PLANTED_TOKEN');
    expect(JSON.stringify(env)).not.toMatch(/pg-secret|sk-live-planted/);
  });

  it('serverEnv: base variables and the explicit env only', () => {
    expect(serverEnv({ env: { A: '1' } }, { PATH: '/bin', HOME: '/h', PGPASSWORD: 'x', A: 'from-parent', B: '2' })).toEqual({ PATH: '/bin', HOME: '/h', A: '1' });
  });
});
