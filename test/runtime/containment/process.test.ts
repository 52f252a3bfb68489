import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { envAllowList } from '../../../src/runtime/containment/child-env.js';
import { containedSpawn, killGroup } from '../../../src/runtime/containment/process.js';
import { findPrlimit } from '../../../src/runtime/containment/resource-limits.js';

const posix = process.platform !== 'win32';
const env = envAllowList({ declared: [] });
const started: ChildProcess[] = [];

/** Live (not zombie) members of a process group, from ps. */
function members(pgid: number): string[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,stat=', '-g', String(pgid)], { encoding: 'utf8' });
  } catch {
    return []; // ps exits 1 when nothing matches
  }
  return out.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/\sZ/.test(l));
}

/** Whether a process runs (a zombie waiting for PID 1 to reap it does not). */
function running(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return false;
  }
}

/** Wait until the shell printed its grandchild's pid (so the grandchild exists). */
function readyLine(child: ChildProcess): Promise<string> {
  return new Promise((done) => child.stdout?.once('data', (b: Buffer) => done(b.toString().trim())));
}

afterEach(async () => {
  for (const c of started.splice(0)) await killGroup(c, { graceMs: 100 });
});

describe.runIf(posix)('containedSpawn and killGroup', () => {
  it.each([
    ['grandchildren that take SIGTERM', `sleep 300 & echo $!; trap "" TERM; sleep 300`],
    ['grandchildren that ignore SIGTERM (inherited)', `trap "" TERM; sleep 300 & echo $!; sleep 300`],
    ['a leader that already exited', `(trap "" TERM; exec sleep 300) & echo $!; exit 0`],
  ])('ends the whole group: %s', async (_, script) => {
    const { child } = containedSpawn('sh', ['-c', script], { env });
    started.push(child);
    const grandchild = Number(await readyLine(child));
    const pgid = child.pid as number;
    expect(grandchild).toBeGreaterThan(0);
    expect(members(pgid).length).toBeGreaterThan(0);
    expect(await killGroup(child, { graceMs: 300 })).toBe(true);
    expect(members(pgid)).toEqual([]);
    expect(running(grandchild)).toBe(false);
  });

  it('the child leads its own group, apart from the server', () => {
    const { child } = containedSpawn('sleep', ['5'], { env });
    started.push(child);
    const pgid = Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(child.pid)], { encoding: 'utf8' }).trim());
    expect(pgid).toBe(child.pid);
    const own = Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8' }).trim());
    expect(pgid).not.toBe(own);
  });

  it('a child that never started, and a group already gone, are fine', async () => {
    const { child } = containedSpawn('/nonexistent/tool', [], { env });
    child.on('error', () => {});
    expect(await killGroup(child)).toBe(true);
    const done = containedSpawn('true', [], { env }).child;
    await new Promise((r) => done.once('close', r));
    expect(await killGroup(done)).toBe(true);
  });

  it('the child sees only the allow-listed environment', async () => {
    const parent = { PATH: process.env['PATH'], HOME: '/home/t', PGPASSWORD: 'hunter2hunter2', API_TOKEN: 'tok', AWS_SECRET_ACCESS_KEY: 'x' };
    const { child } = containedSpawn('env', [], { env: envAllowList({ base: parent, declared: ['API_TOKEN', 'NOT_SET'] }) });
    let out = '';
    child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    await new Promise((r) => child.once('close', r));
    const names = out.trim().split('\n').map((l) => l.split('=')[0]).sort();
    expect(names).toEqual(['API_TOKEN', 'HOME', 'PATH']);
    expect(out).not.toContain('hunter2');
  });
});

describe.runIf(posix && findPrlimit() !== undefined)('resource limits through prlimit', () => {
  const hungry = `const a = []; for (;;) a.push(Buffer.alloc(16 * 1024 * 1024, 1));`;

  function run(resources: Record<string, unknown>, command: string, args: string[]) {
    const spawned = containedSpawn(command, args, { env, resources });
    started.push(spawned.child);
    let stderr = '';
    spawned.child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      spawned.child.once('close', (code, signal) => done({ code, signal })),
    );
    return { ...spawned, exit, stderr: () => stderr };
  }

  it('a memory limit makes a hungry child fail', async () => {
    const r = run({ memory_mb: 200 }, process.execPath, ['-e', hungry]);
    expect(r.unenforced).toEqual([]);
    const { code, signal } = await r.exit;
    expect(code !== 0 || signal !== null).toBe(true);
  });

  it('a CPU limit ends a busy child', async () => {
    const r = run({ cpuSec: 1 }, 'sh', ['-c', 'while :; do :; done']);
    const { signal } = await r.exit;
    expect(['SIGXCPU', 'SIGKILL']).toContain(signal);
  });

  it('an open-files limit applies', async () => {
    const r = run({ openFiles: 64 }, 'sh', ['-c', 'ulimit -n']);
    let out = '';
    r.child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    await r.exit;
    expect(out.trim()).toBe('64');
  });

  it('without prlimit the limits are reported unenforced, and bad values as problems', async () => {
    const { child, unenforced, problems } = containedSpawn('true', [], { env, prlimit: null, resources: { memoryMb: 64, cpu_seconds: 0, openFiles: 10 } });
    started.push(child);
    expect(unenforced).toEqual(['memoryMb', 'openFiles']);
    expect(problems).toEqual(['execution.resources.cpu_seconds must be a positive integer']);
  });
});
