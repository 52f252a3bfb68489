import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Provider, Tool } from '../../../src/model/schema.js';
import { ProviderTypes } from '../../../src/runtime/providers/provider-types.js';
import { createPythonProviderType, pythonProviderType } from '../../../src/runtime/providers/python.js';
import { ProviderConfigError, type ProviderEnvironment, type ProviderInstance } from '../../../src/runtime/providers/types.js';
import { contextFor, rejection, runProviderContract } from './contract.js';

const PROJECT = fileURLToPath(new URL('../../fixtures/python/proj/', import.meta.url));
/** Pylot's layout: the manifest's folder is config/, the project root its parent. */
const MANIFEST_DIR = join(PROJECT, 'config');
const BASE_ENV: Record<string, string> = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp' };

const made: ProviderInstance[] = [];
afterAll(async () => {
  for (const p of made) await p.close?.();
});

function make(tool: Tool, config?: Record<string, unknown>, env: Record<string, string> = BASE_ENV, onOutput?: (tool: string, text: string) => void): ProviderInstance {
  const environment: ProviderEnvironment = { env, baseDir: MANIFEST_DIR };
  const entry: Provider = config === undefined ? { name: 'python' } : { name: 'python', config };
  const type = onOutput ? createPythonProviderType({ onOutput }) : pythonProviderType;
  const instance = type.create(entry, tool, environment);
  made.push(instance);
  return instance;
}
const pylot = (name: string, module: string, className?: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  implementation: { module, language: 'python', ...(className !== undefined ? { export: className } : {}) },
  ...extra,
});
const timeout = (ms: number) => contextFor(AbortSignal.timeout(ms));

runProviderContract('python', () => ({
  type: 'python',
  succeed: make(pylot('echo', 'ptools.echo', 'EchoTool')),
  fail: make(pylot('fail', 'ptools.echo', 'FailTool')),
  hang: make(pylot('hang', 'ptools.echo', 'HangTool'), { killGraceMs: 300 }),
  unavailable: make(pylot('missing', 'ptools.nope')),
}));

describe('python provider', () => {
  it('is what a Pylot tool without providers runs through; a JavaScript module stays on the module type', () => {
    const types = new ProviderTypes();
    const env = { env: BASE_ENV, baseDir: MANIFEST_DIR };
    expect(types.instantiate(pylot('echo', 'ptools.echo', 'EchoTool'), env)[0]).toMatchObject({ type: 'python', entry: { name: 'python' } });
    expect(types.instantiate({ name: 'js', implementation: { module: './echo.mjs' } }, env)[0]).toMatchObject({ type: 'module' });
  });

  it.each([
    ['class_name given', 'SecondTool', { class: 'SecondTool' }],
    ['no class_name: the first subclass of Tool', undefined, { class: 'FirstTool' }],
  ])('runs the right class (%s)', async (_label, className, expected) => {
    await expect(make(pylot('pick', 'ptools.behaviour', className)).call({}, contextFor())).resolves.toEqual(expected);
  });

  it('imports a package-relative module (one leading dot: from the project root)', async () => {
    await expect(make(pylot('rel', '.ptools.echo', 'EchoTool')).call({ a: 1 }, contextFor())).resolves.toEqual({ a: 1 });
  });

  it('keeps one worker across calls', async () => {
    const p = make(pylot('hangs', 'ptools.behaviour', 'Hangs'));
    const first = (await p.call({}, contextFor())) as { pid: number };
    await expect(p.call({}, contextFor())).resolves.toEqual({ pid: first.pid });
  });

  it('a timeout ends the worker with a clear error; the next call runs in a new one', async () => {
    const p = make(pylot('hangs', 'ptools.behaviour', 'Hangs'), { killGraceMs: 200 });
    const before = (await p.call({}, contextFor())) as { pid: number };
    const err = await rejection(p.call({ hang: true }, timeout(300)));
    expect(err.code).toBe('ABORTED');
    expect(err.message).toMatch(/python tool "hangs".*the worker was ended/);
    const after = (await p.call({}, contextFor())) as { pid: number };
    expect(after.pid).not.toBe(before.pid);
  }, 15_000);

  it('a raised exception is a PROVIDER_ERROR with its type and message, no traceback, secrets redacted', async () => {
    const secret = 'hunter2-very-secret-value';
    const tool = pylot('secretive', 'ptools.behaviour', 'Secretive', { auth: { envs: { PT_SECRET: {} } } });
    const err = await rejection(make(tool, undefined, { ...BASE_ENV, PT_SECRET: secret }).call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.beforeEffect).toBe(false);
    expect(err.message).toContain('ValueError: could not log in with [REDACTED]');
    expect(JSON.stringify(err.detail)).not.toContain(secret);
    expect(err.message).not.toMatch(/Traceback|File "/);
    expect(err.detail).toMatchObject({ exception: 'ValueError' });
  });

  it('what a tool prints never reaches the protocol: the result is intact, the output is logged bounded and redacted', async () => {
    const logged: string[] = [];
    const tool = pylot('chatty', 'ptools.behaviour', 'Chatty', { auth: { envs: { PT_SECRET: {} } } });
    const p = make(tool, undefined, { ...BASE_ENV, PT_SECRET: 'sk-abcdefghijklmnop1234' }, (_t, text) => logged.push(text));
    await expect(p.call({ text: 'hi' }, contextFor())).resolves.toEqual({ text: 'HI' });
    await expect(p.call({ text: 'again' }, contextFor())).resolves.toEqual({ text: 'AGAIN' });
    expect(logged[0]).toContain('progress: starting hi');
    expect(logged[0]).toContain('"result": "forged"');
    expect(logged.join('')).not.toContain('sk-abcdefghijklmnop1234');
  });

  it('a crashed worker fails its call; the next call starts a new one', async () => {
    const p = make(pylot('crash', 'ptools.behaviour', 'Crash'));
    const before = (await p.call({}, contextFor())) as { pid: number };
    const err = await rejection(p.call({ crash: true }, contextFor()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.message).toMatch(/worker exited with code 7/);
    const after = (await p.call({}, contextFor())) as { pid: number };
    expect(after.pid).not.toBe(before.pid);
  });

  it('a tool reading stdin reads nothing and cannot swallow the next request', async () => {
    const p = make(pylot('stdin', 'ptools.behaviour', 'ReadsStdin'));
    await expect(p.call({}, contextFor())).resolves.toEqual({ read: '' });
    await expect(p.call({}, contextFor())).resolves.toEqual({ read: '' });
  });

  it('the worker sees the allow-listed environment only', async () => {
    const tool = pylot('env', 'ptools.behaviour', 'Env', { auth: { envs: { PT_DECLARED: {} } } });
    const env = { ...BASE_ENV, PT_DECLARED: 'yes', PT_UNDECLARED: 'no', PYTHONPATH: '/elsewhere' };
    const result = await make(tool, undefined, env).call({ names: ['PT_DECLARED', 'PT_UNDECLARED', 'PYTHONPATH', 'HOME'] }, contextFor());
    expect(result).toEqual({ PT_DECLARED: 'yes', PT_UNDECLARED: null, PYTHONPATH: null, HOME: BASE_ENV['HOME'] });
  });

  it.each([
    ['concurrency 1 serialises', { concurrency: 1 }, 1],
    ['concurrency 3 overlaps', { concurrency: 3 }, 3],
  ])('%s', async (_label, config, peak) => {
    const p = make(pylot('sleepy', 'ptools.behaviour', 'Sleepy'), config);
    const results = (await Promise.all([1, 2, 3].map(() => p.call({ ms: 400 }, contextFor())))) as Array<{ peak: number; pid: number }>;
    expect(Math.max(...results.map((r) => r.peak))).toBe(peak);
    expect(new Set(results.map((r) => r.pid)).size).toBe(1);
  }, 15_000);

  it('a parallel tool\'s max_concurrency runtime hint caps the calls at once', async () => {
    const p = make(pylot('sleepy', 'ptools.behaviour', 'Sleepy', { execution: { allowParallel: true, resources: { max_concurrency: 2 } } }));
    const results = (await Promise.all([1, 2, 3].map(() => p.call({ ms: 400 }, contextFor())))) as Array<{ peak: number }>;
    expect(Math.max(...results.map((r) => r.peak))).toBe(2);
  }, 15_000);

  it('execution.allowParallel without config.concurrency runs calls side by side', async () => {
    const p = make(pylot('sleepy', 'ptools.behaviour', 'Sleepy', { execution: { allowParallel: true } }));
    const results = (await Promise.all([1, 2].map(() => p.call({ ms: 400 }, contextFor())))) as Array<{ peak: number }>;
    expect(Math.max(...results.map((r) => r.peak))).toBe(2);
  }, 15_000);

  it.each([
    ['a result that is not JSON', 'NotJson', 'BAD_RESPONSE', /not JSON/],
    ['sys.exit() in run()', 'Exits', 'PROVIDER_ERROR', /SystemExit: 4/],
  ])('%s fails the call, not the worker', async (_label, className, code, message) => {
    const p = make(pylot('odd', 'ptools.behaviour', className));
    const err = await rejection(p.call({}, contextFor()));
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
  });

  it('a lone surrogate in the arguments comes back as given: the answer is never lost to an encoding error (it hung until the timeout, which then ended the worker)', async () => {
    const p = make(pylot('echo', 'ptools.echo', 'EchoTool'));
    await expect(p.call({ text: 'a\ud800b', e: '\udfff' }, timeout(5000))).resolves.toEqual({ text: 'a\ud800b', e: '\udfff' });
  }, 15_000);

  it('arguments nested deeper than Python\'s JSON decoder reads fail that call, as the caller\'s fault, before any effect; the worker lives on', async () => {
    const p = make(pylot('hangs', 'ptools.behaviour', 'Hangs'));
    const before = (await p.call({}, contextFor())) as { pid: number };
    let deep: unknown = 1;
    for (let i = 0; i < 3000; i++) deep = [deep];
    const err = await rejection(p.call({ deep }, timeout(5000)));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.beforeEffect).toBe(true);
    expect(err.fault).toBe('caller');
    expect(err.message).toMatch(/nested too deep/);
    await expect(p.call({}, contextFor())).resolves.toEqual({ pid: before.pid });
  }, 15_000);

  it.each([
    ['a module that does not exist', 'ptools.nope', undefined, /no module|No module/],
    ['a module that raises on import', 'ptools.broken', undefined, /broken on purpose/],
    ['a module without a Tool subclass', 'ptools.noclass', undefined, /no subclass of Tool/],
    ['a class that is not there', 'ptools.echo', 'Nope', /has no class 'Nope'/],
    ['a standard library module', 'json', undefined, /standard library/],
    ['a module above the project root', '..ptools.echo', undefined, /above the project root/],
  ])('%s: unavailable before any effect, and unhealthy', async (_label, module, className, message) => {
    const p = make(pylot('bad', module, className));
    const err = await rejection(p.call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.beforeEffect).toBe(true);
    expect(err.message).toMatch(message);
    expect(p.ready?.().healthy).toBe(false);
  });

  it('without the interpreter: unavailable and unhealthy, naming it', async () => {
    const p = make(pylot('echo', 'ptools.echo', 'EchoTool'), { python: '/nonexistent/python3' });
    expect(p.ready?.()).toMatchObject({ healthy: false, reason: expect.stringContaining('/nonexistent/python3') });
    expect((await rejection(p.call({}, contextFor()))).code).toBe('PROVIDER_UNAVAILABLE');
  });

  it('active check: the worker loads the class and answers', async () => {
    await expect(make(pylot('echo', 'ptools.echo', 'EchoTool')).check?.(AbortSignal.timeout(5000))).resolves.toMatchObject({ healthy: true });
    await expect(make(pylot('bad', 'ptools.broken')).check?.(AbortSignal.timeout(5000))).resolves.toMatchObject({ healthy: false });
  });

  it('retire() lets the call under way finish, then ends the worker; close() ends it at once', async () => {
    const gone = async (pid: number) => {
      for (let i = 0; i < 200; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return true;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return false;
    };
    const p = make(pylot('sleepy', 'ptools.behaviour', 'Sleepy'));
    const running = p.call({ ms: 300 }, contextFor());
    await new Promise((r) => setTimeout(r, 100));
    p.retire?.();
    const { pid } = (await running) as { pid: number };
    expect(await gone(pid)).toBe(true);
    const q = make(pylot('hangs', 'ptools.behaviour', 'Hangs'));
    const { pid: second } = (await q.call({}, contextFor())) as { pid: number };
    await q.close?.();
    expect(await gone(second)).toBe(true);
  });

  it.each([
    [{ module: 'tools/x.py' }, /not a Python import path/],
    [{ concurrency: 0 }, /concurrency must be a positive integer/],
    [{ concurrency: 1.5 }, /concurrency must be a positive integer/],
    [{ env: 'x' }, /config.env must be an object/],
  ])('refuses config %j', (config, message) => {
    expect(() => pythonProviderType.create({ name: 'python', config }, pylot('t', 'ptools.echo'), { env: BASE_ENV, baseDir: MANIFEST_DIR })).toThrow(ProviderConfigError);
    expect(() => pythonProviderType.create({ name: 'python', config }, pylot('t', 'ptools.echo'), { env: BASE_ENV, baseDir: MANIFEST_DIR })).toThrow(message);
  });
});

describe('python provider: code identity and edits', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-py-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports from a runtime.trustedModuleDirs folder too (and is healthy)', async () => {
    const shared = join(dir, 'shared');
    cpSync(join(PROJECT, 'ptools'), join(shared, 'sharedtools'), { recursive: true });
    const tool = pylot('shared', 'sharedtools.echo', 'EchoTool');
    const p = pythonProviderType.create({ name: 'python' }, tool, { env: BASE_ENV, baseDir: MANIFEST_DIR, trustedModuleDirs: [shared] });
    made.push(p);
    expect(p.ready?.()).toMatchObject({ healthy: true });
    await expect(p.call({ s: 1 }, contextFor())).resolves.toEqual({ s: 1 });
    const untrusted = make(tool);
    expect(untrusted.ready?.().healthy).toBe(false);
    expect((await rejection(untrusted.call({}, contextFor()))).code).toBe('PROVIDER_UNAVAILABLE');
  });

  it('hashes the module files; an edit changes the identity and the next call runs the new code', async () => {
    cpSync(PROJECT, dir, { recursive: true });
    const tool = pylot('gen', 'ptools.gen', 'Gen');
    writeFileSync(join(dir, 'ptools', 'gen.py'), 'from .base import Tool\nclass Gen(Tool):\n    def run(self):\n        return 1\n');
    const p = pythonProviderType.create({ name: 'python' }, tool, { env: BASE_ENV, baseDir: join(dir, 'config') });
    made.push(p);
    const before = await p.codeIdentity?.();
    expect(before).toMatch(/^python:sha256:/);
    await expect(p.call({}, contextFor())).resolves.toBe(1);
    writeFileSync(join(dir, 'ptools', 'gen.py'), 'from .base import Tool\nclass Gen(Tool):\n    def run(self):\n        return 22\n');
    expect(await p.codeIdentity?.()).not.toBe(before);
    await expect(p.call({}, contextFor())).resolves.toBe(22);
  });
});
