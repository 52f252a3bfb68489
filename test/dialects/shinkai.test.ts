import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shinkaiDialect } from '../../src/dialects/shinkai.js';
import { slugify } from '../../src/dialects/shinkai/names.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { Tool } from '../../src/model/schema.js';
import { importFile, runDialectContract } from './contract.js';

const FIXTURES = 'test/fixtures/shinkai';

/** Every metadata.json under a folder. */
function metadataFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return metadataFiles(path);
    return entry === 'metadata.json' ? [path] : [];
  });
}

const examples = metadataFiles('examples/manifests/shinkai');
const clean = ['full', 'minimal', 'oauth-pkce', 'sql-memory', 'nested-params', 'empty-lists'].map((f) => `${FIXTURES}/${f}/metadata.json`);

runDialectContract(shinkaiDialect, { fixtures: [...clean, ...examples] });
runDialectContract(shinkaiDialect, { fixtures: [`${FIXTURES}/unknown-fields/metadata.json`], allowedCodes: ['UNKNOWN_FIELD'] });

/** Import an inline document as if read from `path`. */
function importValue(value: unknown, path = 'tools/x/metadata.json'): { doc: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(path, JSON.stringify(value, null, 2));
  if (!parsed.file) throw new Error('inline document does not parse');
  const context = createImportContext(parsed.file);
  return { doc: shinkaiDialect.import(context), diagnostics: context.diagnostics };
}

function onlyTool(value: unknown): Tool {
  const { doc } = importValue(value);
  expect(doc.tools).toHaveLength(1);
  return doc.tools[0]!.value;
}

const params = { type: 'object', properties: { q: { type: 'string', nullable: true } }, required: ['q'] };

describe('shinkai import mapping', () => {
  it.each<[string, Record<string, unknown>, Partial<Tool>]>([
    ['name -> title and a derived slug', { name: 'Shinkai: Download Pages' }, { name: 'shinkai_download_pages', title: 'Shinkai: Download Pages', derived: ['name'] }],
    ['id kept as id, not used as name', { id: 'shinkai-tool-download-pages', name: 'Download Pages' }, { id: 'shinkai-tool-download-pages', name: 'download_pages' }],
    ['id is the fallback for a name with no ASCII', { id: 'weather-jp', name: '天気予報' }, { name: 'weather_jp', title: '天気予報' }],
    ['plain text fields', { name: 'A', version: '1.0.0', description: 'd', author: '@@me', homepage: 'https://x.dev', license: 'MIT' }, { version: '1.0.0', description: 'd', author: '@@me', homepage: 'https://x.dev', license: 'MIT' }],
    ['keywords -> tags', { name: 'A', keywords: ['web', 'fetch'] }, { tags: ['web', 'fetch'] }],
    ['tool_type -> implementation.language', { name: 'A', tool_type: 'python' }, { implementation: { language: 'python' } }],
    ['schemas kept verbatim with nullable', { name: 'A', configurations: params, parameters: params, result: params }, { configSchema: params, inputSchema: params, outputSchema: params }],
    ['sqlTables and sqlQueries -> storage', { name: 'A', sqlTables: [{ name: 't', definition: 'CREATE TABLE t (a TEXT)' }], sqlQueries: [{ name: 'q', query: 'SELECT 1' }] }, { storage: { sqlTables: [{ name: 't', definition: 'CREATE TABLE t (a TEXT)' }], sqlQueries: [{ name: 'q', query: 'SELECT 1' }] } }],
    ['tools -> uses, verbatim', { name: 'A', tools: ['local:::__official_shinkai:::shinkai_sqlite_query_executor'] }, { uses: ['local:::__official_shinkai:::shinkai_sqlite_query_executor'] }],
    [
      'oauth -> auth.oauth with derived type, required and scope union',
      { name: 'A', oauth: [{ name: 'g', version: '2.0', scopes: ['a', 'b'], pkceType: 'S256', responseType: 'code' }, { name: 'h', scopes: ['b', 'c'], refreshToken: 'true' }] },
      {
        auth: { required: true, type: 'oauth2', scopes: ['a', 'b', 'c'], oauth: [{ name: 'g', version: '2.0', scopes: ['a', 'b'], pkceType: 'S256', responseType: 'code' }, { name: 'h', scopes: ['b', 'c'], refreshToken: 'true' }] },
        derived: ['name', 'auth.required', 'auth.type', 'auth.scopes'],
      },
    ],
    ['oauth without scopes derives no scopes', { name: 'A', oauth: [{ name: 'g' }] }, { auth: { required: true, type: 'oauth2', oauth: [{ name: 'g' }] }, derived: ['name', 'auth.required', 'auth.type'] }],
    ['empty oauth derives nothing', { name: 'A', oauth: [] }, { auth: { oauth: [] }, derived: ['name'] }],
    ['known unmapped fields kept quietly', { name: 'A', runner: 'any', operating_system: ['linux'], tool_set: 'web' }, { extensions: { shinkai: { runner: 'any', operating_system: ['linux'], tool_set: 'web' } } }],
    ['unknown fields and item leftovers kept', { name: 'A', icon: 'x.svg', oauth: [{ name: 'g', enablePkce: true }], sqlTables: [{ name: 't', definition: 'd', v: 2 }] }, { extensions: { shinkai: { icon: 'x.svg', $items: { '/oauth/0': { enablePkce: true }, '/sqlTables/0': { v: 2 } } } } }],
  ])('%s', (_label, source, expected) => {
    expect(onlyTool(source)).toMatchObject(expected);
  });

  it('fills no conservative defaults for what Shinkai is silent on', () => {
    const tool = onlyTool({ name: 'A', parameters: params });
    expect(Object.keys(tool).sort()).toEqual(['derived', 'inputSchema', 'name', 'title']);
  });

  it('reports unknown fields at the key', () => {
    const { diagnostics } = importValue({ name: 'A', parameters: params, icon: 'x.svg' });
    expect(diagnostics).toMatchObject([{ code: 'UNKNOWN_FIELD', severity: 'warning', pointer: '/icon', line: 15 }]);
  });
});

describe('shinkai slugs', () => {
  it.each([
    ['Download Pages', 'download_pages'],
    ['Shinkai: Download Pages', 'shinkai_download_pages'],
    ['  --Café Crème (v2)!  ', 'cafe_creme_v2'],
    ['already_a_slug', 'already_a_slug'],
    ['天気', ''],
  ])('%j -> %j', (text, slug) => {
    expect(slugify(text)).toBe(slug);
  });
});

describe('shinkai diagnostics on broken files', () => {
  const broken = (name: string) => importFile(shinkaiDialect, `${FIXTURES}/broken/${name}/metadata.json`);

  it.each<[string, Array<Partial<Diagnostic>>, number]>([
    ['keywords-not-array', [{ code: 'TYPE_MISMATCH', pointer: '/keywords', line: 4 }], 1],
    ['pkce-s512', [{ code: 'UNKNOWN_ENUM_VALUE', pointer: '/oauth/0/pkceType', line: 13 }], 1],
    ['parameters-string', [{ code: 'TYPE_MISMATCH', pointer: '/parameters', line: 5 }], 1],
    ['missing-name', [{ code: 'MISSING_FIELD', pointer: '', line: 1 }], 0],
    ['client-secret', [{ code: 'INVALID_VALUE', severity: 'warning', pointer: '/oauth/0/clientSecret', line: 12 }], 1],
    [
      'oauth-values',
      [
        { code: 'INVALID_VALUE', pointer: '/oauth/0/version', line: 8 },
        { code: 'UNKNOWN_ENUM_VALUE', pointer: '/oauth/0/responseType', line: 10 },
        { code: 'TYPE_MISMATCH', pointer: '/oauth/0/refreshToken', line: 11 },
        { code: 'UNKNOWN_ENUM_VALUE', pointer: '/oauth/0/requestTokenAuthHeader', line: 12 },
        { code: 'TYPE_MISMATCH', pointer: '/oauth/0/scopes/1', line: 13 },
        { code: 'TYPE_MISMATCH', pointer: '/oauth/1', line: 15 },
      ],
      1,
    ],
    [
      'sql-items',
      [
        { code: 'INVALID_VALUE', severity: 'warning', pointer: '/parameters/type', line: 4 },
        { code: 'MISSING_FIELD', pointer: '/sqlTables/0', line: 6 },
        { code: 'MISSING_FIELD', pointer: '/sqlQueries/0', line: 10 },
        { code: 'TYPE_MISMATCH', pointer: '/sqlQueries/1/query', line: 11 },
      ],
      1,
    ],
    ['not-an-object', [{ code: 'TYPE_MISMATCH', pointer: '', line: 1 }], 0],
  ])('%s', (name, expected, tools) => {
    const { imported, diagnostics } = broken(name);
    const sorted = [...diagnostics].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    expect(sorted).toMatchObject(expected);
    expect(sorted).toHaveLength(expected.length);
    expect(imported.tools).toHaveLength(tools);
  });

  it('leaves a failing value out and keeps the rest', () => {
    const tool = broken('pkce-s512').imported.tools[0]!.value;
    expect(tool.auth?.oauth?.[0]).toEqual({
      name: 'dropbox',
      version: '2.0',
      authorizationUrl: 'https://www.dropbox.com/oauth2/authorize',
      tokenUrl: 'https://api.dropboxapi.com/oauth2/token',
      scopes: ['files.content.write'],
      responseType: 'code',
    });
    expect(broken('oauth-values').imported.tools[0]!.value.auth?.oauth).toEqual([
      { name: 'twitter', authorizationUrl: 'https://api.twitter.com/oauth/authorize', scopes: ['tweet.write'] },
    ]);
    expect(broken('sql-items').imported.tools[0]!.value.storage).toEqual({
      sqlTables: [{ name: 'tags', definition: 'CREATE TABLE tags (name TEXT)' }],
      sqlQueries: [],
    });
  });

  it('keeps a client secret so the round trip stays exact', () => {
    const { value, imported } = broken('client-secret');
    expect(imported.tools[0]!.value.auth?.oauth?.[0]?.clientSecret).toBe('3f9a1c0de2b84c11a7e5');
    expect(shinkaiDialect.export({ tools: imported.tools.map((t) => t.value) })[0]?.value).toEqual(value);
  });

  it('reports a name that gives no slug', () => {
    const { doc, diagnostics } = importValue({ name: '***', parameters: params });
    expect(doc.tools).toEqual([]);
    expect(diagnostics).toMatchObject([{ code: 'MISSING_FIELD', pointer: '/name', line: 2 }]);
  });
});

describe('shinkai detection', () => {
  it.each([...clean, ...examples, ...metadataFiles(`${FIXTURES}/broken`).filter((f) => !f.includes('not-an-object') && !f.includes('missing-name'))])(
    '%s scores > 0.5',
    (file) => {
      const { value } = importFile(shinkaiDialect, file);
      expect(shinkaiDialect.detect(value, { path: file })).toBeGreaterThan(0.5);
    },
  );

  it('scores a metadata document without the file-name hint when it has two signals', () => {
    expect(shinkaiDialect.detect({ name: 'A', tool_type: 'python', parameters: params }, { path: 'tool.json' })).toBeGreaterThan(0.5);
  });

  const others: Array<[string, unknown, string]> = [
    ['canonical', { toolcap: 1, tools: [{ name: 'a', title: 'A', author: 'x', tags: ['t'], inputSchema: params }] }, 'toolcap.yaml'],
    ['JSON Schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Input', type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, 'schemas/input.json'],
    [
      'ATLAS entry',
      { name: 'google_search', version: '1.0.0', side_effects: 'none', default_timeout: 30, allow_parallel: true, description: 'search', parameters: params },
      'modules/Personas/ATLAS/Toolbox/functions.json',
    ],
    ['ATLAS file', [{ name: 'google_search', side_effects: 'none', parameters: params }], 'functions.json'],
    [
      'capability manifest',
      { name: 'github.create_pull_request', summary: 'Open a PR', inputSchemaRef: './schemas/pr.json', capabilities: { mode: 'write', cost: { lane: 'low' } } },
      'manifests/github.yaml',
    ],
    [
      'Pylot manifest',
      { schema_version: '1.0', metadata: { name: 'default', tags: ['core'] }, tools: [{ name: 'git_status', module: 'src.tools.git', class_name: 'GitStatusTool', inputs: {} }] },
      'config/tools.json',
    ],
    [
      'Xena tool',
      { id: 'tool.tasks.example', name: 'Tasks Example Source', version: '1.0.0', tags: ['tasks'], metadata: {}, surface: { domains: ['tasks'] }, capabilities: ['tasks.probe'], deterministic: true, riskLevel: 'low' },
      'config/registry/tools.json',
    ],
    ['package.json', { name: 'my-lib', version: '1.0.0', author: 'me', keywords: ['x'], license: 'MIT', dependencies: {} }, 'package.json'],
    ['OpenAI function', { name: 'get_weather', description: 'Weather', parameters: params }, 'functions/weather.json'],
    ['MCP tool', { name: 'read_file', description: 'Read', inputSchema: params }, 'tools.json'],
    ['Shinkai agent metadata', { name: 'Finance Bro', author: '@@official.shinkai', keywords: ['finance'], version: '1.0.0' }, 'agents/finance_bro/metadata.json'],
  ];
  it.each(others)('returns 0 for a %s', (_label, value, path) => {
    expect(shinkaiDialect.detect(value, { path })).toBe(0);
  });
  it.each(others.filter(([label]) => label !== 'OpenAI function'))('returns 0 for a %s even named metadata.json', (_label, value) => {
    expect(shinkaiDialect.detect(value, { path: 'x/metadata.json' })).toBe(0);
  });
  it.each([[null], [3], ['metadata'], [[]], [{}], [{ tool_type: 'python' }]])('never throws and returns 0 for %j', (value) => {
    expect(shinkaiDialect.detect(value, { path: 'metadata.json' })).toBe(0);
  });

  it.each([
    ['missing', { tool_type: 'python', parameters: params }],
    ['not a string', { name: 7, tool_type: 'python', parameters: params }],
  ])('gives nameless metadata (name %s) a low score, so the missing name is reported', (_label, value) => {
    const score = shinkaiDialect.detect(value, { path: 'metadata.json' });
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(0.5);
  });
});

describe('shinkai export', () => {
  it('writes one tool folder per tool, named after the canonical name', () => {
    const files = shinkaiDialect.export({
      tools: [
        { name: 'shinkai_coin_flip', title: 'Shinkai Coin Flip', derived: ['name'] },
        { name: 'shinkai_coin_flip', title: 'Coin Flip Two' },
      ],
    });
    expect(files.map((f) => f.path)).toEqual(['shinkai_coin_flip/metadata.json', 'shinkai_coin_flip-2/metadata.json']);
    expect(files.map((f) => f.format)).toEqual(['json', 'json']);
  });

  it('uses the canonical name when a tool from another format has no title, and leaves derived values out', () => {
    const [file] = shinkaiDialect.export({
      tools: [
        {
          name: 'github.create_issue',
          tags: ['github'],
          effects: { sideEffects: 'write' },
          auth: { required: true, type: 'oauth2', scopes: ['repo'], oauth: [{ name: 'github', scopes: ['repo'] }] },
          derived: ['auth.required', 'auth.type', 'auth.scopes'],
        },
      ],
    });
    expect(file?.value).toEqual({ name: 'github.create_issue', keywords: ['github'], oauth: [{ name: 'github', scopes: ['repo'] }] });
  });

  it('puts unknown item keys back on their items', () => {
    const { value, imported } = importFile(shinkaiDialect, `${FIXTURES}/unknown-fields/metadata.json`);
    const [file] = shinkaiDialect.export({ tools: imported.tools.map((t) => t.value) });
    expect(file?.value).toEqual(value);
  });
});
