/**
 * Containment of command tools: nothing a tool starts outlives its call
 * (grandchildren, ones that ignore SIGTERM, after success, timeout and
 * abort), the child sees only declared variables, declared resource limits
 * are enforced or reported, and the code identity follows the code.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { findPrlimit } from '../../../src/runtime/containment/resource-limits.js';
import { commandProviderType } from '../../../src/runtime/providers/command.js';
import type { ProviderInstance } from '../../../src/runtime/providers/types.js';
import { contextFor, rejection } from './contract.js';

const posix = process.platform !== 'win32';
const NODE = process.execPath;
const PATH = process.env['PATH'];
const dir = mkdtempSync(join(tmpdir(), 'toolcap-cmd-contained-'));
const made: ProviderInstance[] = [];

function make(config: Record<string, unknown>, tool: Tool = { name: 'contained' }, env: Record<string, string | undefined> = { PATH }): ProviderInstance {
  const p = commandProviderType.create({ name: 'cmd', config: { killGraceMs: 200, ...config } }, tool, { env, baseDir: dir });
  made.push(p);
  return p;
}

/** Whether a process runs (a zombie waiting for PID 1 to reap it does not). */
function running(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return false;
  }
}

let files = 0;
/** A file the shell writes its background child's pid to. */
const pidFile = () => join(dir, `pid-${++files}`);
const readPid = async (file: string) => {
  await vi.waitFor(() => expect(existsSync(file) && readFileSync(file, 'utf8').trim() !== '').toBe(true), { timeout: 10_000 });
  return Number(readFileSync(file, 'utf8').trim());
};
const shell = (script: string, file: string) => ({ command: 'sh', args: ['-c', script, 'sh', file] });

afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(async () => {
  for (const p of made) await p.close?.();
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(posix)('command provider: nothing outlives its call', () => {
  it.each([
    ['a background child', `sleep 300 & echo $! > "$1"; echo '{"ok":true}'`],
    ['a background child that ignores SIGTERM', `trap "" TERM; sleep 300 & echo $! > "$1"; echo '{"ok":true}'`],
    ['a background child with its own stdout', `sleep 300 >/dev/null 2>&1 & echo $! > "$1"; echo '{"ok":true}'`],
  ])('a successful call ends %s before it resolves', async (_label, script) => {
    const file = pidFile();
    await expect(make(shell(script, file)).call({}, contextFor())).resolves.toEqual({ ok: true });
    expect(running(await readPid(file))).toBe(false);
  }, 15_000);

  it('a failed call ends its grandchildren too', async () => {
    const file = pidFile();
    const err = await rejection(make(shell(`sleep 300 & echo $! > "$1"; exit 4`, file)).call({}, contextFor()));
    expect(err.status).toBe(4);
    expect(running(await readPid(file))).toBe(false);
  }, 15_000);

  it.each([
    ['abort', () => new AbortController()],
    ['timeout', undefined],
  ])('on %s the whole group ends, a grandchild ignoring SIGTERM included', async (label, controllerOf) => {
    const file = pidFile();
    const controller = controllerOf?.();
    const signal = controller?.signal ?? AbortSignal.timeout(500);
    const pending = make(shell(`trap "" TERM; sleep 300 & echo $! > "$1"; sleep 300`, file)).call({}, contextFor(signal));
    const grandchild = await readPid(file);
    if (label === 'abort') controller?.abort();
    expect((await rejection(pending)).code).toBe('ABORTED');
    await vi.waitFor(() => expect(running(grandchild)).toBe(false), { timeout: 5_000, interval: 50 });
  }, 15_000);

  it('close() ends the groups of calls under way and waits for them', async () => {
    const file = pidFile();
    const p = make(shell(`trap "" TERM; sleep 300 & echo $! > "$1"; sleep 300`, file));
    const pending = p.call({}, contextFor()).catch(() => undefined);
    const grandchild = await readPid(file);
    await p.close?.();
    expect(running(grandchild)).toBe(false);
    await pending;
  }, 15_000);
});

describe('command provider: environment allow-list', () => {
  const server = {
    PATH,
    HOME: '/home/toolcap',
    PGPASSWORD: 'pg-secret-hunter2',
    AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
    GITHUB_TOKEN: 'ghp_notreallyatoken000000000000000000',
    SEARCH_KEY: 'search-key-value',
  };
  const printEnv = { command: NODE, args: ['-e', 'process.stdout.write(JSON.stringify(process.env))'] };

  it("an undeclared tool sees none of the server's secrets", async () => {
    const env = (await make(printEnv, { name: 'undeclared' }, server).call({}, contextFor())) as Record<string, string>;
    expect(env).toEqual({ PATH: server.PATH, HOME: server.HOME });
  });

  it('a tool sees exactly what it declares: auth.envs, requiredEnv, *_env config keys and config.env', async () => {
    const tool: Tool = { name: 'declared', auth: { envs: { GITHUB_TOKEN: {} } } };
    const config = { ...printEnv, requiredEnv: ['PGPASSWORD'], search_key_env: 'SEARCH_KEY', env: { MODE: 'fast' } };
    const env = (await make(config, tool, server).call({}, contextFor())) as Record<string, string>;
    expect(env).toEqual({ PATH: server.PATH, HOME: server.HOME, GITHUB_TOKEN: server.GITHUB_TOKEN, PGPASSWORD: server.PGPASSWORD, SEARCH_KEY: server.SEARCH_KEY, MODE: 'fast' });
    expect(env['AWS_SECRET_ACCESS_KEY']).toBeUndefined();
  });
});

describe.runIf(posix)('command provider: resource limits', () => {
  const limits = { command: 'sh', args: ['-c', 'echo "{\\"nofile\\": $(ulimit -n), \\"cpu\\": \\"$(ulimit -t)\\"}"'] };
  const limited: Tool = { name: 'limited', execution: { resources: { open_files: 64, cpuSec: 30 } } };

  it.runIf(findPrlimit() !== undefined)('execution.resources are enforced through prlimit, with no warning', async () => {
    const p = make(limits, limited);
    expect(p.ready?.()).toEqual({ healthy: true });
    await expect(p.call({}, contextFor())).resolves.toEqual({ nofile: 64, cpu: '30' });
  });

  it('without prlimit the unenforced limits are warnings in ready(); the tool still runs', async () => {
    vi.stubEnv('PATH', join(dir, 'no-prlimit-here'));
    const p = make(limits, limited);
    vi.unstubAllEnvs();
    const ready = p.ready?.();
    expect(ready?.healthy).toBe(true);
    expect(ready?.warnings).toEqual(['execution.resources cpuSec is not enforced here (no prlimit)', 'execution.resources openFiles is not enforced here (no prlimit)']);
    await expect(p.call({}, contextFor())).resolves.toHaveProperty('nofile');
  });

  it('a malformed limit is a warning naming the key', () => {
    const ready = make(limits, { name: 'bad', execution: { resources: { memory_mb: '512M' } } }).ready?.();
    expect(ready?.healthy).toBe(true);
    expect(ready?.warnings).toEqual(['execution.resources.memory_mb must be a positive integer']);
  });
});

describe.runIf(posix)('command provider: code identity', () => {
  const script = join(dir, 'tool.sh');
  const node = join(dir, 'tool.mjs');
  writeFileSync(script, '#!/bin/sh\necho "{}"\n');
  chmodSync(script, 0o755);
  writeFileSync(node, 'process.stdout.write("{}")\n');
  const identity = (config: Record<string, unknown>) => make(config).codeIdentity?.() as Promise<string>;

  it('is stable for the same code', async () => {
    const a = await identity({ command: './tool.sh', args: ['x'] });
    expect(a).toMatch(/^command:sha256:[0-9a-f]{64}$/);
    expect(await identity({ command: './tool.sh', args: ['x'] })).toBe(a);
  });

  it.each([
    ['the args', { command: './tool.sh', args: ['y'] }],
    ['the executable path', { command: NODE, args: ['x'] }],
  ])('changes with %s', async (_label, other) => {
    expect(await identity(other)).not.toBe(await identity({ command: './tool.sh', args: ['x'] }));
  });

  it("changes when the executable's file changes", async () => {
    const before = await identity({ command: './tool.sh' });
    writeFileSync(script, '#!/bin/sh\necho "{\\"swapped\\": true}"\n');
    expect(await identity({ command: './tool.sh' })).not.toBe(before);
  });

  it('changes when a script named in the args changes (node tool.mjs)', async () => {
    const before = await identity({ command: NODE, args: ['./tool.mjs'] });
    writeFileSync(node, 'process.stdout.write("{\\"swapped\\": true}")\n');
    expect(await identity({ command: NODE, args: ['./tool.mjs'] })).not.toBe(before);
  });
});
