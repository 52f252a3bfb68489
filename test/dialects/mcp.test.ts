import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpDialect } from '../../src/dialects/mcp.js';
import { canonicalName } from '../../src/dialects/mcp/names.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import { complete, DERIVABLE_FIELDS } from '../../src/model/derive.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { Tool } from '../../src/model/schema.js';
import { importFile, runDialectContract } from './contract.js';

const FIXTURES = 'test/fixtures/mcp';

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') ? [path] : [];
  });
}

// A title may be written as `annotations.title` alone.
runDialectContract(mcpDialect, { fixtures: jsonFiles(join(FIXTURES, 'clean')), secondSources: ['title'] });
runDialectContract(mcpDialect, { fixtures: jsonFiles(join(FIXTURES, 'extras')), allowedCodes: ['UNKNOWN_FIELD'] });

/** Import a value as if it were a file. */
function importValue(value: unknown, path = 'tools.json'): { imported: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(path, JSON.stringify(value, null, 2));
  if (!parsed.file) throw new Error('test input does not parse');
  const context = createImportContext(parsed.file);
  return { imported: mcpDialect.import(context), diagnostics: context.diagnostics };
}

/** Import one MCP tool; the tool must survive import. */
function importOne(tool: Record<string, unknown>): Tool {
  const { imported, diagnostics } = importValue({ tools: [tool] });
  expect(diagnostics).toEqual([]);
  const value = imported.tools[0]?.value;
  if (value === undefined) throw new Error('tool was not imported');
  return value;
}

const withHints = (annotations: Record<string, unknown>) => ({ name: 'tool_x', inputSchema: { type: 'object' }, annotations });

const READ = { mode: 'read', reversible: 'full' } as const;
const SAFE = { idempotent: true, retryClass: 'safe' } as const;
const EFFECT_PATHS = ['effects.mode', 'effects.sideEffects', 'effects.reversible'];

describe('mcp annotations -> effects', () => {
  it.each([
    {
      title: 'read-only, open world (default)',
      annotations: { readOnlyHint: true },
      effects: { ...READ, sideEffects: 'read_external_service' },
      execution: SAFE,
    },
    {
      title: 'read-only, closed world',
      annotations: { readOnlyHint: true, openWorldHint: false },
      effects: { ...READ, sideEffects: 'none' },
      execution: SAFE,
    },
    {
      title: 'read-only ignores idempotent (meaningless per MCP; the GitHub server writes false on reads)',
      annotations: { readOnlyHint: true, idempotentHint: false, destructiveHint: false },
      effects: { ...READ, sideEffects: 'read_external_service' },
      execution: SAFE,
    },
    {
      title: 'read-only and destructive at once: the stricter reading, a destructive write (the server is not trusted)',
      annotations: { readOnlyHint: true, destructiveHint: true, idempotentHint: false },
      effects: { mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' },
      execution: { idempotent: false },
    },
    {
      title: 'write with every other hint at its default: destructive, open world',
      annotations: { readOnlyHint: false },
      effects: { mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' },
      execution: { idempotent: false },
    },
    {
      title: 'closed-world destructive write',
      annotations: { readOnlyHint: false, openWorldHint: false },
      effects: { mode: 'write', sideEffects: 'filesystem', reversible: 'none', risk: 'high' },
      execution: { idempotent: false },
    },
    {
      title: 'additive write (readOnly absent reads as false)',
      annotations: { destructiveHint: false },
      effects: { mode: 'write', sideEffects: 'write', reversible: 'partial' },
      execution: { idempotent: false },
    },
    {
      title: 'closed-world additive idempotent write',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      effects: { mode: 'write', sideEffects: 'filesystem', reversible: 'partial' },
      execution: SAFE,
    },
    {
      title: 'idempotent destructive write may be retried',
      annotations: { idempotentHint: true },
      effects: { mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' },
      execution: SAFE,
    },
    {
      title: 'openWorld alone',
      annotations: { openWorldHint: true },
      effects: { mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' },
      execution: { idempotent: false },
    },
  ])('$title', ({ annotations, effects, execution }) => {
    const tool = importOne(withHints(annotations));
    expect(tool.effects).toEqual(effects);
    expect(tool.execution).toEqual(execution);
    const expected = [...Object.keys(effects).map((k) => `effects.${k}`), ...Object.keys(execution).map((k) => `execution.${k}`)];
    expect([...(tool.derived ?? [])].sort()).toEqual(expected.sort());
  });

  const matrix = importFile(mcpDialect, join(FIXTURES, 'clean', 'annotation-matrix.json')).imported.tools.map((t) => t.value);
  /** The hint a matrix tool's name says: `ro_t.de_a.id_f.ow_t` (t true, f false, a absent). */
  const said = (tool: Tool, hint: 'ro' | 'de' | 'id' | 'ow') => ({ t: true, f: false })[tool.name.match(new RegExp(`${hint}_(.)`))?.[1] as 't' | 'f'];

  it.each(matrix.map((tool) => [tool.name, tool]))('matrix %s follows the documented table', (_name, tool) => {
    if (!tool.hints) return expect(tool.effects).toBeUndefined();
    // read-only and destructive at once: the stricter reading, a write
    const readOnly = said(tool, 'ro') === true && said(tool, 'de') !== true;
    const closed = said(tool, 'ow') === false;
    const additive = !readOnly && said(tool, 'de') === false;
    const idempotent = readOnly || said(tool, 'id') === true;
    expect(tool.effects?.mode).toBe(readOnly ? 'read' : 'write');
    expect(tool.effects?.sideEffects).toBe(readOnly ? (closed ? 'none' : 'read_external_service') : closed ? 'filesystem' : 'write');
    expect(tool.effects?.reversible).toBe(readOnly ? 'full' : additive ? 'partial' : 'none');
    expect(tool.effects?.risk).toBe(readOnly || additive ? undefined : 'high');
    expect(tool.execution).toEqual(idempotent ? { idempotent: true, retryClass: 'safe' } : { idempotent: false });
  });

  it.each([
    [{ readOnlyHint: true }, { readOnly: true }],
    [{ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }, { readOnly: false, destructive: true, idempotent: false, openWorld: false }],
    [{ destructiveHint: null, idempotentHint: true }, { idempotent: true }],
  ])('keeps the hints verbatim: %j', (annotations, hints) => {
    expect(importOne(withHints(annotations)).hints).toEqual(hints);
  });

  it.each([
    ['no annotations', { name: 'tool_x', inputSchema: { type: 'object' } }],
    ['annotations: null', { name: 'tool_x', inputSchema: { type: 'object' }, annotations: null }],
    ['a title and no hints', withHints({ title: 'X' })],
    ['every hint null', withHints({ readOnlyHint: null, destructiveHint: null, idempotentHint: null, openWorldHint: null })],
  ])('%s: no evidence, so nothing is filled; complete() reads it conservatively', (_title, entry) => {
    const tool = importOne(entry);
    expect(tool.hints).toBeUndefined();
    expect(tool.effects).toBeUndefined();
    expect(tool.execution).toBeUndefined();
    expect(tool.approval).toBeUndefined();
    const completed = complete(tool);
    expect(completed.effects).toMatchObject({ mode: 'write', sideEffects: 'write', reversible: 'none', risk: 'high' });
    expect(completed.execution).toMatchObject({ idempotent: false, retryClass: 'never' });
    expect(completed.approval).toEqual({ required: true });
    expect([...(completed.derived ?? [])].sort()).toEqual([...DERIVABLE_FIELDS].sort());
  });

  it('what the hints imply is only ever derived, so complete() keeps it and fills the rest', () => {
    const completed = complete(importOne(withHints({ readOnlyHint: true })));
    expect(completed.effects).toMatchObject({ mode: 'read', risk: 'low' });
    expect(completed.approval).toEqual({ required: false });
    expect(completed.derived).toEqual(expect.arrayContaining([...EFFECT_PATHS, 'effects.risk', 'approval.required']));
  });
});

describe('mcp tool fields', () => {
  const features = importFile(mcpDialect, join(FIXTURES, 'clean', 'features.json'));
  const byId = (name: string) => features.imported.tools.find((t) => (t.value.id ?? t.value.name) === name)?.value;

  it.each([
    { title: 'title and outputSchema', name: 'get_weather', expected: { title: 'Weather Information Provider', outputSchema: { type: 'object' } } },
    { title: 'annotations.title alone becomes the title', name: 'delete_note', expected: { title: 'Delete note', extensions: { mcp: { titleIn: 'annotations' } } } },
    { title: 'top-level title wins; annotations.title is kept', name: 'add_note', expected: { title: 'Add note', extensions: { mcp: { fields: { annotations: { title: 'Add a note' } } } } } },
    { title: 'a name with "/" and capitals', name: 'Repo/GetIssue', expected: { name: 'repo_get_issue', id: 'Repo/GetIssue', derived: ['name'] } },
    { title: 'camelCase is split and lower-cased, as in every dialect', name: 'npmVersions', expected: { name: 'npm_versions', id: 'npmVersions' } },
    {
      title: '_meta -> metadata; icons and execution kept',
      name: 'assign_copilot',
      expected: {
        metadata: { ui: { resourceUri: 'ui://copilot/assign' } },
        extensions: { mcp: { titleIn: 'annotations', fields: { execution: { taskSupport: 'optional' }, icons: [{ mimeType: 'image/png' }] } } },
      },
    },
    { title: 'null fields are kept as leftovers', name: 'empty_annotations', expected: { extensions: { mcp: { fields: { title: null, outputSchema: null, annotations: {} } } } } },
    { title: 'annotations: null', name: 'null_annotations', expected: { extensions: { mcp: { fields: { annotations: null } } } } },
  ])('$title', ({ name, expected }) => {
    expect(byId(name)).toMatchObject(expected);
  });

  it('keeps the name as is when it is already canonical', () => {
    expect(byId('get_weather')).not.toHaveProperty('id');
  });

  it('puts nextCursor and _meta of the result in the bundle', () => {
    expect(features.imported.bundle).toEqual({ metadata: { requestId: 'abc' }, extensions: { mcp: { shape: 'result', fields: { nextCursor: 'page-2' } } } });
  });

  it('reads serverInfo as the bundle name and version', () => {
    const { imported } = importFile(mcpDialect, join(FIXTURES, 'clean', 'server-capture.json'));
    expect(imported.bundle).toMatchObject({ name: 'secure-filesystem-server', version: '0.2.0' });
  });

  it.each([
    ['clean/jsonrpc.json', ['/result/tools/0']],
    ['clean/bare-array.json', ['/0', '/1']],
  ])('%s: entries point into their shape', (file, pointers) => {
    expect(importFile(mcpDialect, join(FIXTURES, file)).imported.tools.map((t) => t.pointer)).toEqual(pointers);
  });

  it.each([
    ['Repo/GetIssue', 'repo_get_issue'],
    ['npmVersions', 'npm_versions'],
    ['get-daily-challenge', 'get-daily-challenge'],
    ['-leading', '_-leading'],
    ['搜索 tool', 'tool'],
    ['a  b//c', 'a_b_c'],
  ])('canonicalName(%j) = %j', (mcp, canonical) => {
    expect(canonicalName(mcp)).toBe(canonical);
    expect(canonical).toMatch(/^[a-z0-9_][a-z0-9_.-]*$/);
  });
});

describe('mcp export of tools from other dialects', () => {
  const exported = (tool: Tool) => {
    const files = mcpDialect.export({ tools: [tool] });
    expect(files).toHaveLength(1);
    return (files[0]?.value as { tools: Array<Record<string, unknown>> }).tools[0];
  };

  it.each([
    { title: 'mode read', tool: { name: 't', effects: { mode: 'read' } }, annotations: { readOnlyHint: true } },
    { title: 'irreversible write', tool: { name: 't', effects: { mode: 'write', reversible: 'none' } }, annotations: { readOnlyHint: false, destructiveHint: true } },
    { title: 'reversible but high risk', tool: { name: 't', effects: { mode: 'mixed', reversible: 'partial', risk: 'high' } }, annotations: { readOnlyHint: false, destructiveHint: true } },
    { title: 'additive write', tool: { name: 't', effects: { mode: 'write', reversible: 'partial', risk: 'medium' } }, annotations: { readOnlyHint: false, destructiveHint: false } },
    { title: 'no side effects: closed world', tool: { name: 't', effects: { sideEffects: 'none' } }, annotations: { openWorldHint: false } },
    { title: 'remote writes: open world', tool: { name: 't', effects: { sideEffects: 'write' } }, annotations: { openWorldHint: true } },
    { title: 'idempotent', tool: { name: 't', execution: { idempotent: true } }, annotations: { idempotentHint: true } },
    { title: 'hints win over effects', tool: { name: 't', hints: { readOnly: false }, effects: { mode: 'read' } }, annotations: { readOnlyHint: false } },
    { title: 'system says nothing about the world', tool: { name: 't', effects: { sideEffects: 'system' } }, annotations: undefined },
    {
      title: 'derived effects say nothing',
      tool: { name: 't', effects: { mode: 'read', sideEffects: 'none' }, derived: ['effects.mode', 'effects.sideEffects'] },
      annotations: undefined,
    },
  ] satisfies Array<{ title: string; tool: Tool; annotations: Record<string, unknown> | undefined }>)('$title', ({ tool, annotations }) => {
    expect(exported(tool)?.['annotations']).toEqual(annotations);
  });

  it('writes id as the MCP name, the title at top level, and an empty object schema when there is none', () => {
    expect(exported({ name: 'tool.linear.read', id: 'tool.Linear.Read', title: 'Read' })).toEqual({
      name: 'tool.Linear.Read',
      title: 'Read',
      inputSchema: { type: 'object' },
    });
  });

  it('writes a plain tools/list result when the bundle has no MCP layout', () => {
    expect(mcpDialect.export({ bundle: { name: 'core' }, tools: [] })).toEqual([{ path: 'tools.json', format: 'json', value: { tools: [] } }]);
  });
});

describe('mcp unknown fields', () => {
  it('reports them at their keys and keeps them', () => {
    const { imported, diagnostics } = importFile(mcpDialect, join(FIXTURES, 'extras', 'unknown-fields.json'));
    const byLine = diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, line: d.line })).sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    expect(byLine).toEqual([
      { code: 'UNKNOWN_FIELD', pointer: '/tools/0/annotations/x-approval', line: 7 },
      { code: 'UNKNOWN_FIELD', pointer: '/tools/0/x-vendor', line: 8 },
      { code: 'UNKNOWN_FIELD', pointer: '/tools/0/category', line: 9 },
      { code: 'UNKNOWN_FIELD', pointer: '/server', line: 12 },
      { code: 'UNKNOWN_FIELD', pointer: '/capturedAt', line: 13 },
    ]);
    expect(imported.tools[0]?.value.extensions).toEqual({
      mcp: { fields: { 'x-vendor': { tier: 'gold' }, category: 'communication', annotations: { 'x-approval': 'always' } } },
    });
    expect(imported.bundle?.extensions).toEqual({ mcp: { shape: 'result', fields: { server: 'mail', capturedAt: '2026-01-01' } } });
  });
});

describe('mcp broken files', () => {
  const diagnose = (name: string) => {
    const { imported, diagnostics } = importFile(mcpDialect, join(FIXTURES, 'broken', name));
    const found = diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, line: d.line }));
    return { imported, found: found.sort((a, b) => (a.pointer ?? '').localeCompare(b.pointer ?? '') || a.code.localeCompare(b.code)) };
  };

  it('reports wrong types, missing and empty names at their pointers, and skips nameless entries', () => {
    const { imported, found } = diagnose('types.json');
    expect(found).toEqual([
      { code: 'TYPE_MISMATCH', pointer: '/nextCursor', line: 34 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/0/inputSchema', line: 6 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/1/annotations/readOnlyHint', line: 11 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/1/annotations/title', line: 11 },
      { code: 'MISSING_FIELD', pointer: '/tools/2', line: 13 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/3/name', line: 18 },
      { code: 'INVALID_VALUE', pointer: '/tools/4/name', line: 22 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/5', line: 25 },
      { code: 'MISSING_FIELD', pointer: '/tools/6', line: 26 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/6/_meta', line: 30 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/6/annotations', line: 28 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/6/icons', line: 29 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/6/outputSchema', line: 31 },
    ]);
    expect(imported.tools.map((t) => t.pointer)).toEqual(['/tools/0', '/tools/1', '/tools/6']);
  });

  it('leaves a bad value out and reads the rest: readOnlyHint "yes" falls back to the default', () => {
    const { imported } = diagnose('types.json');
    const tool = imported.tools[1]?.value;
    expect(tool?.hints).toEqual({ destructive: false });
    expect(tool?.effects).toEqual({ mode: 'write', sideEffects: 'write', reversible: 'partial' });
    expect(imported.tools[0]?.value.inputSchema).toBeUndefined();
  });

  it.each([
    ['tools-not-array.json', [{ code: 'TYPE_MISMATCH', pointer: '/tools', line: 2 }]],
    ['no-tools.json', [{ code: 'MISSING_FIELD', pointer: '/result', line: 4 }]],
    ['scalar.json', [{ code: 'TYPE_MISMATCH', pointer: '', line: 1 }]],
  ])('%s', (name, expected) => {
    const { imported, found } = diagnose(name);
    expect(found).toEqual(expected);
    expect(imported.tools).toEqual([]);
  });

  it('a JSON-RPC error response lists no tools, and says so', () => {
    const { imported, diagnostics } = importValue({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } });
    expect(diagnostics.map((d) => ({ code: d.code, pointer: d.pointer }))).toEqual([{ code: 'MISSING_FIELD', pointer: '' }]);
    expect(imported.tools).toEqual([]);
    expect(imported.bundle?.extensions?.['mcp']).toMatchObject({ shape: 'jsonrpc', envelope: { jsonrpc: '2.0', id: 3 } });
  });

  it('never throws, whatever the document', () => {
    for (const value of [null, 0, 'x', [], {}, [null, 1, []], { tools: [{ name: 'x', inputSchema: {}, annotations: { readOnlyHint: {} } }] }, { jsonrpc: '2.0', result: 5 }]) {
      expect(() => importValue(value)).not.toThrow();
    }
  });
});

describe('mcp detection', () => {
  const tool = { name: 'echo', inputSchema: { type: 'object' } };
  it.each([
    ['a tools/list result', { tools: [tool] }],
    ['a JSON-RPC response', { jsonrpc: '2.0', id: 1, result: { tools: [tool] } }],
    ['a bare array of tools', [tool, { ...tool, name: 'other', annotations: { readOnlyHint: true } }]],
    ['an empty page with a cursor', { tools: [], nextCursor: 'x' }],
    ['a server capture', { server: 'x', serverInfo: { name: 'x' }, tools: [tool] }],
  ])('claims %s', (_title, value) => {
    expect(mcpDialect.detect(value, { path: 'tools.json' })).toBeGreaterThan(0.5);
  });

  it.each([
    ['OpenAI chat tools', [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]],
    ['OpenAI responses tools', [{ type: 'function', name: 'f', parameters: { type: 'object' } }]],
    ['an OpenAI request body', { model: 'gpt', tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }],
    ['Anthropic tools', [{ name: 'f', input_schema: { type: 'object' } }]],
    ['a canonical document', { toolcap: 1, tools: [tool] }],
    ['a Pylot bundle', { schema_version: '1.0', tools: [tool] }],
    ['Xena tools', { tools: [{ id: 'tool.x', name: 'X', surface: {}, inputSchema: {} }] }],
    ['an empty tools list', { tools: [] }],
    ['LiveMCPBench servers', [{ name: 'srv', tools: { srv: { tools: [tool] } } }]],
    ['a scalar', 'tools'],
    ['null', null],
  ])('does not claim %s', (_title, value) => {
    expect(mcpDialect.detect(value, { path: 'tools.json' })).toBe(0);
  });

  const others = ['atlas', 'capability', 'pylot', 'shinkai', 'xena'].flatMap((id) => jsonFiles(join('test/fixtures', id)));
  const examples = jsonFiles('examples').filter((path) => !path.includes('/mcp/'));
  it.each([...others, ...examples].map((path) => [path]))('does not claim %s', (path) => {
    const parsed = parseSource(path, readFileSync(path, 'utf8'));
    expect(mcpDialect.detect(parsed.file?.value, { path })).toBe(0);
  });
});
