import { describe, expect, it } from 'vitest';
import { pylotDialect } from '../../src/dialects/pylot.js';
import { impliedEffects } from '../../src/dialects/pylot/permissions.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import { splitPointer, type Diagnostic } from '../../src/model/diagnostics.js';
import type { Tool } from '../../src/model/schema.js';
import { importFile, runDialectContract } from './contract.js';

const FIXTURES = 'test/fixtures/pylot';
const EXAMPLES = 'examples/manifests/pylot/config';

runDialectContract(pylotDialect, {
  fixtures: [
    `${FIXTURES}/starter/tool_manifest.json`,
    `${FIXTURES}/devtools.yaml`,
    `${EXAMPLES}/tool_manifest.yaml`,
    `examples/overrides/tool_manifest.json`,
  ],
});

// Fixtures that load with warnings by design: a newer schema version, unknown fields.
runDialectContract(pylotDialect, {
  fixtures: [`${FIXTURES}/future/tool_manifest.yaml`, `${FIXTURES}/extras.json`],
  allowedCodes: ['UNKNOWN_SCHEMA_VERSION', 'UNKNOWN_FIELD'],
});

/** Parse and import inline text as if it were a file at `path`. */
function importText(text: string, path = 'config/tool_manifest.json'): { imported: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(path, text);
  if (!parsed.file) throw new Error(`does not parse: ${JSON.stringify(parsed.diagnostics)}`);
  const context = createImportContext(parsed.file);
  return { imported: pylotDialect.import(context), diagnostics: context.diagnostics };
}

/** Import one tool entry written inline, inside an otherwise valid manifest. */
function importEntry(entry: Record<string, unknown>): { tool: Tool | undefined; diagnostics: Diagnostic[] } {
  const doc = { schema_version: '1.0', metadata: { name: 't' }, tools: [{ description: 'd', module: 'src.t', ...entry }] };
  const { imported, diagnostics } = importText(JSON.stringify(doc, null, 2));
  return { tool: imported.tools[0]?.value, diagnostics };
}

describe('pylot import: mapping', () => {
  it.each<[string, Record<string, unknown>, Partial<Tool>]>([
    [
      'names, module and class',
      { name: 'git_status', module: 'src.bridge.tools.git_status', class_name: 'GitStatusTool', notes: 'n' },
      { name: 'git_status', description: 'd', implementation: { module: 'src.bridge.tools.git_status', export: 'GitStatusTool' }, notes: 'n' },
    ],
    ['package-relative module', { name: 'x', module: '..tools.x' }, { implementation: { module: '..tools.x' } }],
    ['audit status and enabled', { name: 'x', audit_status: 'experimental', enabled: false }, { auditStatus: 'experimental', enabled: false }],
    [
      'inputs: required true into the required list, explicit false kept aside',
      { name: 'x', inputs: { path: { type: 'string', required: false, default: '.' }, query: { type: 'string', required: true } } },
      {
        inputSchema: { type: 'object', properties: { path: { type: 'string', default: '.' }, query: { type: 'string' } }, required: ['query'] },
        extensions: { pylot: { requiredFalse: { inputs: ['path'] } } },
      },
    ],
    [
      'outputs likewise',
      { name: 'x', outputs: { clean: { type: 'boolean', required: true }, summary: { type: 'string' } } },
      { outputSchema: { type: 'object', properties: { clean: { type: 'boolean' }, summary: { type: 'string' } }, required: ['clean'] } },
    ],
    [
      'a nested required list stays JSON Schema',
      { name: 'x', inputs: { options: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } } },
      { inputSchema: { type: 'object', properties: { options: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } } } },
    ],
    ['runtime serial', { name: 'x', runtime: { timeout_seconds: 10, concurrency: 'serial' } }, { execution: { timeoutSec: 10, allowParallel: false } }],
    ['runtime parallel', { name: 'x', runtime: { concurrency: 'parallel' } }, { execution: { allowParallel: true } }],
    [
      'other runtime keys are resources',
      { name: 'x', runtime: { timeout_seconds: 60, memory_mb: 512, gpu: false } },
      { execution: { timeoutSec: 60, resources: { memory_mb: 512, gpu: false } } },
    ],
    ['an empty runtime is kept', { name: 'x', runtime: {} }, { execution: { resources: {} } }],
    [
      'unknown fields go to extensions',
      { name: 'x', owner: 'team', x_rate: { per_minute: 6 } },
      { extensions: { pylot: { fields: { owner: 'team', x_rate: { per_minute: 6 } } } } },
    ],
  ])('%s', (_title, entry, expected) => {
    const { tool } = importEntry(entry);
    expect(tool).toMatchObject(expected);
  });

  it('does not fill defaults the format is silent on', () => {
    const { tool } = importEntry({ name: 'bare' });
    expect(tool).toEqual({ name: 'bare', description: 'd', implementation: { module: 'src.t', language: 'python' } });
  });

  it('maps document fields to the bundle; extra metadata keys to bundle.metadata', () => {
    const { imported } = importText(
      JSON.stringify({
        schema_version: '1.0',
        metadata: { name: 'core', description: 'D', maintainers: ['me'], tags: ['a'], version: '2.0.0', license: 'MIT' },
        tools: [],
      }),
    );
    expect(imported.bundle).toEqual({
      schemaVersion: '1.0',
      name: 'core',
      description: 'D',
      version: '2.0.0',
      maintainers: ['me'],
      tags: ['a'],
      metadata: { license: 'MIT' },
      extensions: { pylot: { format: 'json' } },
    });
  });

  it('remembers nothing about the format of a YAML file', () => {
    const { imported } = importText('schema_version: "1.0"\nmetadata: { name: core }\ntools: []\n', 'config/tool_manifest.yaml');
    expect(imported.bundle).toEqual({ schemaVersion: '1.0', name: 'core' });
  });
});

describe('pylot import: effects derived from permissions', () => {
  it.each<[string[], Tool['effects'] | undefined, string[] | undefined]>([
    [['read_repo'], { sideEffects: 'filesystem', mode: 'read' }, ['effects.sideEffects', 'effects.mode']],
    [['read_files', 'read_repo'], { sideEffects: 'filesystem', mode: 'read' }, ['effects.sideEffects', 'effects.mode']],
    [['read_repo', 'write_files'], { sideEffects: 'filesystem', mode: 'write' }, ['effects.sideEffects', 'effects.mode']],
    [['write_repo'], { sideEffects: 'filesystem', mode: 'write' }, ['effects.sideEffects', 'effects.mode']],
    [['network'], { sideEffects: 'network' }, ['effects.sideEffects']],
    [['read_repo', 'network'], { sideEffects: 'filesystem' }, ['effects.sideEffects']],
    [['shell'], { sideEffects: 'system', mode: 'write' }, ['effects.sideEffects', 'effects.mode']],
    [['exec', 'read_files'], { sideEffects: 'system', mode: 'write' }, ['effects.sideEffects', 'effects.mode']],
    [['process', 'network'], { sideEffects: 'system', mode: 'write' }, ['effects.sideEffects', 'effects.mode']],
    [['read_repo', 'gpu_access'], { sideEffects: 'filesystem' }, ['effects.sideEffects']],
    [['gpu_access'], undefined, undefined],
    [[], { sideEffects: 'none', mode: 'read' }, ['effects.sideEffects', 'effects.mode']],
  ])('%j', (permissions, effects, derived) => {
    const { tool } = importEntry({ name: 'x', permissions });
    expect(tool?.permissions).toEqual(permissions);
    expect(tool?.effects).toEqual(effects);
    expect(tool?.derived).toEqual(derived);
  });

  it('derives nothing without permissions (silence is not an empty list)', () => {
    expect(impliedEffects([])).toEqual({ sideEffects: 'none', mode: 'read' });
    const { tool } = importEntry({ name: 'x' });
    expect(tool?.effects).toBeUndefined();
    expect(tool?.derived).toBeUndefined();
  });
});

describe('pylot import: diagnostics', () => {
  it('reports wrong types at their source positions and keeps the rest', () => {
    const { imported, diagnostics } = importFile(pylotDialect, `${FIXTURES}/broken/wrong-types.json`);
    expect(diagnostics).toMatchObject([
      { code: 'TYPE_MISMATCH', pointer: '/schema_version', line: 2 },
      { code: 'TYPE_MISMATCH', pointer: '/metadata/tags', line: 3 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/0/permissions', line: 9 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/0/inputs/path/required', line: 11 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/0/inputs/depth', line: 12 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/0/runtime/timeout_seconds', line: 14 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/runtime/concurrency', line: 14 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/audit_status', line: 16 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/0/enabled', line: 15 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/1', line: 18 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/2/name', line: 20 },
    ]);
    expect(imported.tools.map((t) => t.value)).toEqual([
      {
        name: 'fs_list',
        description: 'List the files in a folder',
        implementation: { module: 'src.bridge.tools.fs_list', language: 'python' },
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ]);
    expect(imported.bundle).toEqual({ name: 'broken', extensions: { pylot: { format: 'json' } } });
  });

  it('reports missing required fields; skips entries without a name', () => {
    const { imported, diagnostics } = importFile(pylotDialect, `${FIXTURES}/broken/missing-fields.yaml`);
    expect(diagnostics).toMatchObject([
      { code: 'MISSING_FIELD', severity: 'error', pointer: '/tools/0', line: 5 },
      { code: 'MISSING_FIELD', severity: 'error', pointer: '/tools/1', line: 8 },
      { code: 'MISSING_FIELD', severity: 'error', pointer: '/tools/2/name', line: 10 },
      { code: 'MISSING_FIELD', severity: 'error', pointer: '/tools/3', line: 13 },
    ]);
    expect(imported.tools.map((t) => [t.value.name, t.pointer])).toEqual([
      ['fs_stat', '/tools/0'],
      ['git_blame', '/tools/3'],
    ]);
  });

  it('reports Pylot rules: dotted names, module paths, class names, timeouts, concurrency words', () => {
    const { imported, diagnostics } = importFile(pylotDialect, `${FIXTURES}/broken/bad-values.yaml`);
    expect(diagnostics).toMatchObject([
      { code: 'INVALID_TOOL_NAME', severity: 'warning', pointer: '/tools/0/name', line: 5 },
      { code: 'INVALID_VALUE', pointer: '/tools/0/module', line: 7 },
      { code: 'INVALID_VALUE', pointer: '/tools/0/class_name', line: 8 },
      { code: 'INVALID_VALUE', pointer: '/tools/0/runtime/timeout_seconds', line: 11 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/runtime/concurrency', line: 12 },
    ]);
    // Values that fail their check are left out; the tool itself stays.
    expect(imported.tools[0]?.value).toEqual({
      name: 'git.push',
      description: 'Push the current branch',
      permissions: ['network', 'write_repo'],
      effects: { sideEffects: 'filesystem', mode: 'write' },
      derived: ['effects.sideEffects', 'effects.mode'],
    });
  });

  it.each([
    ['2.3', 'warning'],
    ['1.1', 'info'],
    ['1.2.0', 'info'],
  ])('schema_version %s is read best effort (%s)', (version, severity) => {
    const { imported, diagnostics } = importText(`{\n  "schema_version": "${version}",\n  "metadata": {},\n  "tools": []\n}`);
    expect(diagnostics).toMatchObject([{ code: 'UNKNOWN_SCHEMA_VERSION', severity, pointer: '/schema_version', line: 2 }]);
    expect(imported.bundle?.schemaVersion).toBe(version);
  });

  it('warns about a missing schema_version and metadata, and still reads the tools', () => {
    const { imported, diagnostics } = importText('tools:\n  - name: x\n    description: d\n    module: src.x\n', 'tool_manifest.yaml');
    expect(diagnostics).toMatchObject([
      { code: 'MISSING_FIELD', severity: 'warning', pointer: '' },
      { code: 'MISSING_FIELD', severity: 'warning', pointer: '' },
    ]);
    expect(imported.tools).toHaveLength(1);
  });

  it.each([
    ['a list', '[]', 'TYPE_MISMATCH', ''],
    ['tools not a list', '{ "schema_version": "1.0", "metadata": {}, "tools": {} }', 'TYPE_MISMATCH', '/tools'],
    ['no tools', '{ "schema_version": "1.0", "metadata": {} }', 'MISSING_FIELD', ''],
    ['metadata not an object', '{ "schema_version": "1.0", "metadata": "core", "tools": [] }', 'TYPE_MISMATCH', '/metadata'],
    ['runtime not an object', '{ "tools": [{ "name": "x", "description": "d", "module": "m", "runtime": 5 }], "schema_version": "1.0", "metadata": {} }', 'TYPE_MISMATCH', '/tools/0/runtime'],
  ])('never throws on %s', (_title, text, code, pointer) => {
    const { diagnostics } = importText(text);
    expect(diagnostics).toContainEqual(expect.objectContaining({ code, pointer }));
  });

  it('reports unknown fields as warnings at their keys', () => {
    const { diagnostics } = importFile(pylotDialect, `${FIXTURES}/extras.json`);
    expect(diagnostics.filter((d) => d.code === 'UNKNOWN_FIELD')).toMatchObject([
      { severity: 'warning', pointer: '/tools/0/owner', line: 23 },
      { severity: 'warning', pointer: '/tools/0/x_rate_limit', line: 24 },
      { severity: 'warning', pointer: '/registry_url', line: 11 },
    ]);
  });
});

describe('pylot examples', () => {
  it('the local layer overrides base tools by name, with complete Pylot entries', () => {
    const base = importFile(pylotDialect, `${EXAMPLES}/tool_manifest.yaml`).imported.tools.map((t) => t.value.name);
    const local = importFile(pylotDialect, `examples/overrides/tool_manifest.json`).imported.tools.map((t) => t.value);
    expect(local.map((t) => t.name).every((name) => base.includes(name))).toBe(true);
    expect(local).toMatchObject([
      { name: 'shell_run', enabled: false },
      { name: 'fs_write_file', execution: { timeoutSec: 5, allowParallel: false } },
    ]);
  });
});

describe('pylot tool field map', () => {
  /** The canonical value at a dot path. */
  const valueAt = (tool: Tool, path: string): unknown =>
    path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), tool);
  const sourceAt = (doc: unknown, pointer: string): unknown =>
    splitPointer(pointer).reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), doc);

  it.each([`${FIXTURES}/devtools.yaml`, `${EXAMPLES}/tool_manifest.yaml`])('points at a source field for every mapped value in %s', (fixture) => {
    const { value, imported } = importFile(pylotDialect, fixture);
    let checked = 0;
    for (const { value: tool, pointer } of imported.tools) {
      for (const [path, suffix] of Object.entries(pylotDialect.fieldMaps.tool)) {
        if (valueAt(tool, path) === undefined) continue;
        expect(sourceAt(value, pointer + suffix), `${tool.name}: ${path}`).toBeDefined();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});

describe('pylot export', () => {
  const tool: Tool = {
    name: 'fs_read_file',
    description: 'Read a file',
    enabled: true,
    permissions: ['read_files'],
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path', 'encoding'], additionalProperties: false },
    effects: { sideEffects: 'filesystem', mode: 'read', risk: 'low' },
    approval: { required: false },
    execution: { timeoutSec: 30, allowParallel: true, retryClass: 'safe' },
    implementation: { module: 'src.bridge.tools.fs', export: 'ReadFileTool' },
    derived: ['effects.mode', 'execution.timeoutSec'],
  };

  it('writes what Pylot can say, without derived values', () => {
    const [file, ...others] = pylotDialect.export({ tools: [tool] });
    expect(others).toEqual([]);
    expect(file).toEqual({
      path: 'config/tool_manifest.yaml',
      format: 'yaml',
      value: {
        schema_version: '1.0',
        metadata: {},
        tools: [
          {
            name: 'fs_read_file',
            description: 'Read a file',
            module: 'src.bridge.tools.fs',
            class_name: 'ReadFileTool',
            permissions: ['read_files'],
            inputs: { path: { type: 'string', required: true }, encoding: { required: true } },
            runtime: { concurrency: 'parallel' },
            enabled: true,
          },
        ],
      },
    });
  });

  it.each([
    [`${FIXTURES}/starter/tool_manifest.json`, 'config/tool_manifest.json', 'json'],
    [`${FIXTURES}/devtools.yaml`, 'config/tool_manifest.yaml', 'yaml'],
  ])('keeps the file format of %s', (fixture, path, format) => {
    const { imported } = importFile(pylotDialect, fixture);
    const files = pylotDialect.export({ ...(imported.bundle ? { bundle: imported.bundle } : {}), tools: imported.tools.map((t) => t.value) });
    expect(files.map((f) => [f.path, f.format])).toEqual([[path, format]]);
  });
});

describe('pylot detection', () => {
  it.each([
    `${FIXTURES}/starter/tool_manifest.json`,
    `${FIXTURES}/devtools.yaml`,
    `${FIXTURES}/future/tool_manifest.yaml`,
    `${FIXTURES}/extras.json`,
    `${EXAMPLES}/tool_manifest.yaml`,
    `examples/overrides/tool_manifest.json`,
  ])('is sure of %s', (fixture) => {
    const { value } = importFile(pylotDialect, fixture);
    expect(pylotDialect.detect(value, { path: fixture })).toBeGreaterThan(0.5);
  });

  it.each<[string, number]>([
    ['schema_version and tools, elsewhere', pylotDialect.detect({ schema_version: '1.0', tools: [] }, { path: 'x.json' })],
    ['module entries without a version', pylotDialect.detect({ tools: [{ name: 'x', module: 'm' }] }, { path: 'x.yaml' })],
    ['only the file name and a tools list', pylotDialect.detect({ tools: [] }, { path: 'config/tool_manifest.yml' })],
  ])('accepts %s', (_title, score) => {
    expect(score).toBeGreaterThan(0.5);
  });

  const others: Array<[string, unknown, string]> = [
    ['a canonical toolcap doc', { toolcap: 1, tools: [{ name: 'x', implementation: { module: 'm' } }] }, 'toolcap.yaml'],
    ['a canonical doc named like Pylot', { toolcap: 1, schema_version: '1.0', tools: [] }, 'config/tool_manifest.yaml'],
    [
      'a JSON Schema',
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { tools: { type: 'array' } } },
      'schema.json',
    ],
    [
      'an ATLAS functions.json',
      [{ name: 'google_search', version: '1.0.0', side_effects: 'none', default_timeout: 30, allow_parallel: true, parameters: { type: 'object', properties: {} } }],
      'modules/Tools/tool_maps/functions.json',
    ],
    [
      'a capability manifest',
      { name: 'github.create_pull_request', summary: 'Open a PR', capabilities: { mode: 'write', sideEffects: { external: true }, cost: { lane: 'low' } } },
      'manifests/github.create_pull_request.yaml',
    ],
    [
      'a Xena tools.json',
      { tools: [{ id: 'tool.github.pr', name: 'github_pr', version: '1.0.0', enabled: true, surface: { domains: ['coding'] }, capabilities: ['code.pull_request.create'], deterministic: false, riskLevel: 'medium' }] },
      'config/registry/tools.json',
    ],
    [
      'a Shinkai tool metadata',
      { name: 'Weather', author: '@@me', keywords: ['weather'], tool_type: 'typescript', parameters: { type: 'object', properties: {} }, result: { type: 'object', properties: {} }, tools: ['local:::rust_toolkit:::fetch'] },
      'metadata.json',
    ],
    ['null', null, 'tool_manifest.json'],
    ['a string', 'tools', 'tool_manifest.yaml'],
  ];
  it.each(others)('returns 0 for %s', (_title, value, path) => {
    expect(pylotDialect.detect(value, { path })).toBe(0);
  });
});
