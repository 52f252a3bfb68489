import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { commandProviderType, resolveCommand } from '../../../src/runtime/providers/command.js';
import { ProviderConfigError, type ProviderEnvironment, type ProviderInstance } from '../../../src/runtime/providers/types.js';
import { contextFor, rejection, runProviderContract } from './contract.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/providers/', import.meta.url));
const NODE = process.execPath;
const TOOL: Tool = { name: 'command.test' };
const BASE_ENV: Record<string, string> = { PATH: process.env['PATH'] ?? '' };

function make(config: Record<string, unknown>, env: Record<string, string> = BASE_ENV, name = 'cmd'): ProviderInstance {
  const environment: ProviderEnvironment = { env, baseDir: FIXTURES };
  return commandProviderType.create({ name, config }, TOOL, environment);
}
const script = (file: string, ...rest: string[]) => ({ command: NODE, args: [`./${file}`, ...rest] });

runProviderContract('command', () => ({
  type: 'command',
  succeed: make(script('cmd-echo.mjs')),
  fail: make(script('cmd-fail.mjs')),
  hang: make({ ...script('cmd-hang.mjs'), killGraceMs: 500 }),
  unavailable: make({ command: '/nonexistent/toolcap-no-such-program' }),
}));

describe('command provider', () => {
  const made: ProviderInstance[] = [];
  const track = (p: ProviderInstance) => (made.push(p), p);
  afterAll(async () => {
    for (const p of made) await p.close?.();
  });

  it.each([
    ['; rm -rf /tmp/x'],
    ['$(whoami)'],
    ['`id`'],
    ['a b "c" \'d\''],
    ['*'],
    ['| cat /etc/passwd > out'],
  ])('passes %s to the program literally (no shell)', async (arg) => {
    const p = make(script('cmd-echo.mjs', arg, 'second'));
    await expect(p.call({ $argv: true }, contextFor())).resolves.toEqual({ argv: [arg, 'second'] });
  });

  it('reports exit code and the tail of stderr on failure', async () => {
    const err = await rejection(make(script('cmd-fail.mjs')).call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.status).toBe(3);
    expect(err.message).toContain('exited with code 3');
    expect(err.message).toContain('fatal: the tool failed on purpose');
    const detail = err.detail as { exitCode: number; stderr: string };
    expect(detail.exitCode).toBe(3);
    expect(detail.stderr).toContain('fatal: the tool failed on purpose');
    expect(detail.stderr.length).toBeLessThanOrEqual(2048);
  });

  it('stdout that is not JSON is BAD_RESPONSE', async () => {
    const err = await rejection(make(script('cmd-notjson.mjs')).call({}, contextFor()));
    expect(err.code).toBe('BAD_RESPONSE');
    expect(err.beforeEffect).toBe(false);
    expect((err.detail as { stdout: string }).stdout).toContain('hello, not json');
  });

  it('output over maxOutputBytes kills the process: RESPONSE_TOO_LARGE', async () => {
    const err = await rejection(track(make({ ...script('cmd-big.mjs'), maxOutputBytes: 100_000, killGraceMs: 500 })).call({}, contextFor()));
    expect(err.code).toBe('RESPONSE_TOO_LARGE');
    expect(err.message).toContain('100000');
  }, 15_000);

  it.each([
    ['an absolute path that does not exist', '/nonexistent/toolcap-no-such-program'],
    ['a name not on PATH', 'toolcap-no-such-program-xyz'],
    ['a relative path that does not exist', './no-such-script.sh'],
  ])('%s: ENOENT is unavailable before effect, and ready() is false', async (_label, command) => {
    const p = make({ command });
    const ready = p.ready?.();
    expect(ready?.healthy).toBe(false);
    expect(ready?.reason).toContain(command.replace(/^\.\//, ''));
    const err = await rejection(p.call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.beforeEffect).toBe(true);
    expect(err.message).toContain('ENOENT');
  });

  it.runIf(process.platform !== 'win32')('a file that is not executable: EACCES is unavailable before effect', async () => {
    const p = make({ command: './cmd-echo.mjs' });
    expect(p.ready?.()?.healthy).toBe(false);
    const err = await rejection(p.call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.beforeEffect).toBe(true);
  });

  it('finds a bare program name on PATH', () => {
    const dir = dirname(NODE);
    const program = basename(NODE);
    expect(resolveCommand(program, '/', { PATH: dir })).toBe(join(dir, program));
    expect(make({ command: program }, { PATH: dir }).ready?.()).toEqual({ healthy: true });
    expect(resolveCommand(program, '/', { PATH: '' })).toBeUndefined();
  });

  it('expands ${VAR} in env values from the environment only', async () => {
    const p = make(
      { ...script('cmd-echo.mjs'), env: { TOKEN: 'Bearer ${SECRET}', LITERAL: '$SECRET and $(SECRET)' } },
      { ...BASE_ENV, SECRET: 'abc' },
    );
    await expect(p.call({ $env: ['TOKEN', 'LITERAL'] }, contextFor())).resolves.toEqual({ TOKEN: 'Bearer abc', LITERAL: '$SECRET and $(SECRET)' });
  });

  it('an env value naming an unset variable makes the provider not ready and unavailable', async () => {
    const p = make({ ...script('cmd-echo.mjs'), env: { TOKEN: '${MISSING_SECRET}' } });
    expect(p.ready?.()).toEqual({ healthy: false, reason: 'MISSING_SECRET is not set' });
    const err = await rejection(p.call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.beforeEffect).toBe(true);
  });

  it('runs in cwd relative to baseDir (default baseDir)', async () => {
    const root = realpathSync(FIXTURES);
    await expect(make({ ...script('cmd-echo.mjs') }).call({ $cwd: true }, contextFor())).resolves.toEqual({ cwd: root });
    await expect(make({ command: NODE, args: ['./providers/cmd-echo.mjs'], cwd: '..' }).call({ $cwd: true }, contextFor())).resolves.toEqual({
      cwd: dirname(root),
    });
  });

  it.runIf(process.platform !== 'win32')('a child that ignores SIGTERM is killed with SIGKILL after the grace period', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-cmd-'));
    try {
      const pidFile = join(dir, 'pid');
      const p = track(make({ ...script('cmd-hang.mjs', 'ignore-term', pidFile), killGraceMs: 200 }));
      const controller = new AbortController();
      const pending = p.call({}, contextFor(controller.signal));
      await vi.waitFor(() => expect(existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '').toBe(true), { timeout: 10_000 });
      const pid = Number(readFileSync(pidFile, 'utf8'));
      controller.abort();
      expect((await rejection(pending)).code).toBe('ABORTED');
      await vi.waitFor(
        () => {
          expect(() => process.kill(pid, 0)).toThrow();
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);

  it.each([
    ['no command', {}, /config\.command/],
    ['args not strings', { command: 'x', args: [1] }, /config\.args/],
    ['env not strings', { command: 'x', env: { A: 1 } }, /config\.env\.A/],
    ['a zero maxOutputBytes', { command: 'x', maxOutputBytes: 0 }, /maxOutputBytes/],
  ])('create() throws ProviderConfigError for %s', (_label, config, message) => {
    expect(() => make(config)).toThrow(ProviderConfigError);
    expect(() => make(config)).toThrow(message);
  });
});
