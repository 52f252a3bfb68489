import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { xenaDialect } from '../../src/dialects/xena.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import { complete } from '../../src/model/derive.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { importFile, runDialectContract } from './contract.js';

const FIXTURES = 'test/fixtures/xena';
const EXAMPLES = 'examples/manifests/xena';

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') ? [path] : [];
  });
}

const clean = [...jsonFiles(join(FIXTURES, 'wrapped')), ...jsonFiles(join(FIXTURES, 'bare')), ...jsonFiles(join(FIXTURES, 'learned')), ...jsonFiles(EXAMPLES)];

runDialectContract(xenaDialect, { fixtures: clean });
runDialectContract(xenaDialect, { fixtures: jsonFiles(join(FIXTURES, 'extras')), allowedCodes: ['UNKNOWN_FIELD'] });
runDialectContract(xenaDialect, { fixtures: jsonFiles(join(FIXTURES, 'lint')), allowedCodes: ['CONTRADICTORY_CLAIM'] });

/** Import a value as if it were the file at `path`. */
function importValue(value: unknown, path = 'config/registry/tools.json'): { imported: ImportedDocument; diagnostics: Diagnostic[] } {
  const parsed = parseSource(path, JSON.stringify(value, null, 2));
  if (!parsed.file) throw new Error('test input does not parse');
  const context = createImportContext(parsed.file);
  return { imported: xenaDialect.import(context), diagnostics: context.diagnostics };
}

/** A complete, valid Xena tool entry to vary. */
function tool(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'tool.example.read',
    name: 'Example Read',
    version: '1.0.0',
    description: 'Reads an example.',
    enabled: true,
    tags: ['example'],
    metadata: {},
    surface: {
      domains: ['research'],
      entities: ['example.item'],
      operations: ['read'],
      taskRoles: ['observer'],
      authority: 0.5,
      freshnessSlaSec: 60,
    },
    capabilities: ['example.read'],
    deterministic: true,
    riskLevel: 'low',
    ...overrides,
  };
}

const surfaceWith = (operations: string[], taskRoles: string[] = ['observer']) => ({
  domains: ['tasks'],
  entities: [],
  operations,
  taskRoles,
  authority: 0.5,
  freshnessSlaSec: 60,
});

describe('xena tool mapping', () => {
  it.each([
    {
      title: 'base fields: id -> id and name, name -> title',
      entry: tool(),
      expected: {
        name: 'tool.example.read',
        id: 'tool.example.read',
        title: 'Example Read',
        version: '1.0.0',
        description: 'Reads an example.',
        enabled: true,
        tags: ['example'],
        metadata: {},
        capabilities: ['example.read'],
        derived: ['effects.mode'],
      },
    },
    {
      title: 'an id with capitals gives a lower-case derived name',
      entry: tool({ id: 'tool.Linear.IssueRead' }),
      expected: { name: 'tool.linear.issue_read', id: 'tool.Linear.IssueRead', derived: ['name', 'effects.mode'] },
    },
    {
      title: 'surface is carried over field by field',
      entry: tool(),
      expected: {
        surface: { domains: ['research'], entities: ['example.item'], operations: ['read'], taskRoles: ['observer'], authority: 0.5, freshnessSlaSec: 60 },
      },
    },
    {
      title: 'deterministic and riskLevel -> effects',
      entry: tool({ deterministic: false, riskLevel: 'high' }),
      expected: { effects: { deterministic: false, risk: 'high', mode: 'read' } },
    },
    {
      title: 'read-only operations derive mode read',
      entry: tool({ surface: surfaceWith(['probe', 'list', 'read', 'search']) }),
      expected: { effects: { mode: 'read' }, derived: ['effects.mode'] },
    },
    {
      title: 'one writing operation derives mode write',
      entry: tool({ surface: surfaceWith(['read', 'classify', 'reply']) }),
      expected: { effects: { mode: 'write' }, derived: ['effects.mode'] },
    },
    {
      title: 'metadata.workflowRoutes -> workflowRoutes, the rest stays metadata',
      entry: tool({
        metadata: {
          owner: 'platform',
          workflowRoutes: [
            { workflowType: 'agentmail', workflowName: 'agentmailWorkflow', signalName: 'manusEvent', dispatchMode: 'signalWithStart', bootstrap: 'agentmail' },
          ],
        },
      }),
      expected: {
        metadata: { owner: 'platform' },
        workflowRoutes: [
          { workflowType: 'agentmail', workflowName: 'agentmailWorkflow', signalName: 'manusEvent', dispatchMode: 'signalWithStart', bootstrap: 'agentmail' },
        ],
      },
    },
    {
      title: 'inputSchema and outputSchema are kept as JSON Schemas',
      entry: tool({ inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, outputSchema: { type: 'object' } }),
      expected: { inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, outputSchema: { type: 'object' } },
    },
    {
      title: 'unknown fields go to extensions.xena in the source shape',
      entry: tool({ owner: 'ops', surface: { ...surfaceWith(['read']), 'x-tier': 'gold' } }),
      expected: { extensions: { xena: { owner: 'ops', surface: { 'x-tier': 'gold' } } } },
    },
  ])('$title', ({ entry, expected }) => {
    const { imported } = importValue({ tools: [entry] });
    expect(imported.tools[0]?.value).toMatchObject(expected);
    expect(imported.tools[0]?.pointer).toBe('/tools/0');
  });

  it('leaves out what the source does not say (no conservative defaults)', () => {
    const { imported } = importValue({ tools: [{ id: 'tool.x', surface: surfaceWith(['read']) }] });
    const value = imported.tools[0]?.value;
    expect(value?.effects).toEqual({ mode: 'read' });
    expect(value?.approval).toBeUndefined();
    expect(value?.execution).toBeUndefined();
    expect(value?.enabled).toBeUndefined();
  });

  it.each([
    ['probe', 'read'],
    ['list', 'read'],
    ['read', 'read'],
    ['search', 'read'],
    ['analyze', 'read'],
    ['classify', 'read'],
    ['verify', 'read'],
    ['write', 'write'],
    ['reply', 'write'],
    ['comment', 'write'],
    ['execute', 'write'],
    ['start', 'write'],
    ['stop', 'write'],
    ['restart', 'write'],
  ])('operation %s alone derives mode %s', (operation, mode) => {
    const { imported } = importValue({ tools: [tool({ surface: surfaceWith([operation]) })] });
    expect(imported.tools[0]?.value.effects?.mode).toBe(mode);
  });

  it('derives no mode when there are no operations', () => {
    const { imported } = importValue({ tools: [tool({ surface: { ...surfaceWith([]), operations: undefined } })] });
    expect(imported.tools[0]?.value.effects?.mode).toBeUndefined();
    expect(imported.tools[0]?.value.derived).toBeUndefined();
  });
});

describe('xena skill and agent mapping', () => {
  it.each([
    {
      title: 'skill: requiredCapabilities -> capabilities, preferredToolIds -> tools, the rest to extensions',
      path: 'config/registry/skills.json',
      doc: {
        skills: [
          {
            id: 'skill.operator.status_snapshot',
            name: 'Operator Status Snapshot',
            version: '1.0.0',
            description: 'Snapshot of live work.',
            enabled: true,
            tags: ['operator'],
            metadata: {},
            intentTypes: ['research'],
            requiredCapabilities: ['tasks.probe'],
            preferredToolIds: ['tool.tasks.linear.assigned'],
            preferredResourceIds: ['resource.openai.reply'],
            guardrails: ['Live data only'],
            outputContract: { required: ['reply'] },
          },
        ],
      },
      kind: 'skills' as const,
      expected: {
        name: 'skill.operator.status_snapshot',
        id: 'skill.operator.status_snapshot',
        title: 'Operator Status Snapshot',
        capabilities: ['tasks.probe'],
        tools: ['tool.tasks.linear.assigned'],
        metadata: {},
        extensions: {
          xena: {
            intentTypes: ['research'],
            preferredResourceIds: ['resource.openai.reply'],
            guardrails: ['Live data only'],
            outputContract: { required: ['reply'] },
          },
        },
      },
    },
    {
      title: 'agent: skillIds -> skills, toolIds -> tools, persona kept, constraints canonical, weight to extensions',
      path: 'config/registry/agents.json',
      doc: {
        agents: [
          {
            id: 'Agent.Operator',
            name: 'Operator',
            version: '1.0.0',
            description: 'Operator agent.',
            intentTypes: ['research'],
            persona: 'operator',
            skillIds: ['skill.operator.status_snapshot'],
            toolIds: ['tool.communication.email.reply'],
            weight: 10,
            constraints: { maxRiskLevel: 'medium' },
          },
        ],
      },
      kind: 'agents' as const,
      expected: {
        name: 'agent.operator',
        id: 'Agent.Operator',
        derived: ['name'],
        persona: 'operator',
        skills: ['skill.operator.status_snapshot'],
        tools: ['tool.communication.email.reply'],
        constraints: { maxRiskLevel: 'medium' },
        extensions: { xena: { intentTypes: ['research'], weight: 10 } },
      },
    },
    {
      title: 'a bare array elsewhere is sorted by its entries: skills',
      path: 'registry/learned.json',
      doc: [{ id: 'skill.x', name: 'X', version: '1', description: 'x', intentTypes: ['coding'], requiredCapabilities: ['code.plan'] }],
      kind: 'skills' as const,
      expected: { name: 'skill.x', capabilities: ['code.plan'] },
    },
  ])('$title', ({ path, doc, kind, expected }) => {
    const { imported, diagnostics } = importValue(doc, path);
    expect(diagnostics).toEqual([]);
    expect(imported[kind][0]?.value).toMatchObject(expected);
  });
});

describe('xena diagnostics', () => {
  const diagnose = (name: string) => importFile(xenaDialect, join(FIXTURES, 'broken', name));

  it('reports unknown surface values and risk levels, and leaves them out', () => {
    const { imported, diagnostics } = diagnose('enums.json');
    expect(diagnostics).toMatchObject([
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/surface/domains/0', line: 12 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/surface/operations/1', line: 14 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/surface/taskRoles/0', line: 15 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/riskLevel', line: 21 },
    ]);
    expect(imported.tools[0]?.value.surface).toMatchObject({ domains: ['research'], operations: ['read'], taskRoles: [] });
    expect(imported.tools[0]?.value.effects?.risk).toBeUndefined();
  });

  it('reports authority and freshness out of range and empty domains', () => {
    const { imported, diagnostics } = diagnose('ranges.json');
    expect(diagnostics).toMatchObject([
      { code: 'INVALID_VALUE', pointer: '/tools/0/surface/domains', line: 12 },
      { code: 'INVALID_VALUE', pointer: '/tools/0/surface/authority', line: 16 },
      { code: 'INVALID_VALUE', pointer: '/tools/0/surface/freshnessSlaSec', line: 17 },
    ]);
    const surface = imported.tools[0]?.value.surface;
    expect(surface?.authority).toBeUndefined();
    expect(surface?.freshnessSlaSec).toBeUndefined();
    expect(surface?.domains).toBeUndefined();
  });

  it('reports every missing contract field at its entry and skips entries without an id', () => {
    const { imported, diagnostics } = diagnose('missing.json');
    const missing = (pointer: string, line: number, count: number) =>
      Array.from({ length: count }, () => ({ code: 'MISSING_FIELD', severity: 'error', pointer, line }));
    expect(diagnostics).toMatchObject([
      ...missing('/tools/0', 3, 1),
      ...missing('/tools/1/surface', 23, 2),
      ...missing('/tools/2', 33, 1),
      { code: 'TYPE_MISMATCH', pointer: '/tools/3/id', line: 38 },
      ...missing('/tools/4', 41, 9),
    ]);
    expect(imported.tools.map((t) => t.pointer)).toEqual(['/tools/0', '/tools/1', '/tools/4']);
  });

  it('reports bad workflow routes', () => {
    const { imported, diagnostics } = diagnose('routes.json');
    expect(diagnostics).toMatchObject([
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/metadata/workflowRoutes/0/dispatchMode', line: 16 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/tools/0/metadata/workflowRoutes/0/bootstrap', line: 17 },
      { code: 'MISSING_FIELD', pointer: '/tools/0/metadata/workflowRoutes/1', line: 19 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/0/metadata/workflowRoutes/2', line: 24 },
      { code: 'TYPE_MISMATCH', pointer: '/tools/1/metadata/workflowRoutes', line: 46 },
    ]);
    expect(imported.tools[0]?.value.workflowRoutes).toEqual([
      { workflowType: 'agentmail', workflowName: 'agentmailWorkflow', signalName: 'manusEvent' },
      { workflowType: 'research', workflowName: 'researchWorkflow', dispatchMode: 'signalOnly' },
    ]);
    expect(imported.tools[1]?.value.workflowRoutes).toBeUndefined();
  });

  it('reports wrong types at their pointers', () => {
    const { imported, diagnostics } = diagnose('types.json');
    expect(diagnostics).toMatchObject(
      [
        ['/tools/0/version', 6],
        ['/tools/0/enabled', 8],
        ['/tools/0/tags', 9],
        ['/tools/0/metadata', 10],
        ['/tools/0/surface', 11],
        ['/tools/0/capabilities/1', 12],
        ['/tools/0/deterministic', 13],
        ['/tools/0/inputSchema', 15],
        ['/tools/1', 17],
      ].map(([pointer, line]) => ({ code: 'TYPE_MISMATCH', pointer, line })),
    );
    expect(imported.tools[0]?.value).toMatchObject({ capabilities: ['linear.issue.read'] });
  });

  it('reports bad skill and agent fields', () => {
    expect(diagnose('skills.json').diagnostics).toMatchObject([
      { code: 'TYPE_MISMATCH', pointer: '/skills/0/requiredCapabilities', line: 9 },
      { code: 'TYPE_MISMATCH', pointer: '/skills/0/preferredToolIds/1', line: 10 },
      { code: 'TYPE_MISMATCH', pointer: '/skills/0/intentTypes', line: 8 },
      { code: 'TYPE_MISMATCH', pointer: '/skills/0/outputContract', line: 11 },
    ]);
    expect(diagnose('agents.json').diagnostics).toMatchObject([
      { code: 'MISSING_FIELD', pointer: '/agents/0', line: 3 },
      { code: 'TYPE_MISMATCH', pointer: '/agents/0/skillIds', line: 8 },
      { code: 'INVALID_VALUE', pointer: '/agents/0/weight', line: 10 },
      { code: 'UNKNOWN_ENUM_VALUE', pointer: '/agents/0/constraints/maxRiskLevel', line: 11 },
      { code: 'TYPE_MISMATCH', pointer: '/agents/0/constraints/requireDeterministicTools', line: 11 },
    ]);
  });

  it('reports documents that are not registry files', () => {
    expect(diagnose('scalar.json').diagnostics).toMatchObject([{ code: 'TYPE_MISMATCH', pointer: '', line: 1 }]);
    expect(diagnose('no-list.json').diagnostics).toMatchObject([
      { code: 'MISSING_FIELD', pointer: '', line: 1 },
      { code: 'UNKNOWN_FIELD', severity: 'warning', pointer: '/tool', line: 2 },
    ]);
  });

  it('warns when tasks.probe and the source role do not come together', () => {
    const { diagnostics } = importFile(xenaDialect, join(FIXTURES, 'lint/config/registry/tools.json'));
    expect(diagnostics).toMatchObject([
      { code: 'CONTRADICTORY_CLAIM', severity: 'warning', pointer: '/tools/0/surface/taskRoles/0', line: 15 },
      { code: 'CONTRADICTORY_CLAIM', severity: 'warning', pointer: '/tools/1/capabilities/1', line: 39 },
    ]);
  });

  it('never throws on hostile shapes', () => {
    for (const value of [null, 42, 'x', [], [null, 1, 'x'], { tools: 'x' }, { tools: [{ id: 'a', surface: null, metadata: { workflowRoutes: [null] } }] }]) {
      expect(() => importValue(value)).not.toThrow();
    }
  });
});

describe('xena detection', () => {
  it.each(jsonFiles(FIXTURES).filter((f) => !f.includes('broken')).concat(jsonFiles(EXAMPLES)))('%s scores above 0.5', (file) => {
    const { value } = importFile(xenaDialect, file);
    expect(xenaDialect.detect(value, { path: file })).toBeGreaterThan(0.5);
  });

  it('recognises a wrapped tools list by shape alone', () => {
    expect(xenaDialect.detect({ tools: [tool()] }, { path: 'somewhere/registry.json' })).toBeGreaterThan(0.5);
  });

  const others: Array<[string, unknown, string]> = [
    ['a canonical manifest', { toolcap: 1, tools: [{ name: 'x', surface: { domains: ['tasks'] } }] }, 'toolcap.yaml'],
    ['a JSON Schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { id: { type: 'string' } } }, 'schema.json'],
    [
      'an ATLAS functions.json',
      [{ name: 'google_search', version: '1.0.0', side_effects: 'none', default_timeout: 30, parameters: { type: 'object', properties: {} } }],
      'atlas/functions.json',
    ],
    ['an ATLAS array at a Xena path', [{ name: 'google_search', side_effects: 'none', parameters: { type: 'object' } }], 'config/registry/tools.json'],
    [
      'a Pylot manifest',
      { schema_version: '1.0', metadata: { name: 'default' }, tools: [{ name: 'git_status', module: 'src.bridge.tools.git_status', class_name: 'GitStatusTool' }] },
      'tools/manifest.json',
    ],
    [
      'a Shinkai metadata file',
      { id: 'shinkai-tool-echo', name: 'Echo', author: '@@official.shinkai', keywords: ['echo'], tool_type: 'deno', parameters: { type: 'object' }, result: {}, tools: ['local:::echo'] },
      'tools/echo/metadata.json',
    ],
    [
      'a capability manifest',
      { name: 'github.create_pull_request', summary: 'Open a PR', capabilities: { mode: 'write', sideEffects: { external: true } } },
      'manifests/github.yaml',
    ],
    ['an OpenAI tools array', [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }], 'openai-tools.json'],
    ['an MCP tools/list result', { tools: [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' } }] }, 'mcp/tools.json'],
  ];
  it.each(others)('returns 0 for %s', (_title, value, path) => {
    expect(xenaDialect.detect(value, { path })).toBe(0);
  });
});

describe('xena export', () => {
  it('writes a tool from another dialect with its name as id, leaving derived values out', () => {
    const files = xenaDialect.export({
      tools: [
        complete({
          name: 'github.create_pull_request',
          title: 'Create pull request',
          surface: { domains: ['coding'], operations: ['write'] },
          effects: { risk: 'medium' },
          capabilities: ['code.pull_request.create'],
        }),
      ],
    });
    expect(files).toEqual([
      {
        path: 'config/registry/tools.json',
        format: 'json',
        value: {
          tools: [
            {
              id: 'github.create_pull_request',
              name: 'Create pull request',
              surface: { domains: ['coding'], operations: ['write'] },
              capabilities: ['code.pull_request.create'],
              riskLevel: 'medium',
            },
          ],
        },
      },
    ]);
  });

  it('gives back the source after the loader completes derived fields', () => {
    const file = join(FIXTURES, 'wrapped/config/registry/tools.json');
    const { value, imported } = importFile(xenaDialect, file);
    const files = xenaDialect.export({ tools: imported.tools.map((t) => complete(t.value)) });
    expect(files[0]?.value).toStrictEqual(value);
  });

  it('writes one file per kind, keeping a bare array bare', () => {
    const tools = importFile(xenaDialect, join(FIXTURES, 'bare/config/registry/tools.json'));
    const skills = importFile(xenaDialect, join(FIXTURES, 'wrapped/config/registry/skills.json'));
    const files = xenaDialect.export({
      ...(tools.imported.bundle ? { bundle: tools.imported.bundle } : {}),
      tools: tools.imported.tools.map((t) => t.value),
      skills: skills.imported.skills.map((s) => s.value),
    });
    expect(files.map((f) => f.path)).toEqual(['config/registry/tools.json', 'config/registry/skills.json']);
    expect(Array.isArray(files[0]?.value)).toBe(true);
    expect(files[1]?.value).toStrictEqual(skills.value);
  });

  it('writes an empty tools file for an empty fragment', () => {
    expect(xenaDialect.export({})).toEqual([{ path: 'config/registry/tools.json', format: 'json', value: { tools: [] } }]);
  });

  it('maps every canonical tool field it fills back to a source pointer', () => {
    expect(xenaDialect.fieldMaps.tool).toMatchObject({
      name: '/id',
      title: '/name',
      'effects.risk': '/riskLevel',
      'effects.deterministic': '/deterministic',
      'effects.mode': '/surface/operations',
      workflowRoutes: '/metadata/workflowRoutes',
      'surface.freshnessSlaSec': '/surface/freshnessSlaSec',
    });
  });
});
