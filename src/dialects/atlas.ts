/**
 * The ATLAS dialect: `functions.json` tool manifests (shared and per
 * persona), plus ATLAS `jobs.json` and `skills.json`. Every file is a JSON
 * array; its folder says what it holds and which persona owns it.
 * @module
 */
import type { Tool } from '../model/schema.js';
import { detectAtlas, kindFromShape } from './atlas/detect.js';
import { atlasPath, kindFromPath, personaFromPath, type AtlasFileKind } from './atlas/layout.js';
import { exportJob, exportSkill, importJob, importSkill, ownerOf } from './atlas/plans.js';
import { exportTool } from './atlas/tool-export.js';
import { importTool } from './atlas/tool-import.js';
import { jsonType, ObjectReader } from '../source/reader.js';
import { defineDialect, type CanonicalFragment, type ExportedFile, type FieldMap, type ImportContext, type ImportedDocument } from './types.js';

const WHAT: Record<AtlasFileKind, string> = { tools: 'A tool entry', jobs: 'A job entry', skills: 'A skill entry' };

function importAtlas(context: ImportContext): ImportedDocument {
  const result: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  const doc = context.file.value;
  if (!Array.isArray(doc)) {
    context.report('TYPE_MISMATCH', `An ATLAS manifest must be a JSON array of entries, not ${jsonType(doc)}.`, '', {
      hint: 'Write the file as [ { "name": ... }, ... ].',
    });
    return result;
  }
  const path = context.file.path;
  const kind = kindFromPath(path) ?? kindFromShape(doc) ?? 'tools';
  const persona = context.persona ?? personaFromPath(path);
  doc.forEach((item, i) => {
    const pointer = `/${i}`;
    const reader = ObjectReader.of(context, item, pointer, WHAT[kind]);
    if (!reader) return;
    if (kind === 'tools') push(result.tools, importTool(reader, persona), pointer);
    else if (kind === 'jobs') push(result.jobs, importJob(reader, persona), pointer);
    else push(result.skills, importSkill(reader, persona), pointer);
  });
  return result;
}

function push<T>(into: Array<{ value: T; pointer: string }>, value: T | undefined, pointer: string): void {
  if (value !== undefined) into.push({ value, pointer });
}

/**
 * One file per (kind, owner), entries in fragment order. A tool scoped to
 * several personas is written into each persona's toolbox.
 */
function exportAtlas(fragment: CanonicalFragment): ExportedFile[] {
  const files = new Map<string, unknown[]>();
  const add = (path: string, entry: unknown) => {
    const list = files.get(path);
    if (list) list.push(entry);
    else files.set(path, [entry]);
  };
  for (const tool of fragment.tools ?? []) addTool(tool, add);
  for (const job of fragment.jobs ?? []) add(atlasPath('jobs', ownerOf(job)), exportJob(job));
  for (const skill of fragment.skills ?? []) add(atlasPath('skills', ownerOf(skill)), exportSkill(skill));
  return [...files].map(([path, value]) => ({ path, format: 'json', value }));
}

function addTool(tool: Tool, add: (path: string, entry: unknown) => void): void {
  const entry = exportTool(tool);
  const personas = tool.scope?.personas ?? [];
  if (personas.length === 0) add(atlasPath('tools'), entry);
  for (const persona of personas) add(atlasPath('tools', persona), entry);
}

/** Where canonical tool fields live in a `functions.json` entry. */
const TOOL_FIELDS: FieldMap = {
  name: '/name',
  version: '/version',
  description: '/description',
  enabled: '/enabled',
  tags: '/tags',
  notes: '/notes',
  inputSchema: '/parameters',
  capabilities: '/capabilities',
  'effects.sideEffects': '/side_effects',
  'effects.risk': '/safety_level',
  'approval.consent': '/requires_consent',
  'execution.timeoutSec': '/default_timeout',
  'execution.allowParallel': '/allow_parallel',
  'execution.idempotencyKey': '/idempotency_key',
  auth: '/auth',
  'auth.required': '/auth/required',
  'auth.type': '/auth/type',
  'auth.scopes': '/auth/scopes',
  'auth.envs': '/auth/envs',
  'auth.docs': '/auth/docs',
  'cost.estimatedDollars': '/cost_per_call',
  providers: '/providers',
};

/** Where canonical skill fields live in a `skills.json` entry (atlas/plans.ts). */
const SKILL_FIELDS: FieldMap = {
  name: '/name',
  id: '/name',
  version: '/version',
  description: '/summary',
  tools: '/required_tools',
  capabilities: '/required_capabilities',
  tags: '/capability_tags',
};

/** Where canonical job fields live in a `jobs.json` entry (atlas/plans.ts). */
const JOB_FIELDS: FieldMap = {
  name: '/name',
  id: '/name',
  summary: '/summary',
  description: '/description',
  personas: '/personas',
  skills: '/required_skills',
  tools: '/required_tools',
};

/**
 * ATLAS `functions.json` (shared: `modules/Tools/tool_maps/`, per persona:
 * `modules/Personas/<Persona>/Toolbox/`), `jobs.json` and `skills.json`.
 * @example
 * detectDialect(JSON.parse(text), { path: 'modules/Tools/tool_maps/functions.json' })?.dialect === atlasDialect
 */
export const atlasDialect = defineDialect({
  id: 'atlas',
  title: 'ATLAS functions.json, jobs.json and skills.json',
  detect: detectAtlas,
  import: importAtlas,
  export: exportAtlas,
  fieldMaps: { tool: TOOL_FIELDS, skill: SKILL_FIELDS, job: JOB_FIELDS },
});
