/**
 * ATLAS's MCP settings (`tools.mcp.*`, `allow_tools`, `deny_tools`,
 * `health_check_interval`, a server's `side_effects` ... `idempotency_key`)
 * read as aliases of toolcap's; unknown keys that would fail open refuse the
 * config; and a `deny_tools` list denies, against the real reference server.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configJsonSchema, loadConfig } from '../../src/config/config.js';
import { createToolcap } from '../../src/host.js';
import { createAjv } from '../../src/model/validator.js';
import { CallError } from '../../src/runtime/errors.js';
import { EVERYTHING } from '../mcp/helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function configFile(text: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolcap-mcp-atlas-')));
  dirs.push(dir);
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'm', 'tools.yaml'), 'toolcap: 1\ntools:\n  - name: a.tool\n    description: A\n    effects: { mode: read, sideEffects: none }\n');
  const path = join(dir, 'toolcap.config.yaml');
  writeFileSync(path, text);
  return path;
}

const ATLAS = `sources: [m]
tools:
  mcp:
    enabled: true
    allow_tools: ['echo', 'get-*']
    deny_tools: ['get-env']
    health_check_interval: 120
    servers:
      everything:
        command: node
        deny_tools: ['get-tiny-image']
        side_effects: compute
        default_timeout: 12
        requires_consent: false
        allow_parallel: true
      other:
        command: node
        health_check_interval: 30
`;

describe('ATLAS spellings of the MCP settings', () => {
  it('read as toolcap\'s own, under tools.mcp', () => {
    const { config, diagnostics } = loadConfig(configFile(ATLAS));
    expect(diagnostics).toEqual([]);
    expect(config?.mcp).toMatchObject({ enabled: true, allowTools: ['echo', 'get-*'], denyTools: ['get-env'] });
    const [everything, other] = config?.mcp.servers ?? [];
    expect(everything).toMatchObject({
      name: 'everything',
      denyTools: ['get-tiny-image'],
      healthCheckIntervalSec: 120,
      defaults: { sideEffects: 'compute', timeoutSec: 12, consent: false, allowParallel: true },
    });
    expect(other).toMatchObject({ name: 'other', healthCheckIntervalSec: 30 });
  });

  it('the config JSON Schema accepts the ATLAS spelling too', () => {
    const validate = createAjv().compile(configJsonSchema());
    expect(validate({ sources: ['m'], tools: { mcp: { deny_tools: ['x'], servers: { s: { command: 'node', allow_tools: ['y'], requires_consent: false } } } } })).toBe(true);
    expect(validate({ sources: ['m'], tools: { other: 1 } })).toBe(false);
  });

  it.each<[string, string, Array<{ code: string; severity: string; pointer: string }>]>([
    ['both spellings of one list', 'sources: [m]\nmcp: { denyTools: [a], deny_tools: [b] }\n', [{ code: 'DUPLICATE_KEY', severity: 'error', pointer: '/mcp/deny_tools' }]],
    ['mcp and tools.mcp both', 'sources: [m]\nmcp: { enabled: false }\ntools: { mcp: { enabled: true } }\n', [{ code: 'DUPLICATE_KEY', severity: 'error', pointer: '/tools/mcp' }]],
    ['a misspelt deny list (fails open)', 'sources: [m]\nmcp: { deny_tool: [get-env] }\n', [{ code: 'UNKNOWN_FIELD', severity: 'error', pointer: '/mcp/deny_tool' }]],
    ['a misspelt server allow list (fails open)', 'sources: [m]\ntools:\n  mcp:\n    servers:\n      s: { command: node, allowed_tools: [echo] }\n', [{ code: 'UNKNOWN_FIELD', severity: 'error', pointer: '/tools/mcp/servers/s/allowed_tools' }]],
    ['an unknown key that restricts nothing (warning)', 'sources: [m]\nmcp: { colour: blue }\n', [{ code: 'UNKNOWN_FIELD', severity: 'warning', pointer: '/mcp/colour' }]],
    ['another ATLAS tools.* key (warning)', 'sources: [m]\ntools:\n  registry_cache: 5\n', [{ code: 'UNKNOWN_FIELD', severity: 'warning', pointer: '/tools/registry_cache' }]],
  ])('%s', (_label, text, expected) => {
    const result = loadConfig(configFile(text));
    expect(result.diagnostics.map((d) => ({ code: d.code, severity: d.severity, pointer: d.pointer }))).toEqual(expected);
    expect(result.config === undefined).toBe(expected.some((d) => d.severity === 'error'));
  });
});

describe('deny_tools denies', () => {
  it(
    'denied tools are not discovered, listed or callable; allowed ones are',
    async () => {
      const path = configFile(
        `sources: [m]\nstore: { path: .toolcap/t.db }\ntools:\n  mcp:\n    deny_tools: ['get-env']\n    servers:\n      everything:\n        command: ${JSON.stringify(process.execPath)}\n        args: [${JSON.stringify(EVERYTHING)}, stdio]\n        allow_tools: [echo, get-sum, get-env]\n        requires_consent: false\n`,
      );
      const toolcap = await createToolcap(path, { traces: false, warn: () => {} });
      try {
        const names = async () => toolcap.registry.snapshot().tools.map((t) => t.name).filter((n) => n.startsWith('mcp.'));
        for (let i = 0; i < 200 && (await names()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
        expect((await names()).sort()).toEqual(['mcp.everything.echo', 'mcp.everything.get-sum']);
        const ok = await toolcap.runtime.call('mcp.everything.echo', { message: 'hi' });
        expect(ok).toMatchObject({ status: 'ok', provider: 'mcp' });
        const denied = await toolcap.runtime.call('mcp.everything.get-env', {}).catch((e: unknown) => e);
        expect(denied).toBeInstanceOf(CallError);
        expect((denied as CallError).code).toBe('TOOL_NOT_FOUND');
      } finally {
        await toolcap.close();
      }
    },
    30_000,
  );
});
