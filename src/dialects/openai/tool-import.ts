/**
 * One OpenAI tool entry into a canonical tool. Function tools say how to call
 * a tool and nothing about what calling it does, so no effect, approval or
 * execution field is filled in here: the loader's `complete()` reads that
 * silence conservatively, once, after merging.
 * @module
 */
import { joinPointer } from '../../model/diagnostics.js';
import { compactRequired } from '../../model/objects.js';
import type { Tool } from '../../model/schema.js';
import { TOOL_NAME_PATTERN } from '../../model/vocabulary.js';
import { canonicalName, readName } from '../names.js';
import { OPENAI_NAME_RULE } from '../safe-names.js';
import { isPlainObject, jsonType, ObjectReader } from '../../source/reader.js';
import type { ImportContext } from '../types.js';
import { nonEmpty, OPENAI, type Shape, type ToolExtension } from './extension.js';
import { repairSchema, type TypeValue } from './repair.js';

/** Options of the importer. */
export interface ImportOptions {
  /** Repair foreign `type` spellings in schemas (each repair is a warning). @default true */
  lenient: boolean;
}

/** What one array item turned out to be. */
export type EntryResult =
  | { kind: 'tool'; tool: Tool; pointer: string }
  /** Not a function tool (e.g. `code_interpreter`): kept verbatim by the caller. */
  | { kind: 'other' }
  /** Unusable, already reported. */
  | { kind: 'skipped' };

const TOOL_NAME = new RegExp(TOOL_NAME_PATTERN);

/** Import one entry at `pointer`; never throws. */
export function importEntry(context: ImportContext, item: unknown, pointer: string, options: ImportOptions): EntryResult {
  const outer = ObjectReader.of(context, item, pointer, 'A tool entry');
  if (!outer) return { kind: 'skipped' };
  if (outer.has('function') && !outer.has('name')) return importWrapped(outer, options);
  if (!outer.has('type')) return importFunction(outer, 'bare', options);
  if (outer.value['type'] === 'function') {
    outer.consume('type');
    return importFunction(outer, 'flat', options);
  }
  return notAFunction(outer);
}

/** Chat Completions form: `{type: "function", function: {...}}`. */
function importWrapped(outer: ObjectReader, options: ImportOptions): EntryResult {
  const type = outer.raw('type');
  if (type === undefined) {
    // The API rejects it, but what the entry means is plain: export adds the type.
    outer.context.report('MISSING_FIELD', 'This tool has no "type"; "function" is assumed.', outer.pointer, {
      severity: 'warning',
      hint: 'Write "type": "function" beside "function".',
    });
  } else if (type !== 'function') {
    return notAFunction(outer);
  }
  const inner = outer.object('function');
  const result: EntryResult = inner ? importFunction(inner, undefined, options) : { kind: 'skipped' };
  const wrapper = outer.rest({ where: 'the tool wrapper' });
  if (result.kind === 'tool' && wrapper) setExtension(result.tool, { wrapper });
  return result;
}

/**
 * A built-in or custom tool type (a string other than "function") the
 * canonical model cannot hold: kept for export only. A `type` that is not a
 * string at all is a mistake: reported, and the entry skipped.
 */
function notAFunction(outer: ObjectReader): EntryResult {
  const type = outer.raw('type');
  if (typeof type !== 'string') {
    outer.context.report('TYPE_MISMATCH', `"type" must be a string, not ${jsonType(type)}.`, outer.at('type'), { hint: 'Write "type": "function".' });
    return { kind: 'skipped' };
  }
  outer.context.report('UNKNOWN_ENUM_VALUE', `A tool of type ${JSON.stringify(type)} is not a function tool; it is kept but not imported.`, outer.at('type'), {
    severity: 'warning',
    hint: 'Only "type": "function" entries become tools; others are written back unchanged on export.',
  });
  return { kind: 'other' };
}

/** The function object itself (all three shapes end here). */
function importFunction(reader: ObjectReader, shape: Shape | undefined, options: ImportOptions): EntryResult {
  const source = readName(reader, 'function');
  if (source === undefined) return { kind: 'skipped' };
  const ext: ToolExtension = shape === undefined ? {} : { shape };
  const repairs: Record<string, unknown> = {};
  const inputSchema = readSchema(reader, 'parameters', options, repairs);
  const outputSchema = readSchema(reader, 'response', options, repairs);
  const strict = reader.boolean('strict');
  const tool = compactRequired<Tool>({
    ...naming(source),
    description: reader.string('description'),
    inputSchema,
    outputSchema,
  });
  if (strict !== undefined) ext.strict = strict;
  if (!OPENAI_NAME_RULE.pattern.test(source)) ext.sourceName = true;
  if (outputSchema !== undefined) ext.response = true;
  if (nonEmpty(repairs)) ext.repairs = repairs;
  const fields = reader.rest({ where: `function "${source}"` });
  if (fields) ext.fields = fields;
  setExtension(tool, ext);
  return { kind: 'tool', tool, pointer: reader.pointer };
}

/**
 * OpenAI allows `[a-zA-Z0-9_-]` names; toolcap names are lowercase. A name
 * outside the canonical pattern gets a lowercase form, marked derived, and
 * the source spelling is kept as `id` (export writes it back).
 */
function naming(source: string): Pick<Tool, 'name' | 'id' | 'derived'> {
  if (TOOL_NAME.test(source)) return { name: source };
  const name = canonicalName(source);
  // Nothing usable to derive: keep the source name for the shared rules to report.
  if (name === '' || !TOOL_NAME.test(name)) return { name: source };
  return { name, id: source, derived: ['name'] };
}

/**
 * A schema-valued field. It must be an object (TYPE_MISMATCH otherwise, and
 * left out). In lenient mode foreign `type` spellings are repaired, each
 * reported as a SCHEMA_REPAIRED warning at the source `type` and recorded in
 * `repairs` (pointer relative to the function object -> original spelling).
 */
function readSchema(reader: ObjectReader, key: string, options: ImportOptions, repairs: Record<string, unknown>): Record<string, unknown> | undefined {
  const value = reader.raw(key);
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    reader.context.report('TYPE_MISMATCH', `"${key}" must be a JSON Schema object, not ${jsonType(value)}.`, reader.at(key), {
      hint: 'Write { "type": "object", "properties": { ... } }.',
    });
    return undefined;
  }
  if (!options.lenient) return value;
  return repairSchema(value, (path, from, to) => {
    repairs[joinPointer('', key, ...path)] = from;
    reportRepair(reader.context, joinPointer(reader.at(key), ...path), from, to);
  });
}

function reportRepair(context: ImportContext, pointer: string, from: TypeValue, to: TypeValue | undefined): void {
  const was = JSON.stringify(from);
  if (to === undefined) {
    context.report('SCHEMA_REPAIRED', `Type ${was} is not a JSON Schema type; read as "any value" (no "type").`, pointer, {
      severity: 'warning',
      hint: `Repaired: removed "type": ${was}. Leave "type" out to allow any value.`,
    });
    return;
  }
  const now = JSON.stringify(to);
  context.report('SCHEMA_REPAIRED', `Type ${was} is not a JSON Schema type; read as ${now}.`, pointer, {
    severity: 'warning',
    hint: `Repaired: ${was} -> ${now}. Write "type": ${now} (JSON Schema type names).`,
  });
}

function setExtension(tool: Tool, ext: ToolExtension): void {
  const merged = { ...(tool.extensions?.[OPENAI] ?? {}), ...ext };
  if (nonEmpty(merged)) tool.extensions = { ...tool.extensions, [OPENAI]: merged };
}
