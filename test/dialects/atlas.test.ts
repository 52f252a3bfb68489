import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { atlasDialect } from '../../src/dialects/atlas.js';
import { personaFromPath } from '../../src/dialects/atlas/layout.js';
import { canonicalName } from '../../src/dialects/names.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { Tool } from '../../src/model/schema.js';
import { importFile, runDialectContract } from './contract.js';

const FIXTURES = 'test/fixtures/atlas';
const SHARED = 'modules/Tools/tool_maps/functions.json';

/** Every JSON file under a folder, as cwd-relative paths. */
function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f).replace(/\\/g, '/'))
    .sort();
}

const goodFixtures = [...jsonFiles(`${FIXTURES}/modules`), ...jsonFiles('examples/manifests/atlas')];

runDialectContract(atlasDialect, { fixtures: goodFixtures, allowedCodes: ['UNKNOWN_FIELD'] });

/** Import a snippet written out as a file at `path`. */
function importSnippet(entries: unknown, path = SHARED, persona?: string): { doc: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(path, JSON.stringify(entries, null, 2));
  if (!parsed.file) throw new Error(`snippet does not parse: ${JSON.stringify(parsed.diagnostics)}`);
  const context = createImportContext(parsed.file, persona === undefined ? {} : { persona });
  return { doc: atlasDialect.import(context), diagnostics: context.diagnostics };
}

function onlyTool(entry: Record<string, unknown>, path = SHARED): Tool {
  const { doc } = importSnippet([entry], path);
  const tool = doc.tools[0];
  if (!tool) throw new Error('no tool imported');
  return tool.value;
}

describe('atlas: tool field mapping', () => {
  it.each<[string, Record<string, unknown>, Partial<Tool>]>([
    ['name, version, description', { name: 'google_search', version: '1.0.0', description: 'Search' }, { name: 'google_search', version: '1.0.0', description: 'Search' }],
    ['parameters -> inputSchema', { name: 't', parameters: { type: 'object', properties: { q: { type: 'string' } } } }, { inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
    ['side_effects -> effects.sideEffects', { name: 't', side_effects: 'filesystem' }, { effects: { sideEffects: 'filesystem' } }],
    ['safety_level -> effects.risk', { name: 't', safety_level: 'high' }, { effects: { risk: 'high' } }],
    ['default_timeout -> execution.timeoutSec', { name: 't', default_timeout: 45 }, { execution: { timeoutSec: 45 } }],
    ['allow_parallel -> execution.allowParallel', { name: 't', allow_parallel: false }, { execution: { allowParallel: false } }],
    ['requires_consent -> approval.consent', { name: 't', requires_consent: true }, { approval: { consent: true } }],
    ['idempotency_key boolean', { name: 't', idempotency_key: true }, { execution: { idempotencyKey: true } }],
    [
      'idempotency_key object: required is canonical, the rest an extension',
      { name: 't', idempotency_key: { required: true, scope: 'per-url', guidance: 'Use the URL.' } },
      { execution: { idempotencyKey: true }, extensions: { atlas: { idempotency_key: { scope: 'per-url', guidance: 'Use the URL.' } } } },
    ],
    [
      'auth with envs required/optional',
      { name: 't', auth: { required: true, type: 'api_key', envs: { A: { required: true }, B: { optional: true } }, docs: 'Set A.' } },
      { auth: { required: true, type: 'api_key', envs: { A: { required: true }, B: { optional: true } }, docs: 'Set A.' } },
    ],
    [
      'auth.env (singular) -> derived auth.envs entry',
      { name: 't', auth: { required: true, type: 'api_key', env: 'OWM_KEY' } },
      { auth: { required: true, type: 'api_key', envs: { OWM_KEY: { required: true } } }, derived: ['auth.envs'], extensions: { atlas: { auth: { env: 'OWM_KEY' } } } },
    ],
    ['auth.scopes', { name: 't', auth: { required: true, type: 'oauth2', scopes: ['calendar'] } }, { auth: { scopes: ['calendar'] } }],
    [
      'providers keep order, priority and config; health_check_interval is an extension',
      { name: 't', providers: [{ name: 'mcp', priority: 0, config: { server: 's', tool: 'x' } }, { name: 'openai', priority: 10, health_check_interval: 60 }] },
      {
        providers: [{ name: 'mcp', priority: 0, config: { server: 's', tool: 'x' } }, { name: 'openai', priority: 10 }],
        extensions: { atlas: { providers: [{}, { health_check_interval: 60 }] } },
      },
    ],
    ['cost_per_call in USD -> cost.estimatedDollars', { name: 't', cost_per_call: 0.005, cost_unit: 'USD' }, { cost: { estimatedDollars: 0.005 }, extensions: { atlas: { cost_unit: 'USD' } } }],
    ['cost_per_call in another unit stays an extension', { name: 't', cost_per_call: 2, cost_unit: 'credits' }, { extensions: { atlas: { cost_per_call: 2, cost_unit: 'credits' } } }],
    ['capabilities pass through verbatim', { name: 't', capabilities: ['web_search', 'web.search'] }, { capabilities: ['web_search', 'web.search'] }],
    ['enabled, tags, notes', { name: 't', enabled: false, tags: ['x'], notes: 'careful' }, { enabled: false, tags: ['x'], notes: 'careful' }],
    ['requires_flags and examples are extensions', { name: 't', requires_flags: { create: ['a'] }, examples: [{ q: 1 }] }, { extensions: { atlas: { requires_flags: { create: ['a'] }, examples: [{ q: 1 }] } } }],
  ])('%s', (_label, entry, expected) => {
    expect(onlyTool(entry)).toMatchObject(expected);
  });

  it('derives nothing else and fills no defaults', () => {
    const tool = onlyTool({ name: 'bare' });
    expect(tool).toStrictEqual({ name: 'bare' });
  });

  it.each([
    ['modules/Tools/tool_maps/functions.json', undefined],
    ['modules/Personas/Atlas/Toolbox/functions.json', ['Atlas']],
    ['repo/modules/Personas/MedicalAssistant/Toolbox/functions.json', ['MedicalAssistant']],
  ])('scope from the folder of %s', (path, personas) => {
    const tool = onlyTool({ name: 't' }, path);
    expect(tool.scope?.personas).toStrictEqual(personas);
    expect(tool.derived).toBeUndefined();
  });

  it('prefers context.persona over the folder', () => {
    const { doc } = importSnippet([{ name: 't' }], 'modules/Personas/Atlas/Toolbox/functions.json', 'Override');
    expect(doc.tools[0]?.value.scope).toStrictEqual({ personas: ['Override'] });
  });

  it('keeps unknown fields as extensions, with UNKNOWN_FIELD warnings at their keys', () => {
    const { doc, diagnostics } = importSnippet([{ name: 't', rate_limit: 5, auth: { required: true, vault: 'x' } }]);
    expect(doc.tools[0]?.value.extensions).toStrictEqual({ atlas: { rate_limit: 5, auth: { vault: 'x' } } });
    expect(diagnostics).toMatchObject([
      { code: 'UNKNOWN_FIELD', severity: 'warning', pointer: '/0/auth/vault' },
      { code: 'UNKNOWN_FIELD', severity: 'warning', pointer: '/0/rate_limit' },
    ]);
  });

  it('maps the fixture with unknown fields and reports each one', () => {
    const { diagnostics } = importFile(atlasDialect, `${FIXTURES}/modules/Personas/Atlas/Toolbox/functions.json`);
    expect(diagnostics.map((d) => [d.code, d.pointer, d.line])).toStrictEqual([
      ['UNKNOWN_FIELD', '/2/auth/envs/GOOGLE_API_KEY/rotation_days', 66],
      ['UNKNOWN_FIELD', '/2/auth/vault_path', 68],
      ['UNKNOWN_FIELD', '/2/providers/0/region', 71],
      ['UNKNOWN_FIELD', '/2/rate_limit', 60],
      ['UNKNOWN_FIELD', '/2/owner_team', 61],
    ]);
  });
});

describe('atlas: jobs and skills', () => {
  it('maps jobs.json entries, deriving a lowercase name from the PascalCase one', () => {
    const { imported } = importFile(atlasDialect, `${FIXTURES}/modules/Jobs/jobs.json`);
    expect(imported.jobs.map((j) => j.value)).toMatchObject([
      {
        name: 'daily_briefing',
        id: 'DailyBriefing',
        derived: ['name'],
        summary: expect.any(String),
        personas: ['Atlas', 'MedicalAssistant'],
        skills: ['ResearchBrief', 'Prioritization'],
        tools: ['google_search', 'webpage_fetch'],
        extensions: { atlas: { recurrence: { frequency: 'daily' }, accepts_external_requests: true } },
      },
      { name: 'weekly_calendar_review', skills: [], tools: ['calendar_list_events'] },
    ]);
    expect(imported.jobs[1]?.value).not.toHaveProperty('id');
    expect(imported.jobs[1]?.value).not.toHaveProperty('derived');
  });

  it('maps skills.json entries: summary -> description, required_* -> tools/capabilities', () => {
    const { imported } = importFile(atlasDialect, `${FIXTURES}/modules/Skills/skills.json`);
    expect(imported.skills[0]?.value).toMatchObject({
      name: 'research_brief',
      id: 'ResearchBrief',
      derived: ['name'],
      version: '1.0.0',
      description: 'Rapid web-research digest highlighting trusted findings.',
      tools: ['google_search', 'webpage_fetch'],
      capabilities: ['web.search', 'web.content.fetch'],
      tags: ['web_research', 'synthesis'],
      extensions: { atlas: { category: 'Knowledge Synthesis' } },
    });
  });

  it('remembers the persona folder of a job, to write it back there', () => {
    const { imported } = importFile(atlasDialect, `${FIXTURES}/modules/Personas/Atlas/Jobs/jobs.json`);
    const files = atlasDialect.export({ jobs: imported.jobs.map((j) => j.value) });
    expect(files.map((f) => f.path)).toStrictEqual(['modules/Personas/Atlas/Jobs/jobs.json']);
  });

  it.each([
    ['DailyBriefing', 'daily_briefing'],
    ['KPIReview', 'kpi_review'],
    ['Nikola Tesla', 'nikola_tesla'],
    ['already_snake', 'already_snake'],
  ])('canonicalName(%s) = %s', (source, expected) => {
    expect(canonicalName(source)).toBe(expected);
  });
});

describe('atlas: export', () => {
  const tool = (name: string, personas?: string[]): Tool => ({ name, ...(personas ? { scope: { personas } } : {}) });

  it('writes shared tools to tool_maps and persona tools into each persona toolbox', () => {
    const files = atlasDialect.export({ tools: [tool('a'), tool('b', ['Atlas', 'MedicalAssistant']), tool('c', ['Atlas'])] });
    expect(files.map((f) => [f.path, f.format, f.value])).toStrictEqual([
      ['modules/Tools/tool_maps/functions.json', 'json', [{ name: 'a' }]],
      ['modules/Personas/Atlas/Toolbox/functions.json', 'json', [{ name: 'b' }, { name: 'c' }]],
      ['modules/Personas/MedicalAssistant/Toolbox/functions.json', 'json', [{ name: 'b' }]],
    ]);
  });

  it('drops derived values and canonical fields ATLAS cannot express', () => {
    const files = atlasDialect.export({
      tools: [
        {
          name: 'x',
          effects: { sideEffects: 'write', mode: 'write' },
          execution: { timeoutSec: 30, retryClass: 'never' },
          latency: { p50Ms: 10 },
          derived: ['execution.timeoutSec'],
        },
      ],
    });
    expect(files[0]?.value).toStrictEqual([{ name: 'x', side_effects: 'write' }]);
  });

  it('writes a derived canonical name, since ATLAS entries need one', () => {
    const files = atlasDialect.export({ tools: [{ name: 'weather_lookup', id: 'Weather Lookup', derived: ['name'] }] });
    expect(files[0]?.value).toStrictEqual([{ name: 'weather_lookup' }]);
  });

  it('lays provider extras only over providers the canonical entry still has', () => {
    const extensions = { atlas: { providers: [{ health_check_interval: 60 }, { health_check_interval: 90 }] } };
    const files = atlasDialect.export({
      tools: [
        { name: 'one', providers: [{ name: 'mcp' }], extensions },
        { name: 'none', extensions },
      ],
    });
    expect(files[0]?.value).toStrictEqual([{ name: 'one', providers: [{ name: 'mcp', health_check_interval: 60 }] }, { name: 'none' }]);
  });

  it('writes the singular auth.env back instead of the derived envs map', () => {
    const source = [{ name: 'g', auth: { required: true, type: 'api_key', env: 'OWM_KEY' } }];
    const { doc } = importSnippet(source);
    expect(atlasDialect.export({ tools: doc.tools.map((t) => t.value) })[0]?.value).toStrictEqual(source);
  });
});

describe('atlas: diagnostics on broken files', () => {
  const broken = (file: string) => importFile(atlasDialect, `${FIXTURES}/broken/${file}`);
  const found = (diagnostics: Diagnostic[]) => diagnostics.map((d) => ({ code: d.code, pointer: d.pointer, line: d.line }));

  it('reports wrong types at their pointers and keeps the rest of the entry', () => {
    const { imported, diagnostics } = broken('wrong-types.json');
    expect(found(diagnostics)).toEqual(
      expect.arrayContaining([
        { code: 'TYPE_MISMATCH', pointer: '/0/side_effects', line: 4 },
        { code: 'TYPE_MISMATCH', pointer: '/0/default_timeout', line: 5 },
        { code: 'TYPE_MISMATCH', pointer: '/0/allow_parallel', line: 6 },
        { code: 'TYPE_MISMATCH', pointer: '/0/requires_consent', line: 7 },
        { code: 'TYPE_MISMATCH', pointer: '/0/auth', line: 8 },
        { code: 'TYPE_MISMATCH', pointer: '/0/providers', line: 9 },
        { code: 'TYPE_MISMATCH', pointer: '/0/parameters', line: 10 },
        { code: 'TYPE_MISMATCH', pointer: '/1/auth/required', line: 14 },
        { code: 'TYPE_MISMATCH', pointer: '/1/auth/envs/API_KEY', line: 14 },
        { code: 'TYPE_MISMATCH', pointer: '/1/idempotency_key', line: 15 },
        { code: 'MISSING_FIELD', pointer: '/1/providers/0', line: 16 },
        { code: 'TYPE_MISMATCH', pointer: '/1/providers/1', line: 16 },
        { code: 'TYPE_MISMATCH', pointer: '/1/providers/2/config', line: 16 },
        { code: 'TYPE_MISMATCH', pointer: '/2', line: 18 },
        { code: 'TYPE_MISMATCH', pointer: '/3/name', line: 20 },
      ]),
    );
    expect(diagnostics).toHaveLength(15);
    expect(imported.tools.map((t) => t.value)).toStrictEqual([
      { name: 'bad_types' },
      { name: 'bad_nested', auth: { envs: {} }, providers: [{ name: 'mcp' }] },
    ]);
  });

  it('reports values outside the closed vocabularies', () => {
    const { imported, diagnostics } = broken('unknown-enum.json');
    expect(found(diagnostics)).toStrictEqual([
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/0/side_effects', line: 4 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/0/safety_level', line: 5 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/0/auth/type', line: 6 },
    ]);
    expect(imported.tools[0]?.value).toStrictEqual({ name: 'deploy_service', auth: { required: true }, execution: { timeoutSec: 60 } });
  });

  it('skips entries without a usable name', () => {
    const { imported, diagnostics } = broken('missing-name.json');
    expect(found(diagnostics)).toStrictEqual([
      { code: 'MISSING_FIELD', pointer: '/0', line: 2 },
      { code: 'MISSING_FIELD', pointer: '/1/name', line: 7 },
    ]);
    expect(imported.tools).toMatchObject([{ value: { name: 'kept_tool' }, pointer: '/2' }]);
  });

  it('rejects timeouts that are not whole positive seconds, and negative costs', () => {
    const { imported, diagnostics } = broken('negative-timeout.json');
    expect(found(diagnostics)).toStrictEqual([
      { code: 'INVALID_VALUE', pointer: '/0/default_timeout', line: 4 },
      { code: 'INVALID_VALUE', pointer: '/1/default_timeout', line: 8 },
      { code: 'TYPE_MISMATCH', pointer: '/2/default_timeout', line: 12 },
      { code: 'INVALID_VALUE', pointer: '/3/cost_per_call', line: 16 },
    ]);
    expect(imported.tools.every((t) => t.value.execution === undefined && t.value.cost === undefined)).toBe(true);
  });

  it('reports a document that is not an array', () => {
    const { imported, diagnostics } = broken('not-an-array.json');
    expect(found(diagnostics)).toStrictEqual([{ code: 'TYPE_MISMATCH', pointer: '', line: 1 }]);
    expect(imported.tools).toStrictEqual([]);
  });

  it('reports broken job entries', () => {
    const { imported, diagnostics } = broken('Jobs/jobs.json');
    expect(found(diagnostics)).toStrictEqual([
      { code: 'MISSING_FIELD', pointer: '/0', line: 2 },
      { code: 'TYPE_MISMATCH', pointer: '/1/personas', line: 8 },
      { code: 'TYPE_MISMATCH', pointer: '/1/required_tools/1', line: 9 },
    ]);
    expect(imported.jobs.map((j) => j.value)).toStrictEqual([{ name: 'bad_job', id: 'BadJob', derived: ['name'], tools: ['google_search'] }]);
  });

  it('never throws, whatever the document', () => {
    for (const value of [null, 1, 'x', [null], [[]], [{ name: 'x', auth: null, providers: [null] }]]) {
      expect(() => importSnippet(value)).not.toThrow();
    }
  });
});

describe('atlas: detection', () => {
  const score = (value: unknown, path = 'manifest.json') => atlasDialect.detect(value, { path });

  it.each(goodFixtures)('scores %s above 0.5', (fixture) => {
    const value: unknown = JSON.parse(readFileSync(fixture, 'utf8'));
    expect(score(value, fixture)).toBeGreaterThan(0.5);
  });

  it('recognises ATLAS entries by their keys, wherever the file is', () => {
    expect(score([{ name: 'x', side_effects: 'none', default_timeout: 5 }], 'tools/mine.json')).toBeGreaterThan(0.5);
    expect(score([{ name: 'DailyBriefing', required_skills: [], task_graph: [] }], 'jobs.json')).toBeGreaterThan(0.5);
    expect(score([{ name: 'Brief', instruction_prompt: 'x', required_capabilities: [] }], 'skills.json')).toBeGreaterThan(0.5);
  });

  it('trusts the Jobs/ and Skills/ folders for sparse entries', () => {
    const sparse = [{ name: 'Review', summary: 'Weekly review', personas: ['Atlas'], required_tools: ['calendar_list_events'] }];
    expect(score(sparse, 'modules/Personas/Atlas/Jobs/jobs.json')).toBeGreaterThan(0.5);
    expect(score(sparse, 'config/registry/jobs.json')).toBe(0);
  });

  it('recognises plain functions in a functions.json, but not elsewhere', () => {
    const openAi = [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } }];
    expect(score(openAi, 'modules/Personas/Atlas/Toolbox/functions.json')).toBeGreaterThan(0.5);
    expect(score(openAi, 'tools.json')).toBeLessThanOrEqual(0.4);
  });

  it.each<[string, unknown]>([
    ['a canonical toolcap document', { toolcap: 1, tools: [{ name: 'x', effects: { sideEffects: 'none' } }] }],
    ['a JSON Schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { name: { type: 'string' } } }],
    ['a JSON Schema of an array', { type: 'array', items: { type: 'object', required: ['name', 'side_effects'] } }],
    [
      'a Pylot manifest',
      { schema_version: '1.0', metadata: { name: 'default' }, tools: [{ name: 'git_status', module: 'src.tools.git_status', runtime: { timeout_seconds: 10 } }] },
    ],
    ['a capability manifest', { name: 'github.create_pull_request', summary: 'Open a PR', capabilities: { mode: 'write', auth: { scope: 'repo' } } }],
    ['a list of capability manifests', [{ name: 'github.diff_branch', summary: 'Diff', capabilities: { mode: 'read' } }]],
    [
      'Xena tool entries',
      [{ id: 'tool.tasks.example', name: 'Tasks Example', version: '1.0.0', surface: { domains: ['tasks'] }, capabilities: ['tasks.probe'], riskLevel: 'low' }],
    ],
    ['a Xena registry file', { tools: [{ id: 'tool.x', name: 'X', surface: {} }] }],
    ['Shinkai tool metadata', { name: 'Weather', author: '@@me', keywords: ['weather'], tool_type: 'typescript', parameters: { type: 'object', properties: {} }, result: {} }],
    ['an empty array', []],
    ['an array of strings', ['a', 'b']],
  ])('returns 0 for %s', (_label, value) => {
    expect(score(value)).toBe(0);
    expect(score(value, 'modules/Tools/tool_maps/functions.json.bak')).toBe(0);
  });

  it('still recognises a file with a stray non-object entry, so its problems get reported', () => {
    const value: unknown = JSON.parse(readFileSync(`${FIXTURES}/broken/wrong-types.json`, 'utf8'));
    expect(score(value, 'wrong-types.json')).toBeGreaterThan(0.5);
  });

  it('returns 0 for Xena entries even in a functions.json', () => {
    expect(score([{ id: 'tool.x', name: 'x', surface: {}, parameters: {} }], SHARED)).toBe(0);
  });

  it('reads personas from folder names as spelled', () => {
    expect(personaFromPath('C:\\atlas\\modules\\Personas\\Nikola Tesla\\Toolbox\\functions.json')).toBe('Nikola Tesla');
    expect(personaFromPath(SHARED)).toBeUndefined();
  });
});
