/**
 * A finding on a canonical entry lands on the line of its source format that
 * says it: the dialect's field map of the entry's kind, not of tools.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getDialect } from '../../src/dialects/lookup.js';
import { fieldSuffix, type EntryKind } from '../../src/dialects/types.js';
import { loadLayers, type LoadedDocument } from '../../src/load/loader.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { createSchemaChecker } from '../../src/validate/json-schema.js';
import { entryLocator } from '../../src/validate/locate.js';
import { lintEntryName, lintReferences, lintTool } from '../../src/validate/rules.js';

const root = mkdtempSync(join(tmpdir(), 'toolcap-locate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const XENA_SKILLS = `{
  "skills": [
    {
      "id": "skill.coding.review",
      "name": "Review",
      "version": "1.0.0",
      "description": "Review a change.",
      "intentTypes": ["coding"],
      "requiredCapabilities": ["code.review"],
      "preferredToolIds": ["tool.missing"]
    }
  ]
}
`;

const XENA_AGENTS = `{
  "agents": [
    {
      "id": "agent.coding.primary",
      "name": "Coding Primary",
      "version": "1.0.0",
      "description": "Primary coding agent.",
      "intentTypes": ["coding"],
      "skillIds": ["skill.missing"],
      "toolIds": ["tool.missing"]
    }
  ]
}
`;

const XENA_TOOLS = `{
  "tools": [
    {
      "id": "tool.tasks.probe",
      "name": "Probe",
      "version": "1.0.0",
      "description": "Probe the task source.",
      "riskLevel": "low",
      "deterministic": true,
      "capabilities": ["Tasks.Probe"],
      "surface": { "operations": ["read"] }
    }
  ]
}
`;

const ATLAS_SKILLS = `[
  {
    "name": "ResearchBrief",
    "summary": "Write a research brief.",
    "required_tools": ["missing_tool"]
  }
]
`;

const ATLAS_JOBS = `[
  {
    "name": "DailyBriefing",
    "summary": "Brief every morning.",
    "required_skills": ["MissingSkill"],
    "required_tools": []
  }
]
`;

const TOOLCAP = `toolcap: 1
skills:
  - name: Review
    tools: [missing.tool]
agents:
  - name: coder
    skills: [missing_skill]
jobs:
  - name: nightly
    tools: [missing.tool]
`;

/** Write the files below a fresh folder and load it as one layer. */
function load(files: Record<string, string>): LoadedDocument[] {
  const dir = mkdtempSync(join(root, 'case-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const { layers } = loadLayers([dir]);
  return layers.flatMap((l) => l.documents);
}

/** Run the rules on every entry of the documents, located the way the catalog locates them. */
function lintAll(docs: readonly LoadedDocument[]): Diagnostic[] {
  const documents = new Map(docs.map((d) => [d.file.path, d]));
  const checkSchema = createSchemaChecker({ compile: false });
  const out: Diagnostic[] = [];
  const none = { tools: new Set<string>(), skills: new Set<string>() };
  for (const doc of docs) {
    const at = (kind: EntryKind, pointer: string) => entryLocator(kind, { origins: [{ file: doc.file.path, pointer }] }, documents);
    for (const { value, pointer } of doc.imported.tools) out.push(...lintTool(value, at('tool', pointer), checkSchema));
    const kinds = [
      ['skill', 'Skill', doc.imported.skills],
      ['agent', 'Agent', doc.imported.agents],
      ['job', 'Job', doc.imported.jobs],
    ] as const;
    for (const [kind, what, entries] of kinds) {
      for (const { value, pointer } of entries) {
        const locate = at(kind, pointer);
        const from = `${what} "${value.name}"`;
        out.push(...lintEntryName(what, value.name, locate));
        out.push(
          ...lintReferences(
            [
              { from, kind: 'tool', names: value.tools, field: 'tools', locate: () => locate('tools') },
              { from, kind: 'skill', names: 'skills' in value ? value.skills : undefined, field: 'skills', locate: () => locate('skills') },
            ],
            none,
          ),
        );
      }
    }
  }
  return out;
}

describe('findings on skills, agents and jobs point into their own source fields', () => {
  it.each<[string, Record<string, string>, Array<[string, string, string, number]>]>([
    ['a Xena skill', { 'config/registry/skills.json': XENA_SKILLS }, [['UNKNOWN_REFERENCE', 'skills.json', '/skills/0/preferredToolIds', 10]]],
    [
      'a Xena agent',
      { 'config/registry/agents.json': XENA_AGENTS },
      [
        ['UNKNOWN_REFERENCE', 'agents.json', '/agents/0/toolIds', 10],
        ['UNKNOWN_REFERENCE', 'agents.json', '/agents/0/skillIds', 9],
      ],
    ],
    ['a Xena tool', { 'config/registry/tools.json': XENA_TOOLS }, [['INVALID_CAPABILITY_NAME', 'tools.json', '/tools/0/capabilities', 10]]],
    ['an ATLAS skill', { 'modules/Skills/skills.json': ATLAS_SKILLS }, [['UNKNOWN_REFERENCE', 'skills.json', '/0/required_tools', 5]]],
    ['an ATLAS job', { 'modules/Jobs/jobs.json': ATLAS_JOBS }, [['UNKNOWN_REFERENCE', 'jobs.json', '/0/required_skills', 5]]],
    [
      'toolcap skills, agents and jobs',
      { 'toolcap.yaml': TOOLCAP },
      [
        ['INVALID_TOOL_NAME', 'toolcap.yaml', '/skills/0/name', 3],
        ['UNKNOWN_REFERENCE', 'toolcap.yaml', '/skills/0/tools', 4],
        ['UNKNOWN_REFERENCE', 'toolcap.yaml', '/agents/0/skills', 7],
        ['UNKNOWN_REFERENCE', 'toolcap.yaml', '/jobs/0/tools', 10],
      ],
    ],
  ])('%s', (_name, files, expected) => {
    const found = lintAll(load(files)).map((d) => [d.code, d.file?.split('/').pop(), d.pointer, d.line]);
    expect(found).toEqual(expected);
  });
});

describe('entryLocator', () => {
  const docs = load({ 'config/registry/agents.json': XENA_AGENTS });
  const documents = new Map(docs.map((d) => [d.file.path, d]));
  const file = docs[0]!.file.path;

  it('falls back to the entry for a field the format has no place for', () => {
    const locate = entryLocator('agent', { origins: [{ file, pointer: '/agents/0' }] }, documents);
    expect(locate('effects.risk')).toEqual({ file, pointer: '/agents/0', line: 3, column: 5 });
  });

  it('locates a field in the layer that last set it', () => {
    const locate = entryLocator('agent', { origins: [{ file: 'elsewhere.json', pointer: '/0' }, { file, pointer: '/agents/0' }], fieldOrigins: new Map([['skills', 1]]) }, documents);
    expect(locate('skills')).toMatchObject({ file, pointer: '/agents/0/skillIds', line: 9 });
    expect(locate('tools')).toEqual({ file: 'elsewhere.json', pointer: '/0' });
  });
});

describe('fieldSuffix', () => {
  it.each([
    ['xena', 'tool', 'tools', undefined],
    ['xena', 'skill', 'tools', '/preferredToolIds'],
    ['xena', 'agent', 'tools', '/toolIds'],
    ['xena', 'agent', 'skills', '/skillIds'],
    ['xena', 'job', 'name', undefined],
    ['atlas', 'tool', 'description', '/description'],
    ['atlas', 'skill', 'description', '/summary'],
    ['atlas', 'job', 'skills', '/required_skills'],
    ['atlas', 'agent', 'name', undefined],
    ['toolcap', 'tool', 'effects.risk', '/effects/risk'],
    ['toolcap', 'agent', 'persona', '/persona'],
    ['toolcap', 'job', 'effects.risk', undefined],
    ['xena', 'tool', 'surface.unknown', '/surface'],
    ['xena', 'tool', 'constructor', undefined],
  ] as const)('%s %s %s -> %s', (id, kind, path, expected) => {
    expect(fieldSuffix(getDialect(id)!, kind, path)).toBe(expected);
  });
});
