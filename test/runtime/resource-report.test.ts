/**
 * Declared resources (Pylot's runtime hints): enforced where the provider
 * starts a process (command, through prlimit), reported as not enforced
 * where it cannot (module, http, mcp) and for hints toolcap has no limit for.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolcap, type Toolcap } from '../../src/host.js';
import { createApi } from '../../src/server/app.js';
import { findPrlimit } from '../../src/runtime/containment/resource-limits.js';
import { isResourceLimitKey, resourceWarnings } from '../../src/runtime/containment/resource-report.js';

describe('resourceWarnings', () => {
  it.each<[string, Record<string, unknown> | undefined, 'process' | 'none', string[]]>([
    ['nothing declared', undefined, 'none', []],
    ['a process provider enforces known limits', { memory_mb: 64, cpuSec: 2, open_files: 8 }, 'process', []],
    ['a process provider cannot enforce a hint', { memory_mb: 64, gpu: 1 }, 'process', ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)']],
    [
      'a provider without a process enforces nothing',
      { memory_mb: 64, gpu: 1 },
      'none',
      ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)', 'execution.resources.memory_mb is not enforced: a http provider runs no process toolcap can limit'],
    ],
  ])('%s', (_label, resources, enforcement, expected) => {
    expect(resourceWarnings(resources, enforcement, 'http')).toEqual(expected);
  });

  it.each([
    ['memory_mb', true],
    ['memoryMb', true],
    ['cpu_seconds', true],
    ['open_files', true],
    ['gpu', false],
    ['cpu', false],
  ])('isResourceLimitKey(%s) is %s', (key, expected) => {
    expect(isResourceLimitKey(key)).toBe(expected);
  });
});

describe('declared resources through the runtime', () => {
  const folders: string[] = [];
  const opened: Toolcap[] = [];
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.close();
    for (const d of folders.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function open(): Promise<Toolcap> {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-resources-'));
    folders.push(dir);
    cpSync('test/fixtures/pylot/resources', dir, { recursive: true });
    writeFileSync(join(dir, 'toolcap.config.yaml'), 'sources: [tools.yaml]\n');
    const toolcap = await createToolcap(join(dir, 'toolcap.config.yaml'), { warn: () => undefined });
    opened.push(toolcap);
    return toolcap;
  }

  const prlimit = findPrlimit() !== undefined;

  it.each<[string, string, string[]]>([
    ['res_command', 'script', ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)']],
    ['res_module', 'local', ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)', 'execution.resources.memory_mb is not enforced: a module provider runs no process toolcap can limit']],
    ['res_http', 'remote', ['execution.resources.memory_mb is not enforced: a http provider runs no process toolcap can limit']],
    ['res_mcp', 'server', ['execution.resources.cpu_seconds is not enforced: a mcp provider runs no process toolcap can limit']],
  ])('%s: its provider health lists what is not enforced', async (tool, provider, expected) => {
    if (tool === 'res_command' && !prlimit) expected = [...expected, 'execution.resources memoryMb is not enforced here (no prlimit)', 'execution.resources openFiles is not enforced here (no prlimit)'];
    const toolcap = await open();
    await toolcap.runtime.call(tool, tool === 'res_command' ? { count: 1 } : {}, { caller: 'test' }).catch(() => undefined);
    const health = toolcap.runtime.health.providers(tool).find((p) => p.provider === provider);
    expect(health?.warnings).toEqual(expected);
    // the HTTP API shows the same warnings with the tool
    const api = createApi(toolcap.registry, { runtime: toolcap.runtime, health: toolcap.health });
    const body = (await (await api.fetch(new Request(`http://toolcap.test/tools/${tool}`))).json()) as { providerHealth?: Array<{ provider: string; warnings?: string[] }> };
    expect(body.providerHealth?.find((p) => p.provider === provider)?.warnings).toEqual(expected);
  });

  it.runIf(prlimit)('the command provider holds the tool to its declared open_files', async () => {
    const toolcap = await open();
    const within = await toolcap.runtime.call('res_command', { count: 5 }, { caller: 'test' });
    expect(within).toMatchObject({ status: 'ok', result: { opened: 5 } });
    const beyond = await toolcap.runtime.call('res_command', { count: 100 }, { caller: 'test' }).then(
      (r) => r.status,
      (e: { code?: string }) => e.code,
    );
    expect(beyond).toBe('PROVIDER_ERROR');
  });
});
