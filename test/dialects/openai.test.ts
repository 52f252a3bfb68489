import { describe, expect, it } from 'vitest';
import { createOpenaiDialect, openaiDialect } from '../../src/dialects/openai.js';
import { detectOpenai } from '../../src/dialects/openai/detect.js';
import { repairedType } from '../../src/dialects/openai/repair.js';
import { detectDialect } from '../../src/dialects/lookup.js';
import type { Dialect, ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { complete } from '../../src/model/derive.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { Tool } from '../../src/model/schema.js';
import { importFile, runDialectContract } from './contract.js';

const FIXTURES = 'test/fixtures/openai';
const GOOD = ['chat-tools.json', 'bfcl-python.json', 'bfcl-java.json', 'responses-api.json', 'single-function.json'].map((f) => `${FIXTURES}/${f}`);

runDialectContract(openaiDialect, { fixtures: GOOD, allowedCodes: ['SCHEMA_REPAIRED', 'UNKNOWN_ENUM_VALUE'] });

/** Import a snippet written out as a JSON file at `path`. */
function importSnippet(value: unknown, dialect: Dialect = openaiDialect, path = 'tools.json'): { doc: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(path, JSON.stringify(value, null, 2));
  if (!parsed.file) throw new Error(`snippet does not parse: ${JSON.stringify(parsed.diagnostics)}`);
  const context = createImportContext(parsed.file);
  return { doc: dialect.import(context), diagnostics: context.diagnostics };
}

function onlyTool(entry: unknown): Tool {
  const tool = importSnippet([entry]).doc.tools[0];
  if (!tool) throw new Error('no tool imported');
  return tool.value;
}

/** Import then export one entry. */
function roundTrip(value: unknown): unknown {
  const { doc } = importSnippet(value);
  const files = openaiDialect.export({ ...(doc.bundle ? { bundle: doc.bundle } : {}), tools: doc.tools.map((t) => t.value) });
  return files[0]?.value;
}

const codes = (diagnostics: readonly Diagnostic[]) => diagnostics.map((d) => [d.code, d.severity, d.pointer]);

const WEATHER = { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('openai: shapes', () => {
  it.each<[string, unknown, Partial<Tool>]>([
    ['wrapped (Chat Completions)', { type: 'function', function: WEATHER }, { name: 'get_weather', description: 'Weather now', inputSchema: WEATHER.parameters }],
    ['bare function', WEATHER, { name: 'get_weather', inputSchema: WEATHER.parameters, extensions: { openai: { shape: 'bare' } } }],
    ['flat (Responses API)', { type: 'function', ...WEATHER }, { name: 'get_weather', inputSchema: WEATHER.parameters, extensions: { openai: { shape: 'flat' } } }],
    ['strict -> extensions.openai.strict', { type: 'function', function: { ...WEATHER, strict: true } }, { extensions: { openai: { strict: true } } }],
    ['no parameters', { type: 'function', function: { name: 'ping' } }, { name: 'ping' }],
    ['BFCL response -> outputSchema', { ...WEATHER, response: { type: 'object', properties: {} } }, { outputSchema: { type: 'object', properties: {} }, extensions: { openai: { shape: 'bare', response: true } } }],
  ])('%s', (_label, entry, expected) => {
    expect(onlyTool(entry)).toMatchObject(expected);
  });

  it('fills no capability defaults and derives nothing for a lowercase name', () => {
    expect(onlyTool({ type: 'function', function: WEATHER })).toStrictEqual({
      name: 'get_weather',
      description: 'Weather now',
      inputSchema: WEATHER.parameters,
    });
  });

  it.each([
    ['getWeather', 'get_weather'],
    ['GeometryPresentation.createPresentation', 'geometry_presentation.create_presentation'],
    ['Search-Web', 'search-web'],
  ])('derives a lowercase name from %s and keeps the source as id', (source, name) => {
    const tool = onlyTool({ type: 'function', function: { name: source } });
    expect(tool).toMatchObject({ name, id: source, derived: ['name'] });
    expect(roundTrip([{ type: 'function', function: { name: source } }])).toStrictEqual([{ type: 'function', function: { name: source } }]);
  });

  it('leaves effects to complete(): a silent function reads as a write needing approval', () => {
    const done = complete(onlyTool({ type: 'function', function: WEATHER }));
    expect(done.effects).toMatchObject({ mode: 'write', sideEffects: 'write', reversible: 'none' });
    expect(done.approval).toStrictEqual({ required: true });
    expect(done.derived).toContain('effects.sideEffects');
  });

  it('points entries at the function object, so field map suffixes hold for every shape', () => {
    const { doc } = importSnippet([{ type: 'function', function: WEATHER }, WEATHER, { type: 'function', ...WEATHER }]);
    expect(doc.tools.map((t) => t.pointer)).toStrictEqual(['/0/function', '/1', '/2']);
    expect(openaiDialect.fieldMaps.tool).toMatchObject({ name: '/name', inputSchema: '/parameters', outputSchema: '/response' });
  });
});

describe('openai: export', () => {
  it.each<[string, unknown]>([
    ['wrapped with strict and a wrapper extra', [{ type: 'function', function: { ...WEATHER, strict: false }, cache_control: { type: 'ephemeral' } }]],
    ['bare list', [WEATHER, { name: 'ping', description: 'Ping' }]],
    ['flat list with a built-in tool kept in place', [{ type: 'web_search_preview' }, { type: 'function', ...WEATHER }, { type: 'code_interpreter', container: { type: 'auto' } }]],
    ['one bare object', WEATHER],
    ['one wrapped object', { type: 'function', function: WEATHER }],
    ['unknown function fields', [{ type: 'function', function: { ...WEATHER, 'x-owner': 'team' } }]],
  ])('round-trips %s', (_label, value) => {
    expect(roundTrip(value)).toStrictEqual(value);
  });

  it('writes the wrapped form for tools from other dialects, without capability fields', () => {
    const tool: Tool = { name: 'x', description: 'X', inputSchema: { type: 'object' }, effects: { sideEffects: 'write' }, approval: { required: true } };
    expect(openaiDialect.export({ tools: [tool] })).toStrictEqual([
      { path: 'tools.json', format: 'json', value: [{ type: 'function', function: { name: 'x', description: 'X', parameters: { type: 'object' } } }] },
    ]);
  });

  it('writes nothing for a fragment without tools', () => {
    expect(openaiDialect.export({ skills: [{ name: 's' }] })).toStrictEqual([]);
  });

  it('does not write derived values (complete() output exports like the source)', () => {
    const { doc } = importSnippet([{ type: 'function', function: WEATHER }]);
    const tools = doc.tools.map((t) => complete(t.value));
    expect(openaiDialect.export({ tools })[0]?.value).toStrictEqual([{ type: 'function', function: WEATHER }]);
  });

  it('keeps a changed type rather than restoring the source spelling over it', () => {
    const { doc } = importSnippet([{ name: 'f', parameters: { type: 'dict', properties: { n: { type: 'float' } } } }]);
    const tool = doc.tools[0]!.value;
    const edited: Tool = { ...tool, inputSchema: { type: 'object', properties: { n: { type: 'string' } } } };
    expect(openaiDialect.export({ tools: [edited] })[0]?.value).toStrictEqual([{ name: 'f', parameters: { type: 'dict', properties: { n: { type: 'string' } } } }]);
  });
});

describe('openai: lenient schema repairs', () => {
  it.each<[unknown, unknown]>([
    ['dict', 'object'],
    ['str', 'string'],
    ['int', 'integer'],
    ['float', 'number'],
    ['bool', 'boolean'],
    ['list', 'array'],
    ['tuple', 'array'],
    ['String', 'string'],
    ['Boolean', 'boolean'],
    ['Array', 'array'],
    ['HashMap', 'object'],
    ['ArrayList', 'array'],
    ['long', 'integer'],
    ['double', 'number'],
    ['char', 'string'],
    ['datetime', 'string'],
    ['List[str]', 'array'],
    ['ArrayList<String>', 'array'],
    ['Map<String, Integer>', 'object'],
    ['int[]', 'array'],
    [['str', 'None'], ['string', 'null']],
  ])('%j -> %j', (from, to) => {
    expect(repairedType(from)).toStrictEqual({ value: to });
  });

  it.each<[unknown]>([['string'], ['object'], [['string', 'null']], [''], ['Composite'], ['Optional[str]'], [42]])('%j needs no repair or has none', (value) => {
    expect(repairedType(value)).toBeUndefined();
  });

  it('"any" drops the type keyword', () => {
    expect(repairedType('any')).toStrictEqual({ value: undefined });
    expect(onlyTool({ name: 'f', parameters: { type: 'dict', properties: { x: { type: 'any', description: 'X' } } } }).inputSchema).toStrictEqual({
      type: 'object',
      properties: { x: { description: 'X' } },
    });
  });

  it('reports each repair as a SCHEMA_REPAIRED warning at the source type, with the original kept for export', () => {
    const { doc, diagnostics } = importSnippet([
      { name: 'f', parameters: { type: 'dict', properties: { a: { type: 'tuple', items: { type: 'float' } }, b: { anyOf: [{ type: 'str' }] } } }, response: { type: 'dict' } },
    ]);
    expect(codes(diagnostics)).toStrictEqual([
      ['SCHEMA_REPAIRED', 'warning', '/0/parameters/type'],
      ['SCHEMA_REPAIRED', 'warning', '/0/parameters/properties/a/type'],
      ['SCHEMA_REPAIRED', 'warning', '/0/parameters/properties/a/items/type'],
      ['SCHEMA_REPAIRED', 'warning', '/0/parameters/properties/b/anyOf/0/type'],
      ['SCHEMA_REPAIRED', 'warning', '/0/response/type'],
    ]);
    expect(diagnostics.every((d) => d.hint !== undefined)).toBe(true);
    expect(doc.tools[0]?.value.extensions?.['openai']?.['repairs']).toStrictEqual({
      '/parameters/type': 'dict',
      '/parameters/properties/a/type': 'tuple',
      '/parameters/properties/a/items/type': 'float',
      '/parameters/properties/b/anyOf/0/type': 'str',
      '/response/type': 'dict',
    });
  });

  it('leaves data keywords (enum, default, const) alone', () => {
    const parameters = { type: 'object', properties: { type: { type: 'string', enum: ['dict', 'str'], default: 'str', const: 'int' } } };
    expect(onlyTool({ name: 'f', parameters }).inputSchema).toStrictEqual(parameters);
  });

  it('does not modify the source document', () => {
    const parsed = parseSource('t.json', JSON.stringify([{ name: 'f', parameters: { type: 'dict' } }]));
    openaiDialect.import(createImportContext(parsed.file!));
    expect(parsed.file?.value).toStrictEqual([{ name: 'f', parameters: { type: 'dict' } }]);
  });

  it('strict (non-lenient) mode keeps schemas verbatim and reports nothing', () => {
    const { doc, diagnostics } = importSnippet([{ name: 'f', parameters: { type: 'dict' } }], createOpenaiDialect({ lenient: false }));
    expect(doc.tools[0]?.value.inputSchema).toStrictEqual({ type: 'dict' });
    expect(diagnostics).toStrictEqual([]);
  });
});

describe('openai: bad input', () => {
  it('reports every problem of the broken fixture at its source position', () => {
    const { imported, diagnostics } = importFile(openaiDialect, `${FIXTURES}/broken/mixed.json`);
    expect(diagnostics.map((d) => [d.code, d.severity, d.pointer, d.line])).toStrictEqual([
      ['MISSING_FIELD', 'error', '/0/function', 4],
      ['TYPE_MISMATCH', 'error', '/1/function', 8],
      ['TYPE_MISMATCH', 'error', '/2/function/parameters', 14],
      ['TYPE_MISMATCH', 'error', '/2/function/strict', 15],
      ['UNKNOWN_FIELD', 'warning', '/2/function/x-owner', 16],
      ['UNKNOWN_FIELD', 'warning', '/2/cache_control', 18],
      ['MISSING_FIELD', 'warning', '/3', 20],
      ['TYPE_MISMATCH', 'error', '/3/function/description', 21],
      ['TYPE_MISMATCH', 'error', '/4', 23],
      ['MISSING_FIELD', 'error', '/5/function/name', 26],
    ]);
    expect(imported.tools.map((t) => [t.value.name, t.pointer])).toStrictEqual([
      ['get_time', '/2/function'],
      ['get_date', '/3/function'],
    ]);
    expect(imported.tools[0]?.value.extensions).toStrictEqual({ openai: { fields: { 'x-owner': 'platform' }, wrapper: { cache_control: { type: 'ephemeral' } } } });
  });

  it.each<[string, unknown, string[]]>([
    ['a number document', 42, ['TYPE_MISMATCH:']],
    ['a built-in tool', [{ type: 'file_search', vector_store_ids: ['v'] }], ['UNKNOWN_ENUM_VALUE:/0/type']],
    ['a wrapped entry of another type', [{ type: 'custom', function: WEATHER }], ['UNKNOWN_ENUM_VALUE:/0/type']],
    ['a nameless bare function', [{ description: 'x', parameters: {} }], ['MISSING_FIELD:/0']],
    ['a type that is not a string', [{ type: null, function: WEATHER }], ['TYPE_MISMATCH:/0/type']],
    ['a flat entry of type 42', [{ type: 42, ...WEATHER }], ['TYPE_MISMATCH:/0/type']],
  ])('%s', (_label, value, expected) => {
    const { doc, diagnostics } = importSnippet(value);
    expect(diagnostics.map((d) => `${d.code}:${d.pointer}`)).toStrictEqual(expected);
    expect(doc.tools).toStrictEqual([]);
  });
});

const WRONG_VALUES: readonly unknown[] = [null, 42, 'str', [], {}, true];
const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

describe('openai: wrong types anywhere in an entry', () => {
  const entry = { type: 'function', function: { ...WEATHER, strict: true } };
  it.each([
    ...Object.keys(entry).map((k) => [k, [k]] as const),
    ...Object.keys(entry.function).map((k) => [`function.${k}`, ['function', k]] as const),
  ])('%s of a wrong type is reported inside the entry, never thrown', (_label, path) => {
    for (const value of WRONG_VALUES) {
      const copy: Record<string, unknown> = structuredClone(entry);
      const fn = copy['function'] as Record<string, unknown>;
      const [first, second] = path;
      const original = second === undefined ? copy[first!] : fn[second];
      if (kind(value) === kind(original)) continue;
      if (second === undefined) copy[first!] = value;
      else fn[second] = value;
      const { diagnostics } = importSnippet([copy, entry]);
      expect(diagnostics.filter((d) => d.pointer?.startsWith('/0')), `${path.join('.')} = ${JSON.stringify(value)}`).not.toStrictEqual([]);
    }
  });
});

describe('openai: detection', () => {
  it.each<[string, unknown, string, number]>([
    ['wrapped list', [{ type: 'function', function: WEATHER }], 'tools.json', 0.95],
    ['one wrapped tool', { type: 'function', function: WEATHER }, 'tool.json', 0.95],
    ['flat Responses list with a built-in tool', [{ type: 'web_search_preview' }, { type: 'function', ...WEATHER }], 'tools.json', 0.95],
    ['bare list', [WEATHER], 'tools.json', 0.6],
    ['one bare function', WEATHER, 'fn.json', 0.6],
    ['bare list in ATLAS functions.json', [WEATHER], 'modules/Tools/tool_maps/functions.json', 0.4],
    ['bare list with an ATLAS key', [WEATHER, { ...WEATHER, name: 'b', side_effects: 'none' }], 'tools.json', 0],
    ['MCP tools', [{ name: 'x', description: 'X', inputSchema: { type: 'object' } }], 'tools.json', 0],
    ['MCP tools/list result', { tools: [{ name: 'x', inputSchema: { type: 'object' } }] }, 'tools.json', 0],
    ['OpenAPI document', { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }, 'openapi.json', 0],
    ['Swagger document', { swagger: '2.0', info: { title: 't', version: '1' }, paths: {} }, 'swagger.json', 0],
    ['canonical manifest', { toolcap: 1, tools: [] }, 'toolcap.json', 0],
    ['only built-in tools', [{ type: 'code_interpreter' }], 'tools.json', 0],
    ['empty list', [], 'tools.json', 0],
    ['a BFCL line', { id: 'simple_0', question: [], function: [WEATHER] }, 'x.json', 0],
    ['a string', 'function', 'x.json', 0],
    ['null', null, 'x.json', 0],
  ])('%s', (_label, value, path, score) => {
    expect(detectOpenai(value, { path })).toBe(score);
  });

  it.each([
    ['bare list', [WEATHER], 'tools.json', 'openai'],
    ['bare list in functions.json goes to ATLAS', [WEATHER], 'modules/Tools/tool_maps/functions.json', 'atlas'],
    ['ATLAS-marked list goes to ATLAS', [{ ...WEATHER, side_effects: 'none' }], 'tools.json', 'atlas'],
  ])('registry picks the right dialect: %s', (_label, value, path, id) => {
    expect(detectDialect(value, { path })?.dialect.id).toBe(id);
  });
});

describe('openai: through the whole pipeline (load, merge, complete, lint)', () => {
  it.each<[string, number, Record<string, number>]>([
    ['chat-tools.json', 4, {}],
    ['bfcl-python.json', 3, { 'SCHEMA_REPAIRED:warning': 12 }],
    ['bfcl-java.json', 2, { 'SCHEMA_REPAIRED:warning': 11 }],
    ['responses-api.json', 2, { 'UNKNOWN_ENUM_VALUE:warning': 1 }],
    ['single-function.json', 1, {}],
  ])('%s: %i tools, no errors (derived names pass the name rule, repaired schemas compile)', (file, tools, expected) => {
    const { catalog, diagnostics } = buildCatalog([`${FIXTURES}/${file}`], { compileSchemas: true });
    expect(catalog.tools).toHaveLength(tools);
    const counts: Record<string, number> = {};
    for (const d of diagnostics) counts[`${d.code}:${d.severity}`] = (counts[`${d.code}:${d.severity}`] ?? 0) + 1;
    expect(counts).toStrictEqual(expected);
    expect(diagnostics.every((d) => d.line !== undefined)).toBe(true);
  });
});
