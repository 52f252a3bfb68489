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
import { resourceLimitOf, resourceWarnings } from '../../src/runtime/containment/resource-report.js';
import { RESOURCE_LIMITS, type ResourceLimitName } from '../../src/runtime/containment/resource-limits.js';

describe('resourceWarnings', () => {
  it.each<[string, Record<string, unknown> | undefined, readonly ResourceLimitName[], string[]]>([
    ['nothing declared', undefined, [], []],
    ['a provider applying every limit', { memory_mb: 64, cpuSec: 2, open_files: 8 }, RESOURCE_LIMITS, []],
    ['no provider enforces a hint', { memory_mb: 64, gpu: 1 }, RESOURCE_LIMITS, ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)']],
    ['a provider applying memory only', { memory_mb: 64, cpu_seconds: 2 }, ['memoryMb'], ['execution.resources.cpu_seconds is not enforced: a http provider cannot apply it']],
    [
      'a provider applying nothing',
      { memory_mb: 64, gpu: 1 },
      [],
      ['execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)', 'execution.resources.memory_mb is not enforced: a http provider cannot apply it'],
    ],
  ])('%s', (_label, resources, enforced, expected) => {
    expect(resourceWarnings(resources, enforced, 'http')).toEqual(expected);
  });

  it.each([
    ['memory_mb', 'memoryMb'],
    ['memoryMb', 'memoryMb'],
    ['cpu_seconds', 'cpuSec'],
    ['open_files', 'openFiles'],
    ['gpu', undefined],
    ['cpu', undefined],
  ])('resourceLimitOf(%s) is %s', (key, expected) => {
    expect(resourceLimitOf(key)).toBe(expected);
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
    // a module worker's heap is capped (memory_mb); its CPU time is not
    ['res_module', 'local', ['execution.resources.cpu_seconds is not enforced: a module provider cannot apply it', 'execution.resources.gpu is not enforced: toolcap has no limit for it (a hint)']],
    ['res_http', 'remote', ['execution.resources.memory_mb is not enforced: a http provider cannot apply it']],
    ['res_mcp', 'server', ['execution.resources.cpu_seconds is not enforced: a mcp provider cannot apply it']],
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
