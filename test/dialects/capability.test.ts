import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capabilityDialect } from '../../src/dialects/capability.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import { complete } from '../../src/model/derive.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { Tool } from '../../src/model/schema.js';
import { importFile, runDialectContract } from './contract.js';

const FIXTURES = 'test/fixtures/capability';
const EXAMPLES = 'examples/manifests/capability';

/** Manifest files (not schema files) directly inside a folder. */
function manifestsIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .map((f) => join(dir, f));
}

function schemaFilesIn(dir: string): string[] {
  return readdirSync(join(dir, 'schemas')).map((f) => join(dir, 'schemas', f));
}

const goodFixtures = manifestsIn(FIXTURES);
const examples = manifestsIn(EXAMPLES);

/** Import YAML or JSON text as if it were a file at `path`. */
function importText(text: string, path = `${FIXTURES}/inline.yaml`): { doc: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(path, text);
  if (!parsed.file) throw new Error(`does not parse: ${JSON.stringify(parsed.diagnostics)}`);
  const context = createImportContext(parsed.file);
  return { doc: capabilityDialect.import(context), diagnostics: context.diagnostics };
}

function onlyTool(text: string): Tool {
  const { doc } = importText(text);
  expect(doc.tools).toHaveLength(1);
  return doc.tools[0]!.value;
}

const byLine = (ds: Diagnostic[]) => [...ds].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.code.localeCompare(b.code));

// An inline `inputSchema` is accepted besides the format's `inputSchemaRef`.
runDialectContract(capabilityDialect, { fixtures: [...goodFixtures, ...examples], allowedCodes: ['UNKNOWN_FIELD'], secondSources: ['inputSchema'] });

describe('capability import: mapping', () => {
  it.each<[string, string, Partial<Tool>]>([
    ['summary -> description', 'name: a.b\nsummary: Does a thing\n', { name: 'a.b', description: 'Does a thing' }],
    ['mode alone', 'name: a.b\ncapabilities:\n  mode: mixed\n', { effects: { mode: 'mixed' } }],
    [
      'external false -> sideEffects none (derived)',
      'name: a.b\ncapabilities:\n  mode: read\n  sideEffects:\n    external: false\n',
      { effects: { mode: 'read', external: false, sideEffects: 'none' }, derived: ['effects.sideEffects'] },
    ],
    [
      'external true + read -> read_external_service (derived)',
      'name: a.b\ncapabilities:\n  mode: read\n  sideEffects:\n    external: true\n',
      { effects: { external: true, sideEffects: 'read_external_service' }, derived: ['effects.sideEffects'] },
    ],
    [
      'external true + write -> write (derived)',
      'name: a.b\ncapabilities:\n  mode: write\n  sideEffects: { external: true, reversible: partial, rollbackHint: undo_it }\n',
      { effects: { mode: 'write', sideEffects: 'write', reversible: 'partial', rollbackHint: 'undo_it' }, derived: ['effects.sideEffects'] },
    ],
    [
      'external true + mixed -> write (derived)',
      'name: a.b\ncapabilities:\n  mode: mixed\n  sideEffects: { external: true }\n',
      { effects: { sideEffects: 'write' }, derived: ['effects.sideEffects'] },
    ],
    ['reversible true -> full', 'name: a.b\ncapabilities:\n  sideEffects: { reversible: true }\n', { effects: { reversible: 'full' }, extensions: { capability: { syntax: { reversibleBoolean: true } } } }],
    ['reversible false -> none', 'name: a.b\ncapabilities:\n  sideEffects: { reversible: false }\n', { effects: { reversible: 'none' } }],
    ['scope string -> one-element scopes', 'name: a.b\ncapabilities:\n  auth: { scope: repo }\n', { auth: { scopes: ['repo'] } }],
    ['scope list of one', 'name: a.b\ncapabilities:\n  auth: { scope: [repo] }\n', { auth: { scopes: ['repo'] }, extensions: { capability: { syntax: { scopeList: true } } } }],
    ['scope list', 'name: a.b\ncapabilities:\n  auth: { scope: [a, b] }\n', { auth: { scopes: ['a', 'b'] } }],
    ['humanApprovalRequired -> approval.required', 'name: a.b\ncapabilities:\n  auth: { humanApprovalRequired: true }\n', { approval: { required: true } }],
    ['cost', 'name: a.b\ncapabilities:\n  cost: { lane: medium, estimatedDollars: 0.25 }\n', { cost: { lane: 'medium', estimatedDollars: 0.25 } }],
    ['latency', 'name: a.b\ncapabilities:\n  latency: { p50Ms: 10, p95Ms: 30 }\n', { latency: { p50Ms: 10, p95Ms: 30 } }],
    ['reliability -> execution', 'name: a.b\ncapabilities:\n  reliability: { idempotent: true, retryClass: safe }\n', { execution: { idempotent: true, retryClass: 'safe' } }],
    ['emitTraceAttrs -> observability.traceAttrs', 'name: a.b\ncapabilities:\n  observability: { emitTraceAttrs: [repo] }\n', { observability: { traceAttrs: ['repo'] } }],
    ['alternatives', 'name: a.b\ncapabilities:\n  alternatives: [c.d, e.f]\n', { alternatives: ['c.d', 'e.f'] }],
    ['inline inputSchema', 'name: a.b\ninputSchema: { type: object }\n', { inputSchema: { type: 'object' } }],
  ])('%s', (_label, text, expected) => {
    expect(onlyTool(text)).toMatchObject(expected);
  });

  it.each([
    ['external without mode', 'name: a.b\ncapabilities:\n  sideEffects: { external: true }\n'],
    ['mode without external', 'name: a.b\ncapabilities:\n  mode: write\n'],
  ])('derives nothing and fills no defaults: %s', (_label, text) => {
    const tool = onlyTool(text);
    expect(tool.derived).toBeUndefined();
    expect(tool.effects?.sideEffects).toBeUndefined();
    expect(tool.approval).toBeUndefined();
    expect(tool.execution).toBeUndefined();
  });

  it('maps the seed manifest and loads its input schema', () => {
    const { imported } = importFile(capabilityDialect, `${FIXTURES}/github.create_pull_request.yaml`);
    const tool = imported.tools[0]?.value;
    expect(tool).toStrictEqual({
      name: 'github.create_pull_request',
      description: 'Open a pull request in GitHub for an already-pushed branch',
      inputSchemaRef: './schemas/github.create_pull_request.json',
      inputSchema: JSON.parse(readFileSync(`${FIXTURES}/schemas/github.create_pull_request.json`, 'utf8')),
      effects: { mode: 'write', sideEffects: 'write', external: true, reversible: 'partial', rollbackHint: 'close_pr_and_revert_branch' },
      auth: { scopes: ['repo'] },
      approval: { required: true },
      cost: { lane: 'low', estimatedDollars: 0 },
      latency: { p50Ms: 900, p95Ms: 2600 },
      execution: { idempotent: false, retryClass: 'guarded' },
      observability: { traceAttrs: ['repo', 'baseBranch', 'headBranch'] },
      alternatives: ['github.diff_branch', 'github.draft_pr_summary'],
      derived: ['effects.sideEffects'],
    });
    expect(imported.bundle).toBeUndefined();
  });

  it('prefers an inline schema written next to a reference, and remembers both', () => {
    const { imported } = importFile(capabilityDialect, `${FIXTURES}/search.docs.yaml`);
    expect(imported.tools[0]?.value).toMatchObject({
      inputSchemaRef: './schemas/search.docs.json',
      inputSchema: { properties: { query: { minLength: 2 } } },
      extensions: { capability: { syntax: { inlineInputSchema: true } } },
    });
  });

  it('marks array documents and gives each entry its pointer', () => {
    const { imported } = importFile(capabilityDialect, `${FIXTURES}/capabilities.yaml`);
    expect(imported.bundle).toStrictEqual({ extensions: { capability: { document: 'array' } } });
    expect(imported.tools.map((t) => [t.value.name, t.pointer])).toStrictEqual([
      ['deploy.rollout_service', '/0'],
      ['deploy.diff_manifest', '/1'],
      ['text.render_changelog', '/2'],
    ]);
  });

  it('keeps unknown fields in source shape and warns at each key', () => {
    const { imported, diagnostics } = importFile(capabilityDialect, `${FIXTURES}/unknown-fields.yaml`);
    expect(imported.tools[0]?.value.extensions).toStrictEqual({
      capability: {
        fields: {
          owner: 'platform-team',
          tags: ['chat', 'notify'],
          capabilities: {
            blastRadius: 'channel',
            sideEffects: { notes: 'Deleting leaves a "message deleted" marker' },
            auth: { tokenEnv: 'SLACK_BOT_TOKEN' },
            cost: {},
            latency: { p99Ms: 4000 },
            reliability: { maxAttempts: 1 },
            observability: { sampleRate: 0.5 },
          },
        },
      },
    });
    expect(byLine(diagnostics).map((d) => [d.code, d.pointer, d.line])).toStrictEqual([
      ['UNKNOWN_FIELD', '/owner', 4],
      ['UNKNOWN_FIELD', '/tags', 5],
      ['UNKNOWN_FIELD', '/capabilities/blastRadius', 8],
      ['UNKNOWN_FIELD', '/capabilities/sideEffects/notes', 13],
      ['UNKNOWN_FIELD', '/capabilities/auth/tokenEnv', 16],
      ['UNKNOWN_FIELD', '/capabilities/latency/p99Ms', 21],
      ['UNKNOWN_FIELD', '/capabilities/reliability/maxAttempts', 25],
      ['UNKNOWN_FIELD', '/capabilities/observability/sampleRate', 28],
    ]);
    expect(diagnostics.every((d) => d.severity === 'warning')).toBe(true);
  });
});

describe('capability import: diagnostics', () => {
  it('reports an unknown mode and leaves it out', () => {
    const { imported, diagnostics } = importFile(capabilityDialect, `${FIXTURES}/broken/bad-mode.yaml`);
    expect(diagnostics).toMatchObject([{ code: 'UNKNOWN_ENUM_VALUE', pointer: '/capabilities/mode', line: 4 }]);
    expect(diagnostics).toHaveLength(1);
    // Without a mode, side effects are not derived here: the loader does it.
    expect(imported.tools[0]?.value).toMatchObject({ name: 'files.purge_bucket', effects: { external: true, reversible: 'none' } });
    expect(imported.tools[0]?.value.derived).toBeUndefined();
  });

  it('reports every wrong type at its own pointer and line', () => {
    const { imported, diagnostics } = importFile(capabilityDialect, `${FIXTURES}/broken/wrong-types.yaml`);
    expect(byLine(diagnostics).map((d) => [d.code, d.pointer, d.line])).toStrictEqual([
      ['TYPE_MISMATCH', '/0/summary', 2],
      ['TYPE_MISMATCH', '/0/capabilities/sideEffects/external', 6],
      ['UNKNOWN_ENUM_VALUE', '/0/capabilities/sideEffects/reversible', 7],
      ['TYPE_MISMATCH', '/0/capabilities/auth/scope', 9],
      ['TYPE_MISMATCH', '/0/capabilities/auth/humanApprovalRequired', 10],
      ['TYPE_MISMATCH', '/0/capabilities/cost', 11],
      ['TYPE_MISMATCH', '/0/capabilities/latency/p50Ms', 13],
      ['TYPE_MISMATCH', '/0/capabilities/reliability/idempotent', 15],
      ['UNKNOWN_ENUM_VALUE', '/0/capabilities/reliability/retryClass', 16],
      ['TYPE_MISMATCH', '/0/capabilities/observability/emitTraceAttrs/1', 18],
      ['TYPE_MISMATCH', '/0/capabilities/alternatives', 19],
    ]);
    // What failed is left out; what passed stays.
    expect(imported.tools[0]?.value).toStrictEqual({
      name: 'github.merge_pull_request',
      effects: { mode: 'write' },
      observability: { traceAttrs: ['repo'] },
    });
  });

  it('reports a missing schema file at the reference', () => {
    const { imported, diagnostics } = importFile(capabilityDialect, `${FIXTURES}/broken/missing-ref.yaml`);
    expect(diagnostics).toMatchObject([{ code: 'REF_NOT_FOUND', pointer: '/inputSchemaRef', line: 3 }]);
    expect(imported.tools[0]?.value).toMatchObject({ inputSchemaRef: './schemas/github.close_issue.json' });
    expect(imported.tools[0]?.value.inputSchema).toBeUndefined();
  });

  it('reports a referenced file that is not a schema', () => {
    const { imported, diagnostics } = importFile(capabilityDialect, `${FIXTURES}/broken/not-a-schema.yaml`);
    expect(diagnostics).toMatchObject([{ code: 'TYPE_MISMATCH', pointer: '/inputSchemaRef', line: 3 }]);
    expect(imported.tools[0]?.value.inputSchema).toBeUndefined();
  });

  it('reports negative cost and latency as invalid values', () => {
    const { imported, diagnostics } = importFile(capabilityDialect, `${FIXTURES}/broken/negative-latency.yaml`);
    expect(byLine(diagnostics)).toMatchObject([
      { code: 'INVALID_VALUE', pointer: '/capabilities/cost/estimatedDollars', line: 7 },
      { code: 'INVALID_VALUE', pointer: '/capabilities/latency/p95Ms', line: 10 },
    ]);
    expect(diagnostics).toHaveLength(2);
    expect(imported.tools[0]?.value).toMatchObject({ cost: { lane: 'low' }, latency: { p50Ms: 120 } });
  });

  it('skips entries without a usable name and keeps the rest', () => {
    const { imported, diagnostics } = importFile(capabilityDialect, `${FIXTURES}/broken/missing-name.yaml`);
    expect(byLine(diagnostics)).toMatchObject([
      { code: 'MISSING_FIELD', pointer: '/0', line: 1 },
      { code: 'MISSING_FIELD', pointer: '/1/name', line: 4 },
      { code: 'TYPE_MISMATCH', pointer: '/2', line: 7 },
    ]);
    expect(imported.tools.map((t) => [t.value.name, t.pointer])).toStrictEqual([['notes.append', '/3']]);
  });

  it.each([
    ['a scalar document', '42\n'],
    ['a name of the wrong type', 'name: [a]\ncapabilities: { mode: read }\n'],
  ])('never throws on %s', (_label, text) => {
    const { doc, diagnostics } = importText(text);
    expect(doc.tools).toEqual([]);
    expect(diagnostics).toMatchObject([{ code: 'TYPE_MISMATCH' }]);
  });
});

describe('capability export', () => {
  it('writes one file per tool named after it, plus the referenced schema', () => {
    const { imported } = importFile(capabilityDialect, `${EXAMPLES}/github.create_pull_request.yaml`);
    const files = capabilityDialect.export({ tools: imported.tools.map((t) => t.value) });
    expect(files.map((f) => [f.path, f.format])).toStrictEqual([
      ['github.create_pull_request.yaml', 'yaml'],
      ['schemas/github.create_pull_request.json', 'json'],
    ]);
    expect(files[0]?.value).not.toHaveProperty('inputSchema');
    expect(files[1]?.value).toMatchObject({ required: ['owner', 'repo', 'title', 'headBranch', 'baseBranch'] });
  });

  it('writes several tools as one list', () => {
    const files = capabilityDialect.export({ tools: [{ name: 'a.one' }, { name: 'a.two' }] });
    expect(files).toStrictEqual([{ path: 'capabilities.yaml', format: 'yaml', value: [{ name: 'a.one' }, { name: 'a.two' }] }]);
  });

  it('leaves out what the loader derived, and what this format cannot say', () => {
    const tool = complete({
      name: 'db.drop_table',
      description: 'Drop a table',
      effects: { sideEffects: 'database', external: true },
      execution: { timeoutSec: 60 },
      auth: { scopes: ['db.admin'], type: 'api_key' },
    });
    const [file] = capabilityDialect.export({ tools: [tool] });
    expect(file?.value).toStrictEqual({
      name: 'db.drop_table',
      summary: 'Drop a table',
      capabilities: { sideEffects: { external: true }, auth: { scope: 'db.admin' } },
    });
  });

  it('does not write schema files whose reference leaves the folder', () => {
    const files = capabilityDialect.export({ tools: [{ name: 'a.b', inputSchemaRef: '../shared/a.json', inputSchema: { type: 'object' } }] });
    expect(files.map((f) => f.path)).toStrictEqual(['a.b.yaml']);
    expect(files[0]?.value).toStrictEqual({ name: 'a.b', inputSchemaRef: '../shared/a.json' });
  });

  it('writes reversibility as a word when the boolean spelling no longer fits', () => {
    const tool: Tool = { name: 'a.b', effects: { reversible: 'partial' }, extensions: { capability: { syntax: { reversibleBoolean: true } } } };
    expect(capabilityDialect.export({ tools: [tool] })[0]?.value).toStrictEqual({ name: 'a.b', capabilities: { sideEffects: { reversible: 'partial' } } });
  });

  it('returns no files for no tools', () => {
    expect(capabilityDialect.export({ skills: [{ name: 's' }] })).toEqual([]);
  });
});

describe('capability detection', () => {
  it.each([...goodFixtures, ...examples, ...manifestsIn(`${FIXTURES}/broken`)])('detects %s', (path) => {
    const parsed = parseSource(path, readFileSync(path, 'utf8'));
    expect(capabilityDialect.detect(parsed.file?.value, { path })).toBeGreaterThan(0.5);
  });

  it.each([...schemaFilesIn(FIXTURES), ...schemaFilesIn(EXAMPLES), ...schemaFilesIn(`${FIXTURES}/broken`)])('ignores the schema file %s', (path) => {
    const parsed = parseSource(path, readFileSync(path, 'utf8'));
    expect(capabilityDialect.detect(parsed.file?.value, { path })).toBe(0);
  });

  it.each<[string, unknown, string]>([
    ['canonical toolcap', { toolcap: 1, tools: [{ name: 'a.b', effects: { mode: 'read' } }] }, 'toolcap.yaml'],
    ['JSON Schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { name: { type: 'string' } } }, 'schemas/a.json'],
    [
      'ATLAS functions.json',
      [{ name: 'google_search', version: '1.0.0', side_effects: 'none', default_timeout: 30, allow_parallel: true, auth: { required: true, type: 'api_key' }, description: 'Search', parameters: { type: 'object', properties: {} } }],
      'modules/Tools/tool_maps/functions.json',
    ],
    [
      'Pylot manifest',
      { schema_version: '1.0', metadata: { name: 'default' }, tools: [{ name: 'git_status', description: 'Inspect repository status', module: 'src.bridge.tools.git_status', permissions: ['read_repo'] }] },
      'config/tool_manifest.json',
    ],
    [
      'Xena tool',
      { id: 'example.tasks', name: 'Example tasks', description: 'Probe', enabled: true, surface: { domains: ['tasks'] }, capabilities: ['tasks.probe', 'tasks.list'], deterministic: true, riskLevel: 'low' },
      'tools.json',
    ],
    ['Xena tools.json list', [{ name: 'Example tasks', capabilities: ['tasks.probe'], riskLevel: 'low' }], 'tools.json'],
    [
      'Shinkai metadata',
      { name: 'Weather', description: 'Weather by city', author: '@@official.shinkai', keywords: ['weather'], tool_type: 'typescript', configurations: { type: 'object', properties: {} }, parameters: { type: 'object', properties: {} }, result: { type: 'object', properties: {} } },
      'metadata.json',
    ],
    ['an empty list', [], 'capabilities.yaml'],
    ['a list of strings', ['a.b', 'c.d'], 'capabilities.yaml'],
    ['null', null, 'x.yaml'],
  ])('returns 0 for %s', (_label, value, path) => {
    expect(capabilityDialect.detect(value, { path })).toBe(0);
  });
});
