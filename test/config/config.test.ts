import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configJsonSchema, DEFAULT_CONFIG_FILE, DEFAULT_SERVER, loadConfig } from '../../src/config/config.js';
import { createAjv } from '../../src/model/validator.js';
import { DEFAULT_LIMITS } from '../../src/source/source.js';
import { cli } from '../cli/helpers.js';

const FIXTURES = 'test/fixtures/config';

/** A temporary folder holding a config file and a manifest folder `m/` (and a file `f.yaml`) beside it. */
function project(name: string, text: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolcap-config-')));
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'm', 'tools.yaml'), 'toolcap: 1\ntools:\n  - name: a.tool\n    version: 1.0.0\n    description: A\n    effects: { mode: read, sideEffects: none, reversible: full }\n');
  writeFileSync(join(dir, 'f.yaml'), 'toolcap: 1\ntools: []\n');
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const FIELD_CASES: Array<[string, string, Array<{ code: string; line: number; pointer: string }>]> = [
  ['sources missing', 'server: { port: 1 }\n', [{ code: 'MISSING_FIELD', line: 1, pointer: '' }]],
  ['sources not a list', 'sources: m\n', [{ code: 'TYPE_MISMATCH', line: 1, pointer: '/sources' }]],
  ['sources empty', 'sources: []\n', [{ code: 'INVALID_VALUE', line: 1, pointer: '/sources' }]],
  ['a source that is a number', 'sources:\n  - m\n  - 42\n', [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/sources/1' }]],
  ['a source that does not exist', 'sources:\n  - m\n  - nowhere/\n', [{ code: 'PATH_NOT_FOUND', line: 3, pointer: '/sources/1' }]],
  ['a source object without path', 'sources:\n  - { dialect: atlas }\n', [{ code: 'MISSING_FIELD', line: 2, pointer: '/sources/0' }]],
  ['a source object with a missing path', 'sources:\n  - path: gone\n', [{ code: 'PATH_NOT_FOUND', line: 2, pointer: '/sources/0/path' }]],
  ['an unknown dialect', 'sources:\n  - path: m\n    dialect: klingon\n', [{ code: 'UNKNOWN_ENUM_VALUE', line: 3, pointer: '/sources/0/dialect' }]],
  ['an unknown field in a source (warning)', 'sources:\n  - path: m\n    weight: 2\n', [{ code: 'UNKNOWN_FIELD', line: 3, pointer: '/sources/0/weight' }]],
  ['an empty source path', 'sources: ["", m]\n', [{ code: 'INVALID_VALUE', line: 1, pointer: '/sources/0' }]],
  ['personas of the wrong type', 'sources: [m]\npersonas: atlas\n', [{ code: 'TYPE_MISMATCH', line: 2, pointer: '/personas' }]],
  ['a persona folder that does not exist', 'sources: [m]\npersonas:\n  atlas: gone/\n', [{ code: 'PATH_NOT_FOUND', line: 3, pointer: '/personas/atlas' }]],
  ['a persona path that is a file', 'sources: [m]\npersonas:\n  atlas: f.yaml\n', [{ code: 'INVALID_VALUE', line: 3, pointer: '/personas/atlas' }]],
  ['a persona path that is a number', 'sources: [m]\npersonas:\n  atlas: 3\n', [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/personas/atlas' }]],
  ['a persona entry without path', 'sources: [m]\npersonas:\n  - persona: atlas\n', [{ code: 'MISSING_FIELD', line: 3, pointer: '/personas/0' }]],
  ['a persona name that is not a name', 'sources: [m]\npersonas:\n  - { persona: "../x", path: m }\n', [{ code: 'INVALID_VALUE', line: 3, pointer: '/personas/0/persona' }]],
  ['a persona named twice', 'sources: [m]\npersonas:\n  - { persona: a, path: m }\n  - { persona: a, path: m }\n', [{ code: 'DUPLICATE_ENTRY', line: 4, pointer: '/personas/1/persona' }]],
  ['a store of the wrong type', 'sources: [m]\nstore: db.sqlite\n', [{ code: 'TYPE_MISMATCH', line: 2, pointer: '/store' }]],
  ['a store with path and url', 'sources: [m]\nstore:\n  path: a.db\n  url: postgres://h/db\n', [{ code: 'INVALID_VALUE', line: 3, pointer: '/store' }]],
  ['a store url that is not PostgreSQL', 'sources: [m]\nstore:\n  url: mysql://h/db\n', [{ code: 'INVALID_VALUE', line: 3, pointer: '/store/url' }]],
  ['an unknown store field (warning)', 'sources: [m]\nstore:\n  path: a.db\n  pool: 4\n', [{ code: 'UNKNOWN_FIELD', line: 4, pointer: '/store/pool' }]],
  ['port 0', 'sources: [m]\nserver:\n  port: 0\n', [{ code: 'INVALID_VALUE', line: 3, pointer: '/server/port' }]],
  ['port 65536', 'sources: [m]\nserver:\n  port: 65536\n', [{ code: 'INVALID_VALUE', line: 3, pointer: '/server/port' }]],
  ['a fractional port', 'sources: [m]\nserver:\n  port: 80.5\n', [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/server/port' }]],
  ['a port in quotes', 'sources: [m]\nserver:\n  port: "80"\n', [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/server/port' }]],
  ['a host that is not a string', 'sources: [m]\nserver:\n  host: 127\n', [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/server/host' }]],
  ['an empty host', 'sources: [m]\nserver:\n  host: ""\n', [{ code: 'INVALID_VALUE', line: 3, pointer: '/server/host' }]],
  ['a negative limit', 'sources: [m]\nlimits:\n  maxDepth: -1\n', [{ code: 'INVALID_VALUE', line: 3, pointer: '/limits/maxDepth' }]],
  ['a limit that is a string', 'sources: [m]\nlimits:\n  maxBytes: 1MB\n', [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/limits/maxBytes' }]],
  ['an unknown limit (warning)', 'sources: [m]\nlimits:\n  maxFiles: 3\n', [{ code: 'UNKNOWN_FIELD', line: 3, pointer: '/limits/maxFiles' }]],
  ['an unknown top-level field (warning)', 'sources: [m]\nwatch: true\n', [{ code: 'UNKNOWN_FIELD', line: 2, pointer: '/watch' }]],
  ['a ranking weight that is a string', 'sources: [m]\nranking:\n  weights: { write: lots }\n', [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/ranking/weights/write' }]],
  ['a negative ranking weight', 'sources: [m]\nranking:\n  weights:\n    approval: -1\n', [{ code: 'INVALID_VALUE', line: 4, pointer: '/ranking/weights/approval' }]],
  ['an unknown ranking weight (warning)', 'sources: [m]\nranking:\n  weights: { speed: 3 }\n', [{ code: 'UNKNOWN_FIELD', line: 3, pointer: '/ranking/weights/speed' }]],
  ['an MCP server with neither command nor url', 'sources: [m]\nmcp:\n  servers:\n    s1: { args: [x] }\n', [{ code: 'MISSING_FIELD', line: 4, pointer: '/mcp/servers/s1' }]],
  ['an MCP server with both command and url', 'sources: [m]\nmcp:\n  servers:\n    s1: { command: x, url: "http://h" }\n', [{ code: 'INVALID_VALUE', line: 4, pointer: '/mcp/servers/s1' }]],
  ['an MCP server name that cannot be part of a tool name', 'sources: [m]\nmcp:\n  servers:\n    Bad.Name: { command: x }\n', [{ code: 'INVALID_VALUE', line: 4, pointer: '/mcp/servers/Bad.Name' }]],
  ['an MCP url that is not http', 'sources: [m]\nmcp:\n  servers:\n    s1: { url: "ftp://h" }\n', [{ code: 'INVALID_VALUE', line: 4, pointer: '/mcp/servers/s1/url' }]],
  ['an MCP default side effect that is unknown', 'sources: [m]\nmcp:\n  servers:\n    s1:\n      command: x\n      defaults: { sideEffects: lots }\n', [{ code: 'UNKNOWN_ENUM_VALUE', line: 6, pointer: '/mcp/servers/s1/defaults/sideEffects' }]],
  ['an unknown MCP server field (warning)', 'sources: [m]\nmcp:\n  servers:\n    s1: { command: x, protocol: ws }\n', [{ code: 'UNKNOWN_FIELD', line: 4, pointer: '/mcp/servers/s1/protocol' }]],
  ['a task risk out of range', 'sources: [m]\nranking: { taskRisk: 11 }\n', [{ code: 'INVALID_VALUE', line: 2, pointer: '/ranking/taskRisk' }]],
];

const codes = (path: string) => loadConfig(path).diagnostics.map((d) => ({ code: d.code, line: d.line, pointer: d.pointer }));

describe('loadConfig: a valid config', () => {
  it('reads every field, resolving paths from the config folder', () => {
    const { config, diagnostics } = loadConfig(join(FIXTURES, 'full.yaml'));
    expect(diagnostics).toEqual([]);
    const root = resolve(FIXTURES);
    expect(config?.root).toBe(root);
    expect(config?.sources.map((s) => s.path)).toEqual([join(root, 'manifests'), resolve('test/fixtures/core/base')]);
    expect(config?.sources[1]).toMatchObject({ dialect: 'toolcap', location: { line: 4, pointer: '/sources/1/path' } });
    expect(config?.personas).toMatchObject([{ persona: 'atlas', path: join(root, 'personas/atlas'), location: { line: 6 } }]);
    expect(config?.store).toEqual({ kind: 'postgres', url: 'postgres://toolcap@db.internal:5432/toolcap' });
    expect(config?.server).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(config?.limits).toEqual({ maxBytes: 1048576, maxDepth: 32, maxAliasCount: 10 });
  });

  it('fills in defaults for everything but sources', () => {
    const { config, diagnostics } = loadConfig(join(FIXTURES, 'minimal.json'));
    expect(diagnostics).toEqual([]);
    expect(config).toMatchObject({
      personas: [],
      store: { kind: 'sqlite', path: resolve(FIXTURES, '.toolcap/toolcap.db') },
      server: DEFAULT_SERVER,
      limits: DEFAULT_LIMITS,
    });
  });

  it('merges partial server and limits with the defaults', () => {
    const { config } = loadConfig(project('c.yaml', 'sources: [m]\nserver: { port: 9000 }\nlimits: { maxDepth: 10 }\nstore: { path: data/x.db }\n'));
    expect(config?.server).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(config?.limits).toEqual({ ...DEFAULT_LIMITS, maxDepth: 10 });
    expect(config?.store).toEqual({ kind: 'sqlite', path: join(config?.root ?? '', 'data/x.db') });
  });

  it('takes personas as a list of { persona, path } too', () => {
    const { config, diagnostics } = loadConfig(join(FIXTURES, 'personas-list.yaml'));
    expect(diagnostics).toEqual([]);
    expect(config?.personas.map((p) => p.persona)).toEqual(['atlas']);
  });
});

describe('loadConfig: every field is checked, at its line', () => {
  it.each(FIELD_CASES)('%s', (_name, text, expected) => {
    expect(codes(project('toolcap.config.yaml', text))).toEqual(expected);
  });

  it('returns a config despite warnings, and none on errors', () => {
    expect(loadConfig(project('c.yaml', 'sources: [m]\nwatch: true\n')).config).toBeDefined();
    expect(loadConfig(project('c.yaml', 'sources: [m]\nserver: { port: 0 }\n')).config).toBeUndefined();
  });

  it('reports JSON configs at their lines too', () => {
    expect(codes(project('c.json', '{\n  "sources": ["m"],\n  "server": { "port": 70000 }\n}\n'))).toEqual([
      { code: 'INVALID_VALUE', line: 3, pointer: '/server/port' },
    ]);
  });
});

describe('loadConfig: bad input', () => {
  it.each([
    ['an empty file', '', 'FILE_EMPTY'],
    ['only a comment', '# nothing\n', 'FILE_EMPTY'],
    ['a list at the top', '- m\n', 'TYPE_MISMATCH'],
    ['a string at the top', 'just text\n', 'TYPE_MISMATCH'],
    ['null at the top', 'null\n', 'FILE_EMPTY'],
    ['broken YAML', 'sources: [m\n', 'PARSE_ERROR'],
    ['a duplicate key', 'sources: [m]\nsources: [m]\n', 'DUPLICATE_KEY'],
    ['an alias bomb', `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\nsources: [m]\n`, 'YAML_ALIAS_LIMIT'],
    ['deep nesting', `sources: [m]\nx: ${'['.repeat(100)}${']'.repeat(100)}\n`, 'NESTING_TOO_DEEP'],
  ])('%s -> %s, no config', (_name, text, code) => {
    const result = loadConfig(project('toolcap.config.yaml', text));
    expect(result.config).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toContain(code);
  });

  it('ignores __proto__ with a warning and still pollutes nothing', () => {
    const result = loadConfig(project('c.yaml', 'sources: [m]\n__proto__: { polluted: true }\nserver:\n  __proto__: { port: 1 }\n'));
    expect(result.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['UNSAFE_KEY', 2],
      ['UNSAFE_KEY', 4],
    ]);
    expect(result.config?.server).toEqual(DEFAULT_SERVER);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('says when the config file is missing (unreadable)', () => {
    const result = loadConfig('no/such/toolcap.config.yaml');
    expect(result).toMatchObject({ unreadable: true, diagnostics: [{ code: 'PATH_NOT_FOUND' }] });
  });
});

describe('--config on the command line', () => {
  const EXAMPLE = 'examples/toolcap.config.yaml';
  // the examples discover an MCP server: once toolcap serve has run here, its cached tools are the first layer
  const CACHE = 'examples/.toolcap/mcp';
  const LAYERS = [...(existsSync(CACHE) ? [CACHE] : []), 'examples/manifests', 'examples/overrides'];

  it('validate --config examples/toolcap.config.yaml equals validate examples/manifests examples/overrides', async () => {
    const byConfig = await cli('validate', '--config', EXAMPLE);
    const byPaths = await cli('validate', ...LAYERS);
    expect(byConfig).toEqual(byPaths);
    const json = await cli('validate', '--config', EXAMPLE, '--json');
    expect(json).toEqual(await cli('validate', ...LAYERS, '--json'));
  });

  it.each([
    ['validate', ['validate', '--config', EXAMPLE, '--json'], ['validate', ...LAYERS, '--json']],
    ['inspect', ['inspect', '--config', EXAMPLE, '--json'], ['inspect', ...LAYERS, '--json']],
    ['convert', ['convert', '--config', EXAMPLE, '--to', 'toolcap'], ['convert', ...LAYERS, '--to', 'toolcap']],
  ])('%s --config gives what the same paths give', async (_name, withConfig, withPaths) => {
    expect(await cli(...withConfig)).toEqual(await cli(...withPaths));
  });

  it('diff <old> --config takes the new side from the config sources', async () => {
    const { code, stdout } = await cli('diff', 'examples/manifests', '--config', EXAMPLE, '--json');
    expect(code).toBeLessThan(2);
    const diff = JSON.parse(stdout) as { summary: { unchanged: number; changed: number } };
    // manifests alone against manifests + overrides: the override layer changes something
    expect(diff.summary.changed).toBeGreaterThan(0);
    expect(await cli('diff', 'examples/manifests', 'examples/manifests', '--config', EXAMPLE, '--json')).toMatchObject({ code: 0 });
  });

  it('adds positional paths as later layers', async () => {
    const config = join(FIXTURES, 'minimal.json');
    const both = await cli('inspect', '--config', config, 'test/fixtures/core/base', '--json');
    const direct = await cli('inspect', join(FIXTURES, 'manifests'), 'test/fixtures/core/base', '--json');
    expect(both).toEqual(direct);
    expect(both.code).toBe(0);
  });

  it('diff --config with both sides reads each side alone', async () => {
    const a = await cli('diff', 'test/fixtures/core/base', 'test/fixtures/core/overlay', '--json');
    const b = await cli('diff', 'test/fixtures/core/base', 'test/fixtures/core/overlay', '--json', '--config', join(FIXTURES, 'minimal.json'));
    expect(b).toEqual(a);
  });

  it.each([
    ['validate', ['validate']],
    ['inspect', ['inspect']],
    ['convert', ['convert', '--to', 'toolcap']],
    ['diff', ['diff', 'examples/manifests']],
  ])('%s with a broken config prints located diagnostics and exits 1', async (_name, args) => {
    const path = project('toolcap.config.yaml', 'sources: [m]\nserver:\n  port: 99999\n');
    const { code, stdout, stderr } = await cli(...args, '--config', path);
    expect(code).toBe(1);
    expect(stdout + stderr).toMatch(/toolcap\.config\.yaml:3:9: error INVALID_VALUE/);
    expect(stdout + stderr).toContain('  3 |   port: 99999');
  });

  it.each([
    ['validate', ['validate']],
    ['inspect', ['inspect']],
    ['convert', ['convert', '--to', 'toolcap']],
    ['diff', ['diff', 'examples/manifests']],
  ])('%s with a missing config file exits 2', async (_name, args) => {
    expect((await cli(...args, '--config', 'no/such.yaml')).code).toBe(2);
  });

  it.each([
    ['validate', ['validate']],
    ['inspect', ['inspect']],
    ['convert', ['convert', '--to', 'toolcap']],
    ['diff', ['diff', 'examples/manifests']],
  ])('%s without paths or --config is a usage error', async (_name, args) => {
    const { code, stderr } = await cli(...args);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--config/);
  });

  it('reads each source in its own dialect', async () => {
    const { code, stdout } = await cli('validate', '--config', join(FIXTURES, 'full.yaml'), '--json');
    expect(JSON.parse(stdout)).toMatchObject({ ok: code === 0 });
    expect(stdout).not.toContain('INVALID_VALUE');
  });

  it('applies a dialect every source names', async () => {
    const path = project('c.yaml', 'sources:\n  - { path: m, dialect: toolcap }\n');
    const { code } = await cli('validate', '--config', path);
    expect(code).toBe(0);
  });

  it('reads MCP servers with the seed defaults, server overrides and filters', () => {
    const path = project('c.yaml', [
      'sources: [m]',
      'mcp:',
      '  denyTools: ["*delete*"]',
      '  servers:',
      '    everything: { command: npx, args: [mcp-server-everything], env: { DEBUG: "1" } }',
      '    remote:',
      '      url: https://mcp.example.com/mcp',
      '      headers: { Authorization: "Bearer x" }',
      '      persona: atlas',
      '      allowTools: [search]',
      '      healthCheckIntervalSec: 60',
      '      defaults: { sideEffects: read_external_service, timeoutSec: 5, consent: false }',
      '',
    ].join('\n'));
    const { config, diagnostics } = loadConfig(path);
    expect(diagnostics).toEqual([]);
    expect(config?.mcp).toMatchObject({ enabled: true, allowTools: [], denyTools: ['*delete*'] });
    const [everything, remote] = config?.mcp.servers ?? [];
    expect(everything).toMatchObject({ name: 'everything', transport: 'stdio', command: 'npx', args: ['mcp-server-everything'], env: { DEBUG: '1' }, healthCheckIntervalSec: 300 });
    expect(everything?.defaults).toEqual({ sideEffects: 'network', timeoutSec: 30, allowParallel: false, consent: true, idempotencyKey: false });
    expect(remote).toMatchObject({ name: 'remote', transport: 'http', url: 'https://mcp.example.com/mcp', persona: 'atlas', allowTools: ['search'], healthCheckIntervalSec: 60 });
    expect(remote?.defaults).toEqual({ sideEffects: 'read_external_service', timeoutSec: 5, allowParallel: false, consent: false, idempotencyKey: false });
    expect(loadConfig(project('d.yaml', 'sources: [m]\nmcp: { enabled: false, servers: { s: { command: x } } }\n')).config?.mcp.enabled).toBe(false);
  });

  it('ranking weights from the config reorder toolcap search', async () => {
    const dir = resolve(project('c.yaml', 'sources: [m]\n'), '..');
    const tools = [
      '  - name: notes.read_note\n    version: 1.0.0\n    description: Read a note\n    effects: { mode: read, sideEffects: none, reversible: full, risk: low }\n    approval: { required: false }\n',
      '  - name: notes.write_note\n    version: 1.0.0\n    description: Write a note, overwriting a note\n    effects: { mode: write, sideEffects: filesystem, reversible: full, risk: low, rollbackHint: restore }\n    approval: { required: false }\n',
    ];
    writeFileSync(join(dir, 'm', 'tools.yaml'), `toolcap: 1\ntools:\n${tools.join('')}`);
    const run = async (config: string) => {
      writeFileSync(join(dir, 'c.yaml'), config);
      const { code, stdout } = await cli('search', '--config', join(dir, 'c.yaml'), '--query', 'write note', '--json', '--explain');
      expect(code).toBe(0);
      return JSON.parse(stdout) as { weights: Record<string, number>; candidates: Array<{ name: string; penalties: Array<{ code: string; points: number }> }> };
    };
    const plain = await run('sources: [m]\n');
    expect(plain.weights['intent']).toBe(40);
    const tuned = await run('sources: [m]\nranking:\n  weights: { intent: 500 }\n');
    expect(tuned.weights['intent']).toBe(500);
    const readNote = tuned.candidates.find((c) => c.name === 'notes.read_note');
    expect(readNote?.penalties).toContainEqual(expect.objectContaining({ code: 'intent', points: 450 })); // 500 x the intent's confidence (a verb in verb position: 0.9)
    expect(tuned.candidates[0]?.name).toBe('notes.write_note');
  });

  describe('persona folders', () => {
    const withPersona = (tools: string) => {
      const path = project('c.yaml', 'sources: [m]\npersonas: { atlas: p/atlas }\n');
      const dir = resolve(path, '..');
      mkdirSync(join(dir, 'p', 'atlas'), { recursive: true });
      writeFileSync(join(dir, 'p', 'atlas', 'tools.yaml'), `toolcap: 1\ntools:\n${tools}`);
      return path;
    };
    const tool = (name: string, extra = '') =>
      `  - name: ${name}\n    version: 1.0.0\n    description: T\n    effects: { mode: read, sideEffects: none, reversible: full }\n${extra}`;

    it('load after the sources, every tool scoped to the persona, shadowing the shared tool', async () => {
      const path = withPersona(tool('a.tool') + tool('atlas.plan'));
      const { code, stdout } = await cli('inspect', '--config', path, '--json');
      expect(code).toBe(0);
      const doc = JSON.parse(stdout) as { tools: Array<{ name: string; scope?: { personas?: string[] } }> };
      expect(doc.tools.map((t) => [t.name, t.scope?.personas ?? []])).toEqual([
        ['a.tool', []],
        ['a.tool', ['atlas']],
        ['atlas.plan', ['atlas']],
      ]);
      const atlas = JSON.parse((await cli('inspect', '--config', path, '--json', '--persona', 'atlas')).stdout) as typeof doc;
      expect(atlas.tools.map((t) => [t.name, t.scope?.personas ?? []])).toEqual([
        ['a.tool', ['atlas']],
        ['atlas.plan', ['atlas']],
      ]);
      const other = JSON.parse((await cli('inspect', '--config', path, '--json', '--persona', 'medical')).stdout) as typeof doc;
      expect(other.tools.map((t) => t.name)).toEqual(['a.tool']);
    });

    it('keep a tool that already names the persona as declared', async () => {
      const path = withPersona(tool('atlas.plan', '    scope: { personas: [atlas, medical] }\n'));
      const doc = JSON.parse((await cli('inspect', '--config', path, '--json')).stdout) as { tools: Array<{ name: string; scope?: { personas?: string[] } }> };
      expect(doc.tools.find((t) => t.name === 'atlas.plan')?.scope?.personas).toEqual(['atlas', 'medical']);
    });

    it('win over a tool scoped to other personas, with a located warning', async () => {
      const path = withPersona(tool('atlas.plan', '    scope: { personas: [medical] }\n'));
      const { code, stdout, stderr } = await cli('inspect', '--config', path, '--json');
      expect(code).toBe(0);
      expect(stderr).toMatch(/p\/atlas\/tools\.yaml:3:\d+: warning INVALID_VALUE: .*folder wins/);
      const doc = JSON.parse(stdout) as { tools: Array<{ name: string; scope?: { personas?: string[] } }> };
      expect(doc.tools.find((t) => t.name === 'atlas.plan')?.scope?.personas).toEqual(['atlas']);
    });
  });

  it('applies the config limits', async () => {
    const path = project('c.yaml', 'sources: [m]\nlimits: { maxBytes: 10 }\n');
    const { code, stdout } = await cli('validate', '--config', path);
    expect(code).toBe(1);
    expect(stdout).toContain('FILE_TOO_LARGE');
  });

  describe(`./${DEFAULT_CONFIG_FILE} in the current folder`, () => {
    const cwd = process.cwd();
    let dir = '';
    beforeEach(() => {
      dir = resolve(project(DEFAULT_CONFIG_FILE, 'sources: [m]\n'), '..');
      process.chdir(dir);
    });
    afterEach(() => process.chdir(cwd));

    it('is used when neither paths nor --config are given', async () => {
      const { code, stdout, stderr } = await cli('validate', '--json');
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ ok: true, tools: 1 });
      expect(stderr).toContain(DEFAULT_CONFIG_FILE);
    });

    it('is not used when paths are given', async () => {
      writeFileSync(join(dir, 'other.yaml'), 'toolcap: 1\ntools: []\n');
      const { stdout } = await cli('validate', 'other.yaml', '--json');
      expect(JSON.parse(stdout)).toMatchObject({ tools: 0 });
    });
  });
});

describe('configJsonSchema', () => {
  const validate = createAjv().compile(configJsonSchema());
  /** Cases only the loader can judge: they depend on the file system or on order. */
  const FILE_SYSTEM = new Set(['a source that does not exist', 'a source object with a missing path', 'a persona folder that does not exist', 'a persona path that is a file', 'a persona named twice']);

  it.each(['full.yaml', 'minimal.json', 'personas-list.yaml'])('accepts %s', (name) => {
    expect(validate(parse(readFileSync(join(FIXTURES, name), 'utf8')))).toBe(true);
  });

  it('accepts the example config', () => {
    expect(validate(parse(readFileSync('examples/toolcap.config.yaml', 'utf8')))).toBe(true);
  });

  it.each(FIELD_CASES.filter(([name]) => !FILE_SYSTEM.has(name)))('agrees with the loader: %s', (_name, text, expected) => {
    // the schema rejects unknown fields, which the loader only warns about
    expect(validate(parse(text))).toBe(expected.length === 0);
  });
});
