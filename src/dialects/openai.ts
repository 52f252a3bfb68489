/**
 * The OpenAI function tools dialect: a JSON array (or one entry) of
 * Chat Completions tools `{type: "function", function: {name, description,
 * parameters, strict}}`, bare function objects (the legacy `functions` list,
 * BFCL), or Responses API tools `{type: "function", name, ...}`. Lenient by
 * default: foreign schema type names (`dict`, `str`, `HashMap`) are repaired
 * with a warning each, and written back as they were on export. Export maps
 * names OpenAI rejects (`notes.append`) to names it accepts (`notes_append`),
 * reversibly (safe-names.ts); the file records the mapping in `names`.
 * @module
 */
import { documentExtensionOf, nonEmpty, OPENAI, toolExtensionOf, type DocumentExtension, type KeptEntry } from './openai/extension.js';
import type { Tool } from '../model/schema.js';
import { detectOpenai } from './openai/detect.js';
import { exportTool, openaiNameOf } from './openai/tool-export.js';
import { describeNameNote, OPENAI_NAME_RULE, safeNames } from './safe-names.js';
import { importEntry, type ImportOptions } from './openai/tool-import.js';
import { isPlainObject, jsonType } from '../source/reader.js';
import { defineDialect, type CanonicalFragment, type ExportedFile, type ImportContext, type ImportedDocument } from './types.js';

/** Where export writes the tool list. */
const OPENAI_EXPORT_PATH = 'tools.json';

function importOpenai(context: ImportContext, options: ImportOptions): ImportedDocument {
  const result: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  const doc = context.file.value;
  const single = !Array.isArray(doc);
  if (single && !isPlainObject(doc)) {
    context.report('TYPE_MISMATCH', `An OpenAI tools file must be an array of tools or one tool, not ${jsonType(doc)}.`, '', {
      hint: 'Write [ { "type": "function", "function": { "name": ... } } ].',
    });
    return result;
  }
  const others: KeptEntry[] = [];
  const entries: unknown[] = single ? [doc] : doc;
  entries.forEach((item, index) => {
    const entry = importEntry(context, item, single ? '' : `/${index}`, options);
    if (entry.kind === 'tool') result.tools.push({ value: entry.tool, pointer: entry.pointer });
    else if (entry.kind === 'other') others.push({ index, value: item });
  });
  const ext: DocumentExtension = {};
  if (single) ext.single = true;
  if (others.length > 0) ext.others = others;
  if (nonEmpty(ext)) result.bundle = { extensions: { [OPENAI]: { ...ext } } };
  return result;
}

/**
 * One file: the tools in fragment order, with kept non-function entries
 * back at their index. A document that was one entry is written as one
 * entry again. Skills, agents and jobs have no OpenAI form and are not written.
 */
function exportOpenai(fragment: CanonicalFragment): ExportedFile[] {
  const doc = documentExtensionOf(fragment.bundle);
  const tools = fragment.tools ?? [];
  // OpenAI rejects names outside ^[a-zA-Z0-9_-]{1,64}$ (notes.append): map them, reversibly;
  // a name an OpenAI source wrote that way itself (BFCL's math.factorial) goes back as it was, with a warning
  const kept = tools.filter((tool) => toolExtensionOf(tool).sourceName === true).map(openaiNameOf);
  const mapping = safeNames(tools.map(openaiNameOf).filter((name) => !kept.includes(name)), OPENAI_NAME_RULE);
  const nameOf = (tool: Tool) => mapping.safe.get(openaiNameOf(tool)) ?? openaiNameOf(tool);
  const entries: unknown[] = tools.map((tool) => exportTool(tool, nameOf(tool)));
  const keptNotes = [...new Set(kept)].map((name) => `KEPT: "${name}" is the source's own spelling, written back as it was; OpenAI's API rejects it (^[a-zA-Z0-9_-]{1,64}$)`);
  for (const kept of [...(doc.others ?? [])].sort((a, b) => a.index - b.index)) {
    entries.splice(Math.min(kept.index, entries.length), 0, kept.value);
  }
  if (entries.length === 0) return [];
  const value = doc.single && entries.length === 1 ? entries[0] : entries;
  const nameNotes = [...keptNotes, ...mapping.notes.map((note) => describeNameNote(note, OPENAI_NAME_RULE))];
  const file: ExportedFile = { path: OPENAI_EXPORT_PATH, format: 'json', value };
  if (nameNotes.length > 0) file.nameNotes = nameNotes;
  if (mapping.notes.length > 0) file.names = Object.fromEntries(tools.map((tool) => [nameOf(tool), tool.name]));
  return [file];
}

/**
 * Canonical path -> pointer suffix relative to the function object (an
 * entry's `pointer` is `/i/function` for the wrapped form, `/i` otherwise).
 */
const FIELD_MAP: Readonly<Record<string, string>> = {
  name: '/name',
  id: '/name',
  description: '/description',
  inputSchema: '/parameters',
  outputSchema: '/response',
};

/** Options of {@link createOpenaiDialect}. */
export interface OpenaiDialectOptions {
  /**
   * Repair foreign `type` spellings (`dict`, `str`, `float`, `any`,
   * `String`, `HashMap`, ...) into JSON Schema, with an INVALID_VALUE warning
   * each. When false, schemas are kept verbatim and the shared JSON Schema
   * check reports them. @default true
   */
  lenient?: boolean;
}

/**
 * An OpenAI dialect with the given options; {@link openaiDialect} is the
 * default (lenient) one, in `DIALECTS`.
 * @example createOpenaiDialect({ lenient: false }).import(context)
 */
export function createOpenaiDialect(options: OpenaiDialectOptions = {}) {
  const importOptions = { lenient: true, ...options } satisfies ImportOptions;
  return defineDialect({
    id: 'openai',
    title: 'OpenAI function tools',
    detect: detectOpenai,
    import: (context: ImportContext) => importOpenai(context, importOptions),
    export: exportOpenai,
    fieldMaps: { tool: FIELD_MAP },
  });
}

/**
 * OpenAI function tools (Chat Completions, Responses API, bare functions).
 * @example
 * detectDialect([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }], { path: 'tools.json' })?.dialect === openaiDialect
 */
export const openaiDialect = createOpenaiDialect();
