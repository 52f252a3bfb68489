/**
 * The shapes an MCP tool list comes in, and detection.
 *
 * - `result`: a `tools/list` result, `{ "tools": [...], "nextCursor"?, "_meta"? }`.
 *   A capture of a whole server may add the fields of its `initialize`
 *   result (`serverInfo`, `protocolVersion`, `instructions`).
 * - `jsonrpc`: the JSON-RPC response around it, `{ "jsonrpc", "id", "result": {...} }`.
 * - `array`: a bare array of tools.
 *
 * Which shape was read, and every top-level field without a canonical home,
 * are kept in `bundle.extensions.mcp` (`shape`, `fields`, `envelope`), so
 * export writes the same document back.
 * @module
 */
import { compact } from '../../model/objects.js';
import type { BundleInfo } from '../../model/schema.js';
import { isPlainObject, ObjectReader } from '../../source/reader.js';
import type { DetectHints, ImportContext } from '../types.js';
import { keep, MCP, withoutNulls, type JsonObject } from './base.js';

export const SHAPES = ['result', 'jsonrpc', 'array'] as const;
export type Shape = (typeof SHAPES)[number];

/** How a document was written, as kept in `bundle.extensions.mcp`. */
export interface Layout {
  shape: Shape;
  /** Leftover fields of the result object, in its own shape. */
  fields?: JsonObject;
  /** The JSON-RPC envelope without `result`. */
  envelope?: JsonObject;
}

/** The tool list of a document and what it says about the server. */
export interface ResultFields {
  tools?: unknown[] | undefined;
  /** JSON pointer of `tools`. */
  toolsPointer: string;
  bundle: Partial<BundleInfo>;
  fields?: JsonObject | undefined;
}

/** `serverInfo.name` and `.version` name the bundle; the rest of `serverInfo` is kept. */
function readServerInfo(result: ObjectReader): { bundle: Partial<BundleInfo>; leftovers?: JsonObject } {
  const info = result.object('serverInfo');
  if (!info) return { bundle: {} };
  const bundle = compact<BundleInfo>({ name: info.string('name'), version: info.string('version') }) ?? {};
  // Implementation info grows new members (title, icons, websiteUrl): kept quietly.
  return { bundle, leftovers: info.rest({ quiet: true }) ?? {} };
}

/** Read a result object: its tools, its known fields, and the rest (reported). */
export function readResult(read: ObjectReader): ResultFields {
  const { reader: result, nulls } = withoutNulls(read, ['nextCursor', '_meta', 'instructions']);
  let tools: unknown[] | undefined;
  if (result.has('tools')) tools = result.array('tools');
  else
    result.context.report('MISSING_FIELD', 'A tools/list result has no "tools" array.', result.pointer, {
      hint: 'Write the file as { "tools": [ ... ] } or as a bare array of tools.',
    });
  const metadata = result.object('_meta')?.value;
  const server = readServerInfo(result);
  const known = {
    nextCursor: result.string('nextCursor'),
    protocolVersion: result.string('protocolVersion'),
    instructions: result.string('instructions'),
    serverInfo: server.leftovers,
  };
  const unknown = result.rest({ where: 'the tools/list result' });
  return {
    tools,
    toolsPointer: result.at('tools'),
    bundle: compact<BundleInfo>({ ...server.bundle, metadata }) ?? {},
    fields: keep({ ...nulls, ...known, ...unknown }),
  };
}

/** Read the JSON-RPC envelope; its `result` is read as a result object. */
export function readEnvelope(envelope: ObjectReader): { result: ResultFields | undefined; kept: JsonObject } {
  if (!envelope.has('result'))
    envelope.context.report('MISSING_FIELD', 'The JSON-RPC response has no "result" (an error response lists no tools).', '', {
      hint: 'Save the "result" of a successful tools/list call.',
    });
  const reader = envelope.object('result');
  const result = reader ? readResult(reader) : undefined;
  // The envelope's members are not ours to judge: kept verbatim and quietly.
  return { result, kept: envelope.rest({ quiet: true }) ?? {} };
}

/** The layout recorded in a bundle, or the default (a plain result, nothing else). */
export function layoutOf(bundle: BundleInfo | undefined): Layout {
  const record = bundle?.extensions?.[MCP];
  const shape = SHAPES.find((s) => s === record?.['shape']) ?? 'result';
  const fields = record?.['fields'];
  const envelope = record?.['envelope'];
  return {
    shape,
    ...(isPlainObject(fields) ? { fields } : {}),
    ...(isPlainObject(envelope) ? { envelope } : {}),
  };
}

/** The bundle for what was read; undefined when it says nothing (a plain `{ tools }`). */
export function bundleOf(found: Partial<BundleInfo>, layout: Layout): BundleInfo | undefined {
  const plain = layout.shape === 'result' && layout.fields === undefined;
  return compact<BundleInfo>({ ...found, extensions: plain ? undefined : { [MCP]: { ...layout } } });
}

/** Report a document that is neither an object nor an array. */
export function reportNotAList(context: ImportContext): void {
  context.report('TYPE_MISMATCH', 'An MCP tool list must be a tools/list result such as { "tools": [...] } or an array of tools.', '');
}

/** Keys of entries in other formats: OpenAI and ATLAS functions, Pylot tools, capability manifests. */
const FOREIGN_KEYS = ['parameters', 'function', 'side_effects', 'class_name', 'input_schema'] as const;

function isForeign(entry: JsonObject): boolean {
  if (FOREIGN_KEYS.some((key) => key in entry) && !('inputSchema' in entry)) return true;
  // Xena tools have an inputSchema too, but also an id and the surface contract.
  return ('id' in entry && ('surface' in entry || 'riskLevel' in entry)) || isPlainObject(entry['capabilities']);
}

function looksMcp(entry: JsonObject): boolean {
  return 'name' in entry && ('inputSchema' in entry || isPlainObject(entry['annotations']));
}

/** The tool list a document holds where MCP puts it, or undefined. */
function toolListOf(value: unknown): unknown {
  if (Array.isArray(value)) return value;
  if (!isPlainObject(value)) return undefined;
  const result = value['result'];
  if ('jsonrpc' in value && isPlainObject(result)) return result['tools'];
  return value['tools'];
}

/**
 * Score: a tool list whose items are all MCP tools (`name` with
 * `inputSchema` or `annotations`) is ours; a list with any item of another
 * format (`parameters`, Xena's `id` + `surface`, ...) is not. Canonical
 * documents (`toolcap`) and Pylot bundles (`schema_version`) are not.
 */
export function detectMcp(value: unknown, _hints: DetectHints): number {
  if (isPlainObject(value) && ('toolcap' in value || 'schema_version' in value)) return 0;
  const list = toolListOf(value);
  const envelope = isPlainObject(value) && 'jsonrpc' in value;
  if (!Array.isArray(list)) return envelope && list !== undefined ? 0.6 : 0;
  const entries = list.filter(isPlainObject).slice(0, 50);
  // An empty page is ours only when something else says MCP.
  if (entries.length === 0) return envelope || (isPlainObject(value) && 'nextCursor' in value) ? 0.6 : 0;
  if (entries.some(isForeign)) return 0;
  const ours = entries.filter(looksMcp).length;
  return ours === 0 ? 0 : 0.5 + (0.45 * ours) / entries.length;
}
