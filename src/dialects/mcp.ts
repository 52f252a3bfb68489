/**
 * The MCP dialect: the tools an MCP server lists (`tools/list`), as a result
 * object, a JSON-RPC response or a bare array. Annotations are kept verbatim
 * as `hints` and read as evidence for effects; what MCP is silent on is left
 * for the loader's conservative `complete` step. See docs/dialects/mcp.md.
 * @module
 */
import { jsonSize } from '../model/json-size.js';
import { compact } from '../model/objects.js';
import type { CanonicalFragment, ExportedFile, ExportOptions, FieldMap, ImportContext, ImportedDocument } from './types.js';
import { defineDialect } from './types.js';
import { isPlainObject, ObjectReader } from '../source/reader.js';
import { overlay, type JsonObject } from './mcp/base.js';
import {
  bundleOf,
  detectMcp,
  layoutOf,
  readEnvelope,
  readResult,
  reportNotAList,
  type Layout,
  type ResultFields,
} from './mcp/document.js';
import { exportTool, importTool, mcpWrittenName } from './mcp/tool.js';
import { describeNameNote, MCP_NAME_RULE, safeNames } from './safe-names.js';
import type { Tool } from '../model/schema.js';

/** Read every item of a tool list into the result. */
function readTools(context: ImportContext, list: readonly unknown[], pointer: string, into: ImportedDocument): void {
  list.forEach((item, i) => {
    const at = `${pointer}/${i}`;
    const tool = importTool(context, item, at);
    if (tool !== undefined) into.tools.push({ value: tool, pointer: at });
  });
}

/** The tools of a result object, and the bundle it implies. */
function fromResult(context: ImportContext, result: ResultFields, layout: Layout, into: ImportedDocument): void {
  if (result.tools !== undefined) readTools(context, result.tools, result.toolsPointer, into);
  const withFields: Layout = result.fields === undefined ? layout : { ...layout, fields: result.fields };
  const bundle = bundleOf(result.bundle, withFields);
  if (bundle !== undefined) into.bundle = bundle;
}

function importMcp(context: ImportContext): ImportedDocument {
  const doc = context.file.value;
  const into: ImportedDocument = { tools: [], skills: [], agents: [], jobs: [] };
  if (Array.isArray(doc)) {
    readTools(context, doc, '', into);
    into.bundle = { extensions: { mcp: { shape: 'array' } } };
  } else if (isPlainObject(doc) && 'jsonrpc' in doc) {
    const { result, kept } = readEnvelope(new ObjectReader(context, doc, ''));
    const layout: Layout = { shape: 'jsonrpc', envelope: kept };
    if (result !== undefined) fromResult(context, result, layout, into);
    else into.bundle = { extensions: { mcp: { ...layout } } };
  } else if (isPlainObject(doc)) {
    fromResult(context, readResult(new ObjectReader(context, doc, '')), { shape: 'result' }, into);
  } else {
    reportNotAList(context);
  }
  return into;
}

/** The result object for export: the tools over the kept fields, with the bundle's server info. */
function resultOf(fragment: CanonicalFragment, layout: Layout, tools: unknown[]): unknown {
  const bundle = fragment.bundle;
  // serverInfo is written only when the source had one: a plain tools/list result has none.
  const serverInfo =
    layout.fields !== undefined && 'serverInfo' in layout.fields
      ? compact<JsonObject>({ name: bundle?.name, version: bundle?.version })
      : undefined;
  return overlay(layout.fields, { tools, serverInfo, _meta: bundle?.metadata });
}

/**
 * Most bytes of tool definitions (compact JSON) per exported file. Each MCP
 * tool's schemas are self-contained (every definition they reach is in the
 * tool's own `$defs`), which for a spec as cross-linked as Stripe's is about
 * 0.7 MB a tool: a whole catalog in one file would be far past what toolcap
 * reads back (`limits.maxBytes`, 32 MB), so it is written as pages of tools.
 * @default 12 MB (about 25 MB once indented)
 */
export const MCP_FILE_BYTES = 12 * 1024 * 1024;

/**
 * `tools.json`, in the shape the tools were read in (a `tools/list` result by
 * default); when the tools pass {@link MCP_FILE_BYTES}, pages
 * `tools-001.json`, `tools-002.json`, … each in that shape, like the pages of
 * `tools/list`; with `oneFile` (standard output), always the one file.
 */
function exportMcp(fragment: CanonicalFragment, options: ExportOptions = {}): ExportedFile[] {
  const layout = layoutOf(fragment.bundle);
  const source = fragment.tools ?? [];
  // MCP's name guidance: 1 to 128 of A-Z a-z 0-9 _ - . (safe-names.ts); a name an MCP server wrote itself (its id) goes back as it was
  const own = (tool: Tool) => tool.id !== undefined && mcpWrittenName(tool) === tool.id;
  const mapping = safeNames(source.filter((t) => !own(t)).map(mcpWrittenName), MCP_NAME_RULE);
  const nameOf = (tool: Tool) => (own(tool) ? mcpWrittenName(tool) : (mapping.safe.get(mcpWrittenName(tool)) ?? mcpWrittenName(tool)));
  const tools = source.map((tool) => exportTool(tool, nameOf(tool)));
  const wrap = (list: unknown[]) =>
    layout.shape === 'array'
      ? list
      : layout.shape === 'jsonrpc'
        ? { ...layout.envelope, result: resultOf(fragment, layout, list) }
        : resultOf(fragment, layout, list);
  // the name mapping covers the whole export: it goes with the first file
  const names =
    mapping.notes.length === 0
      ? {}
      : { names: Object.fromEntries(source.map((tool) => [nameOf(tool), tool.name])), nameNotes: mapping.notes.map((note) => describeNameNote(note, MCP_NAME_RULE)) };
  const pages = options.oneFile ? [tools] : pagesOf(tools, MCP_FILE_BYTES);
  if (pages.length <= 1) return [{ path: 'tools.json', format: 'json', value: wrap(tools), ...names }];
  const width = Math.max(3, String(pages.length).length);
  return pages.map((page, i) => ({ path: `tools-${String(i + 1).padStart(width, '0')}.json`, format: 'json', value: wrap(page), ...(i === 0 ? names : {}) }));
}

/** Tools in order, cut into pages of at most `budget` bytes of JSON (a tool larger than that is a page of its own). */
function pagesOf(tools: readonly unknown[], budget: number): unknown[][] {
  const pages: unknown[][] = [];
  let page: unknown[] = [];
  let bytes = 0;
  for (const tool of tools) {
    const size = jsonSize(tool);
    if (page.length > 0 && bytes + size > budget) {
      pages.push(page);
      page = [];
      bytes = 0;
    }
    page.push(tool);
    bytes += size;
  }
  if (page.length > 0 || pages.length === 0) pages.push(page);
  return pages;
}

/** Where canonical tool fields live in an MCP tool; effects point at the hint they were read from. */
const FIELD_MAP: FieldMap = {
  name: '/name',
  id: '/name',
  title: '/title',
  description: '/description',
  inputSchema: '/inputSchema',
  outputSchema: '/outputSchema',
  metadata: '/_meta',
  hints: '/annotations',
  'hints.readOnly': '/annotations/readOnlyHint',
  'hints.destructive': '/annotations/destructiveHint',
  'hints.idempotent': '/annotations/idempotentHint',
  'hints.openWorld': '/annotations/openWorldHint',
  effects: '/annotations',
  'effects.mode': '/annotations/readOnlyHint',
  'effects.sideEffects': '/annotations/openWorldHint',
  'effects.reversible': '/annotations/destructiveHint',
  'effects.risk': '/annotations/destructiveHint',
  execution: '/annotations',
  'execution.idempotent': '/annotations/idempotentHint',
  'execution.retryClass': '/annotations/idempotentHint',
};

/**
 * The MCP `tools/list` dialect.
 * @example
 * mcpDialect.export({ tools: [{ name: 'read_graph', hints: { readOnly: true } }] });
 * // [{ path: 'tools.json', format: 'json',
 * //    value: { tools: [{ name: 'read_graph', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] } }]
 */
export const mcpDialect = defineDialect({
  id: 'mcp',
  title: 'MCP tools/list',
  detect: detectMcp,
  import: importMcp,
  export: exportMcp,
  fieldMaps: { tool: FIELD_MAP },
});
