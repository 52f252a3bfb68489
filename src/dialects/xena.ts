/**
 * The Xena registry dialect: `config/registry/tools.json`, `skills.json` and
 * `agents.json`. Tools carry Xena's `surface` contract (domains, entities,
 * operations, task roles, authority, freshness), capabilities, `riskLevel`
 * and `deterministic`; webhook tools carry `metadata.workflowRoutes`.
 * See docs/dialects/xena.md for the mapping.
 * @module
 */
import type { Agent, Skill, Tool } from '../model/schema.js';
import { isPlainObject, ObjectReader } from '../source/reader.js';
import { defineDialect, type CanonicalFragment, type ExportedFile, type FieldMap, type ImportContext, type ImportedDocument, type Located } from './types.js';
import { XENA, type JsonObject } from './xena/base.js';
import { detectXena, FILE_OF, KINDS, kindOfArray, kindOfPath, layoutOf, type Kind } from './xena/document.js';
import { exportAgent, exportSkill, importAgent, importSkill } from './xena/entries.js';
import { exportTool, importTool } from './xena/tool.js';

/** Read every entry of one kind's array into the result. */
function readList(context: ImportContext, kind: Kind, list: readonly unknown[], pointer: string, into: ImportedDocument): void {
  list.forEach((item, i) => {
    const at = `${pointer}/${i}`;
    const push = <T>(target: Array<Located<T>>, value: T | undefined) => {
      if (value !== undefined) target.push({ value, pointer: at });
    };
    if (kind === 'tools') push(into.tools, importTool(context, item, at));
    else if (kind === 'skills') push(into.skills, importSkill(context, item, at));
    else push(into.agents, importAgent(context, item, at));
  });
}

/** A wrapped file: `{ "tools": [...] }` (the real Xena shape), maybe with other top-level keys. */
function readWrapped(context: ImportContext, reader: ObjectReader, into: ImportedDocument): JsonObject {
  const expected = kindOfPath(context.file.path) ?? 'tools';
  const kinds = KINDS.filter((kind) => reader.has(kind));
  if (kinds.length === 0) {
    context.report('MISSING_FIELD', `A Xena registry file holds a "${expected}" array; this one has none.`, '', {
      hint: `Write the file as { "${expected}": [ ... ] }.`,
    });
  }
  for (const kind of kinds) {
    const list = reader.array(kind);
    if (list !== undefined) readList(context, kind, list, reader.at(kind), into);
  }
  const topLevel = reader.rest({ where: 'the registry file' });
  return topLevel ? { [kinds[0] ?? expected]: { topLevel } } : {};
}

function importXena(context: ImportContext): ImportedDocument {
  const doc = context.file.value;
  const result: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  let layout: JsonObject = {};
  if (Array.isArray(doc)) {
    const kind = kindOfArray(context.file.path, doc);
    readList(context, kind, doc, '', result);
    layout = { [kind]: { bareArray: true } };
  } else if (isPlainObject(doc)) {
    layout = readWrapped(context, new ObjectReader(context, doc, ''), result);
  } else {
    context.report('TYPE_MISMATCH', 'A Xena registry file must be an object such as { "tools": [...] } or an array.', '');
  }
  if (Object.keys(layout).length > 0) result.bundle = { extensions: { [XENA]: layout } };
  return result;
}

/** The entries of one kind, in Xena's words; undefined when the fragment has none. */
function entriesOf(fragment: CanonicalFragment, kind: Kind): unknown[] | undefined {
  const pick = <T>(list: readonly T[] | undefined, write: (entry: T) => unknown) =>
    list !== undefined && list.length > 0 ? list.map(write) : undefined;
  if (kind === 'tools') return pick<Tool>(fragment.tools, exportTool);
  if (kind === 'skills') return pick<Skill>(fragment.skills, exportSkill);
  return pick<Agent>(fragment.agents, exportAgent);
}

/** One file per kind that has entries (tools.json alone when none has), in the shape it was read in. */
function exportXena(fragment: CanonicalFragment): ExportedFile[] {
  const record = fragment.bundle?.extensions?.[XENA];
  const present = KINDS.map((kind) => [kind, entriesOf(fragment, kind)] as const).filter(
    (pair): pair is readonly [Kind, unknown[]] => pair[1] !== undefined,
  );
  const kinds: ReadonlyArray<readonly [Kind, unknown[]]> = present.length > 0 ? present : [['tools', []]];
  return kinds.map(([kind, entries]) => {
    const layout = layoutOf(record, kind);
    const value = layout.bareArray ? entries : { ...layout.topLevel, [kind]: entries };
    return { path: FILE_OF[kind], format: 'json', value };
  });
}

/** Where canonical tool fields live in a Xena tool entry. */
const TOOL_FIELDS: FieldMap = {
  name: '/id',
  id: '/id',
  title: '/name',
  version: '/version',
  description: '/description',
  enabled: '/enabled',
  tags: '/tags',
  metadata: '/metadata',
  workflowRoutes: '/metadata/workflowRoutes',
  surface: '/surface',
  'surface.domains': '/surface/domains',
  'surface.entities': '/surface/entities',
  'surface.operations': '/surface/operations',
  'surface.taskRoles': '/surface/taskRoles',
  'surface.authority': '/surface/authority',
  'surface.freshnessSlaSec': '/surface/freshnessSlaSec',
  capabilities: '/capabilities',
  'effects.deterministic': '/deterministic',
  'effects.risk': '/riskLevel',
  // Derived from the operations, so findings about the mode belong there.
  'effects.mode': '/surface/operations',
  inputSchema: '/inputSchema',
  outputSchema: '/outputSchema',
};

/** The fields every Xena entry shares (xena/base.ts), at the same keys in tools, skills and agents. */
const BASE_FIELDS = ['name', 'id', 'title', 'version', 'description', 'enabled', 'tags', 'metadata'] as const;
const baseMap = Object.fromEntries(BASE_FIELDS.map((k) => [k, TOOL_FIELDS[k] ?? `/${k}`]));

/** Where canonical skill fields live in a Xena skill entry. */
const SKILL_FIELDS: FieldMap = {
  ...baseMap,
  capabilities: '/requiredCapabilities',
  tools: '/preferredToolIds',
};

/** Where canonical agent fields live in a Xena agent entry. */
const AGENT_FIELDS: FieldMap = {
  ...baseMap,
  persona: '/persona',
  skills: '/skillIds',
  tools: '/toolIds',
  constraints: '/constraints',
  'constraints.maxRiskLevel': '/constraints/maxRiskLevel',
  'constraints.requireDeterministicTools': '/constraints/requireDeterministicTools',
};

/**
 * The Xena registry dialect.
 * @example
 * const files = xenaDialect.export({ tools: [{ name: 'tool.linear.issue.read', surface: { domains: ['tasks'] } }] });
 * // [{ path: 'config/registry/tools.json', format: 'json', value: { tools: [{ id: 'tool.linear.issue.read', surface: ... }] } }]
 */
export const xenaDialect = defineDialect({
  id: 'xena',
  title: 'Xena registry',
  detect: detectXena,
  import: importXena,
  export: exportXena,
  fieldMaps: { tool: TOOL_FIELDS, skill: SKILL_FIELDS, agent: AGENT_FIELDS },
});
