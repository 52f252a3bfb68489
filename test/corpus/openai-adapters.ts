/**
 * Helpers for the corpus tests that read real tool catalogs through the
 * openai dialect. Benchmark catalogs are not manifest files: BFCL is JSON
 * Lines with a `function` list per line, and Seal-Tools, API-Bank, ToolEmu
 * and MetaTool each have a layout of their own. The adapters below turn one
 * catalog record into the OpenAI function object it describes, copying
 * fields only (names, descriptions, parameter tables); no value is invented,
 * and fields with no OpenAI home (API-Bank's side-effect label, ToolEmu's
 * exceptions, Seal-Tools' field) are left out.
 */
import { readFileSync } from 'node:fs';
import { openaiDialect } from '../../src/dialects/openai.js';
import type { ImportedDocument } from '../../src/dialects/types.js';
import { createImportContext } from '../../src/source/context.js';
import { parseSource } from '../../src/source/source.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';

/** Where the shared corpus lives. */
export const CORPUS = '/work/shared/corpus';

/** One JSON value per non-blank line (LF or CRLF line ends). */
export function readJsonl(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** A JSON file's value. */
export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

export interface Imported {
  imported: ImportedDocument;
  diagnostics: Diagnostic[];
}

/**
 * Import a list of tools as if it were a file named `label`, the way the
 * loader would: parse, then the openai dialect with a fresh context.
 */
export function importTools(label: string, tools: unknown): Imported {
  const parsed = parseSource(label, JSON.stringify(tools));
  if (!parsed.file) throw new Error(`${label} does not parse: ${JSON.stringify(parsed.diagnostics)}`);
  const context = createImportContext(parsed.file);
  return { imported: openaiDialect.import(context), diagnostics: [...parsed.diagnostics, ...context.diagnostics] };
}

/** Diagnostics counted by `code:severity`. */
export function countCodes(diagnostics: readonly Diagnostic[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of diagnostics) out[`${d.code}:${d.severity}`] = (out[`${d.code}:${d.severity}`] ?? 0) + 1;
  return out;
}

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});

/** `{name: {type, description}}` parameter tables (Seal-Tools, API-Bank) as a JSON Schema object, verbatim. */
function objectSchema(properties: unknown, required?: unknown): Json {
  return { type: 'object', properties: asObject(properties), ...(Array.isArray(required) ? { required } : {}) };
}

/**
 * Seal-Tools `tool.jsonl`: `api_name`, `api_description`, `parameters`,
 * `required`, `responses` -> `{name, description, parameters, response}`
 * (BFCL's `response` key is the dialect's output-schema home).
 */
export function sealToolFunction(record: unknown): Json {
  const r = asObject(record);
  return {
    name: r['api_name'],
    description: r['api_description'],
    parameters: objectSchema(r['parameters'], r['required']),
    response: objectSchema(r['responses']),
  };
}

/**
 * API-Bank `apis.jsonl`: `class_name`, `description`, `input_parameters`,
 * `output_parameters`. Null fields (ImageCaption, ReceiveEmail) are left
 * out; API-Bank has no required list, so none is written.
 */
export function apiBankFunction(record: unknown): Json {
  const r = asObject(record);
  const fn: Json = { name: r['class_name'] };
  if (typeof r['description'] === 'string') fn['description'] = r['description'];
  if (r['input_parameters'] != null) fn['parameters'] = objectSchema(r['input_parameters']);
  if (r['output_parameters'] != null) fn['response'] = objectSchema(r['output_parameters']);
  return fn;
}

/** A ToolEmu `[{name, type, description, required?}]` list as a JSON Schema object. */
function listSchema(list: unknown, withRequired: boolean): Json {
  const items = Array.isArray(list) ? list.map(asObject) : [];
  const properties = Object.fromEntries(items.map((p) => [p['name'], { type: p['type'], description: p['description'] }]));
  const required = items.filter((p) => p['required'] === true).map((p) => p['name']);
  return { type: 'object', properties, ...(withRequired && required.length > 0 ? { required } : {}) };
}

/**
 * ToolEmu `all_toolkits.json`: one function per tool, named as ToolEmu's
 * agents call it (`<name_for_model><tool name>`, e.g. "TerminalExecute"),
 * `summary` as description, `parameters` and `returns` lists as schemas.
 */
export function toolEmuFunctions(toolkit: unknown): Json[] {
  const kit = asObject(toolkit);
  const tools = Array.isArray(kit['tools']) ? kit['tools'].map(asObject) : [];
  return tools.map((t) => ({
    name: `${String(kit['name_for_model'])}${String(t['name'])}`,
    description: t['summary'],
    parameters: listSchema(t['parameters'], true),
    response: listSchema(t['returns'], false),
  }));
}

/**
 * MetaTool `plugin_des.json` / `big_tool_des.json` (`{tool_name:
 * description}`): wrapped Chat Completions tools with no parameters, which
 * OpenAI allows. The plugins' parameters were never published.
 */
export function metaToolFunctions(descriptions: unknown): Json[] {
  return Object.entries(asObject(descriptions)).map(([name, description]) => ({ type: 'function', function: { name, description } }));
}
