import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Provider, Tool } from '../../../src/model/schema.js';
import { moduleProviderType } from '../../../src/runtime/providers/module.js';
import { ProviderConfigError, type ProviderEnvironment } from '../../../src/runtime/providers/types.js';
import { contextFor, rejection, runProviderContract } from './contract.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/providers/', import.meta.url));
const ENV: ProviderEnvironment = { env: {}, baseDir: FIXTURES };
const TOOL: Tool = { name: 'module.test' };
const ROOT_MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url));

function make(config: Record<string, unknown>, tool: Tool = TOOL, name = 'mod') {
  const entry: Provider = { name, config };
  return moduleProviderType.create(entry, tool, ENV);
}

runProviderContract('module', () => ({
  type: 'module',
  succeed: make({ module: './echo-module.mjs' }, TOOL, 'echo'),
  fail: make({ module: './echo-module.mjs', export: 'fail' }, TOOL, 'fail'),
  hang: make({ module: './echo-module.mjs', export: 'hang' }, TOOL, 'hang'),
  unavailable: make({ module: './broken-module.mjs' }, TOOL, 'broken'),
}));

describe('module provider', () => {
  it('instantiates a class export once and calls run()', async () => {
    const p = make({ module: './echo-module.mjs', export: 'Counter' });
    const first = (await p.call({ a: 1 }, contextFor())) as { calls: number; constructed: number };
    const second = (await p.call({ a: 2 }, contextFor())) as { calls: number; constructed: number; args: unknown };
    expect(first.calls).toBe(1);
    expect(second.calls).toBe(2);
    expect(second.constructed).toBe(first.constructed);
    expect(second.args).toEqual({ a: 2 });
  });

  it('calls an object export through its call() method, bound to the object', async () => {
    const p = make({ module: './echo-module.mjs', export: 'tool' });
    await expect(p.call({ q: 'x' }, contextFor())).resolves.toEqual({ via: 'obj', args: { q: 'x' } });
  });

  it('passes the call context, signal included', async () => {
    const p = make({ module: './echo-module.mjs', export: 'inspect' });
    const ctx = contextFor();
    await expect(p.call({ k: 1 }, ctx)).resolves.toEqual({ args: { k: 1 }, callId: ctx.callId, attempt: 1, hasSignal: true });
  });

  it('releases a call whose function ignores the signal', async () => {
    const p = make({ module: './echo-module.mjs', export: 'hangDeaf' });
    const controller = new AbortController();
    const pending = p.call({}, contextFor(controller.signal));
    setTimeout(() => controller.abort(), 50);
    expect((await rejection(pending)).code).toBe('ABORTED');
  });

  it('names the missing export and the exports the module has', async () => {
    const p = make({ module: './echo-module.mjs', export: 'nope' });
    const err = await rejection(p.call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.beforeEffect).toBe(true);
    expect(err.cause).toBeInstanceOf(ProviderConfigError);
    expect(err.message).toContain('"nope"');
    for (const name of ['default', 'Counter', 'tool', 'fail']) expect(err.message).toContain(name);
    expect(err.message).toContain('exports: ');
    expect(p.ready?.()).toMatchObject({ healthy: false, reason: err.message });
  });

  it('refuses an export that cannot be run', async () => {
    const err = await rejection(make({ module: './echo-module.mjs', export: 'notRunnable' }).call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.message).toContain('not a function');
  });

  it.each([
    ['relative to baseDir', './echo-module.mjs'],
    ['parent-relative to baseDir', '../providers/echo-module.mjs'],
    ['absolute path', `${FIXTURES}echo-module.mjs`],
    ['file: URL', pathToFileURL(`${FIXTURES}echo-module.mjs`).href],
  ])('resolves a module path (%s)', async (_label, module) => {
    const p = make({ module });
    expect(p.ready?.()).toEqual({ healthy: true });
    await expect(p.call({ v: 1 }, contextFor())).resolves.toEqual({ v: 1 });
  });

  it('loads a package installed in a trusted folder, by name', async () => {
    const p = moduleProviderType.create({ name: 'pkg', config: { module: 'yaml', export: 'stringify' } }, TOOL, { ...ENV, trustedModuleDirs: [ROOT_MODULES] });
    expect(p.ready?.()).toEqual({ healthy: true });
    // stringify(args, ctx) is not a tool, but it shows a package name is imported.
    await expect(p.call({ a: 1 }, contextFor())).resolves.toBeTypeOf('string');
    await p.close?.();
  });

  it('ready() is unhealthy when a relative module file does not exist', () => {
    const r = make({ module: './missing.mjs' }).ready?.();
    expect(r?.healthy).toBe(false);
    expect(r?.reason).toContain('missing.mjs');
  });

  it('falls back to implementation.module / implementation.export', async () => {
    const tool: Tool = { name: 'impl.tool', implementation: { module: './echo-module.mjs', export: 'tool', language: 'javascript' } };
    const p = moduleProviderType.create({ name: 'module' }, tool, ENV);
    await expect(p.call({ z: 1 }, contextFor())).resolves.toEqual({ via: 'obj', args: { z: 1 } });
  });

  it.each([
    ['no module anywhere', { name: 'module' } as Provider, TOOL, /no module to run/],
    ['a Python implementation', { name: 'module' } as Provider, { name: 'py', implementation: { module: 'modules.search', language: 'python' } } as Tool, /python/],
    ['a non-string export', { name: 'm', config: { module: './x.mjs', export: 3 } } as Provider, TOOL, /config\.export/],
    ['a bad interval', { name: 'm', config: { module: './x.mjs', healthCheckIntervalSec: -1 } } as Provider, TOOL, /healthCheckIntervalSec/],
  ])('create() throws ProviderConfigError for %s', (_label, entry, tool, message) => {
    expect(() => moduleProviderType.create(entry, tool, ENV)).toThrow(ProviderConfigError);
    expect(() => moduleProviderType.create(entry, tool, ENV)).toThrow(message);
  });

  it.each([
    ['healthy', { healthy: true }],
    ['unhealthy', { healthy: false, reason: 'backend down' }],
  ])('check() runs the %s health-check export', async (exportName, expected) => {
    const p = make({ module: './echo-module.mjs', healthCheck: exportName, healthCheckIntervalSec: 30 });
    expect(p.healthCheckIntervalSec).toBe(30);
    await expect(p.check?.(new AbortController().signal)).resolves.toEqual(expected);
  });

  it('has no check() without a healthCheck export', () => {
    expect(make({ module: './echo-module.mjs' }).check).toBeUndefined();
  });

  it('a module that fails to load is unavailable, and ready() says so afterwards', async () => {
    const p = make({ module: './broken-module.mjs' });
    expect(p.ready?.()).toEqual({ healthy: true });
    const err = await rejection(p.call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.message).toContain('broken at load time');
    expect(p.ready?.()?.healthy).toBe(false);
  });
});
