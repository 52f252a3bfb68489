/**
 * The canonical format itself (`toolcap: 1`), in JSON or YAML. Import checks
 * it against the published JSON Schema; values the schema rejects are
 * reported and left out, so later stages only see valid canonical entries.
 * The format is closed: an unknown field (`efects:`) is an UNKNOWN_FIELD
 * error at the key, with the closest known field as a did-you-mean; keys
 * starting `x-` are the one open door (besides `extensions` and `metadata`).
 * @module
 */
import type { TObject } from '@sinclair/typebox';
import { declared } from '../model/derive.js';
import { splitPointer } from '../model/diagnostics.js';
import { compact } from '../model/objects.js';
import { attachSharedDefs, shareDefs, type DefsTable } from '../model/schema-defs.js';
import { AgentSchema, BundleInfoSchema, JobSchema, SkillSchema, ToolSchema, type Agent, type BundleInfo, type Job, type Skill, type Tool } from '../model/schema.js';
import type { ErrorObject } from 'ajv';
import { canonicalValidator, describeAjvError } from '../model/validator.js';
import { isPlainObject } from '../source/reader.js';
import { defineDialect, type FieldMap, type ImportContext, type ImportedDocument, type Located } from './types.js';

/** Keys the schema knows, per object kind: the field maps. (Unknown fields are the schema's additionalProperties errors.) */
const KNOWN: Record<string, ReadonlySet<string>> = {
  tool: keysOf(ToolSchema),
  skill: keysOf(SkillSchema),
  agent: keysOf(AgentSchema),
  job: keysOf(JobSchema),
  bundle: keysOf(BundleInfoSchema),
};
const NESTED: Record<string, ReadonlySet<string>> = Object.fromEntries(
  Object.entries(ToolSchema.properties)
    .filter(([, s]) => (s as { type?: unknown }).type === 'object' && 'properties' in s)
    .map(([k, s]) => [k, keysOf(s as TObject)]),
);
const NESTED_ENTRIES = Object.entries(NESTED);

function keysOf(schema: TObject): ReadonlySet<string> {
  return new Set(Object.keys(schema.properties));
}

/** Canonical paths are their own pointers: `name` -> `/name`. */
function ownPointers(keys: ReadonlySet<string>): FieldMap {
  return Object.fromEntries([...keys].map((k) => [k, `/${k}`]));
}

/** Pointers of names and capabilities are linted by the rules with better messages. */
function handledByRules(pointer: string, keyword: string): boolean {
  return keyword === 'pattern' && /\/(name|capabilities\/\d+)$/.test(pointer);
}

function importCanonical(context: ImportContext): ImportedDocument {
  const source = context.file.value;
  const result: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  if (!isPlainObject(source)) {
    context.report('TYPE_MISMATCH', 'A toolcap manifest must be an object with "toolcap: 1".', '');
    return result;
  }
  const validate = canonicalValidator();
  const rejected = new Set<string>();
  let doc = source;
  if (!validate(doc)) {
    const types = typeErrors(validate.errors ?? []);
    for (const error of validate.errors ?? []) {
      if (handledByRules(error.instancePath, error.keyword)) continue;
      if (error.keyword === 'anyOf' || error.keyword === 'oneOf') continue; // its branches are reported
      if (error.keyword === 'type' && types.get(error.instancePath)?.first !== error) continue; // one report per place
      const described = describeAjvError(error);
      const { code, pointer } = described;
      const message = error.keyword === 'type' ? `Value at ${pointer || '/'} must be ${types.get(error.instancePath)?.names.join(' or ')}.` : described.message;
      // the canonical format is closed: an unknown field is an error here (a warning in the other dialects)
      if (code === 'UNKNOWN_FIELD') context.report(code, message, pointer, { key: true, severity: 'error', ...(described.hint ? { hint: described.hint } : {}) });
      else context.report(code, message, pointer, { hint: 'See `toolcap schema` for the canonical fields.' });
      if (code !== 'MISSING_FIELD') rejected.add(pointer);
    }
  }
  // YAML aliases share one value between places: remove on a copy, so that
  // rejecting a bad use of a value does not take its good use with it.
  // (a JSON copy: structuredClone would keep the sharing)
  if (rejected.size > 0) doc = JSON.parse(JSON.stringify(source)) as Record<string, unknown>;
  // Deepest and highest index first, so removals do not shift each other.
  for (const pointer of [...rejected].sort((a, b) => POINTER_ORDER.compare(b, a))) remove(doc, pointer);

  if (isPlainObject(doc['bundle'])) result.bundle = doc['bundle'] as BundleInfo;
  const collect = <T extends { name?: unknown }>(key: string, kind: string, into: Array<Located<T>>) => {
    const list = doc[key];
    if (!Array.isArray(list)) return;
    list.forEach((entry, i) => {
      const pointer = `/${key}/${i}`;
      if (!isPlainObject(entry) || typeof entry['name'] !== 'string') return; // reported by the schema
      into.push({ value: entry as T, pointer });
    });
  };
  collect<Tool>('tools', 'tool', result.tools);
  if (isPlainObject(doc['$defs'])) {
    const table = doc['$defs'] as DefsTable;
    const attached = attachSharedDefs(result.tools.map((t) => t.value), table);
    result.tools.forEach((t, i) => (t.value = attached[i]!));
  }
  collect<Skill>('skills', 'skill', result.skills);
  collect<Agent>('agents', 'agent', result.agents);
  collect<Job>('jobs', 'job', result.jobs);
  return result;
}

/**
 * Pointers in numeric order (`/tools/10` after `/tools/9`). One collator for
 * every comparison: `localeCompare` with options builds one per call, which
 * made a manifest with 100,000 rejected entries spend seconds sorting them.
 */
const POINTER_ORDER = new Intl.Collator('en', { numeric: true });

/** The `type` errors by place: a value that fits no branch of an anyOf is reported once, naming every type it may have. */
function typeErrors(errors: readonly ErrorObject[]): Map<string, { first: ErrorObject; names: string[] }> {
  const out = new Map<string, { first: ErrorObject; names: string[] }>();
  for (const error of errors) {
    if (error.keyword !== 'type') continue;
    const names = String((error.params as { type?: unknown }).type).split(',');
    const seen = out.get(error.instancePath);
    if (seen) seen.names.push(...names.filter((n) => !seen.names.includes(n)));
    else out.set(error.instancePath, { first: error, names });
  }
  return out;
}

/** Delete the value at a pointer (array items are removed). */
function remove(root: unknown, pointer: string): void {
  const tokens = splitPointer(pointer);
  const last = tokens.pop();
  if (last === undefined) return;
  let node: unknown = root;
  for (const t of tokens) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string, unknown>)[t];
  }
  if (Array.isArray(node)) node.splice(Number(last), 1);
  else if (isPlainObject(node)) delete node[last];
}

export const toolcapDialect = defineDialect({
  id: 'toolcap',
  title: 'toolcap canonical manifest',
  detect(value) {
    return isPlainObject(value) && 'toolcap' in value ? 1 : 0;
  },
  import: importCanonical,
  export(fragment) {
    const tools = fragment.tools === undefined ? undefined : shareDefs(fragment.tools.map(declared));
    const value = compact({
      toolcap: 1 as const,
      $defs: tools?.$defs,
      bundle: fragment.bundle,
      tools: tools?.tools,
      skills: fragment.skills,
      agents: fragment.agents,
      jobs: fragment.jobs,
    });
    return [{ path: 'toolcap.yaml', format: 'yaml', value }];
  },
  fieldMaps: {
    tool: { ...ownPointers(KNOWN['tool']!), ...Object.fromEntries(NESTED_ENTRIES.flatMap(([group, keys]) => [...keys].map((k) => [`${group}.${k}`, `/${group}/${k}`]))) },
    skill: ownPointers(KNOWN['skill']!),
    agent: ownPointers(KNOWN['agent']!),
    job: ownPointers(KNOWN['job']!),
  },
});
