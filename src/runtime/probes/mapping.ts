/**
 * The built-in adapters. `mapping`: call the tool through the runtime (any
 * provider: an MCP server, an http API, a command) and map its result by the
 * declarative mapping in `metadata.probe`. `file`: the same over a JSON or
 * JSONL file or a folder of task files the tool names in
 * `metadata.probe.file` (read by the `probe-file` provider, file-provider.ts).
 *
 * `metadata.probe` (every key optional):
 * - `items`: path to the task list in the result (default `$`, the result itself);
 * - `taskId`, `title`, `state`, `updatedAt`, `url`, `assignee`: path to
 *   each field within one item (default: the field's own name);
 * - `arguments`: the arguments of the call (default `{}`);
 * - `file`: the file or folder of tasks, relative to the manifest (`file` adapter);
 * - `adapter`: the adapter's name, when neither of the above is meant.
 *
 * Paths use the syntax of path.ts (`$.data.issues`, `assignee.name`, `labels[0]`).
 * @module
 */
import type { Tool } from '../../model/schema.js';
import { parsePath, ProbePathError, readPath, type PathStep } from './path.js';
import type { ProbeAdapter, ProbeCall, ProbeContext } from './types.js';

/** The observation fields a mapping can point at. */
export const MAPPED_FIELDS = ['taskId', 'title', 'state', 'updatedAt', 'url', 'assignee'] as const;

/** A manifest's mapping that cannot be used; the source is reported `error` with this message. */
export class ProbeMappingError extends Error {
  override readonly name = 'ProbeMappingError' as const;
}

/** `metadata.probe`, checked. */
export interface ProbeSpec {
  items: PathStep[];
  fields: Record<(typeof MAPPED_FIELDS)[number], PathStep[]>;
  arguments: Record<string, unknown>;
  file?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The tool's `metadata.probe` (an empty mapping when absent); throws {@link ProbeMappingError}. */
export function probeSpecOf(tool: Tool): ProbeSpec {
  const raw = tool.metadata?.['probe'] ?? {};
  if (!isObject(raw)) throw new ProbeMappingError('metadata.probe must be an object');
  const path = (key: string, fallback: string): PathStep[] => {
    const value = raw[key] ?? fallback;
    if (typeof value !== 'string') throw new ProbeMappingError(`metadata.probe.${key} must be a path string`);
    try {
      return parsePath(value);
    } catch (error) {
      throw new ProbeMappingError(`metadata.probe.${key}: ${error instanceof ProbePathError ? error.message : String(error)}`);
    }
  };
  const args = raw['arguments'] ?? {};
  if (!isObject(args)) throw new ProbeMappingError('metadata.probe.arguments must be an object');
  const file = raw['file'];
  if (file !== undefined && (typeof file !== 'string' || file === '')) throw new ProbeMappingError('metadata.probe.file must be a non-empty path');
  const fields = Object.fromEntries(MAPPED_FIELDS.map((f) => [f, path(f, f)])) as ProbeSpec['fields'];
  return { items: path('items', '$'), fields, arguments: args, ...(file !== undefined ? { file } : {}) };
}

/**
 * What an MCP tool answered, as data: its `structuredContent`, else the JSON
 * of its one text content. Other providers' results are data already.
 */
export function resultData(call: ProbeCall): unknown {
  const r = call.result;
  if (call.providerType !== 'mcp' || !isObject(r) || !Array.isArray(r['content'])) return r;
  if (isObject(r['structuredContent']) || Array.isArray(r['structuredContent'])) return r['structuredContent'];
  const texts = (r['content'] as unknown[]).filter((c): c is { type: 'text'; text: string } => isObject(c) && c['type'] === 'text' && typeof c['text'] === 'string');
  if (texts.length !== 1) throw new ProbeMappingError(`the MCP tool answered ${texts.length} text contents and no structuredContent; expected one JSON text`);
  try {
    return JSON.parse(texts[0]!.text) as unknown;
  } catch {
    throw new ProbeMappingError('the MCP tool answered text that is not JSON, and no structuredContent');
  }
}

/**
 * Map a result by a spec: the items at `spec.items` (an array; one object
 * counts as a list of one), each item's fields at their paths. Items that
 * are not objects are passed on as they are, to be rejected by the check.
 * @example mapItems({ issues: [{ id: 1, name: 'x' }] }, probeSpecOf(tool))
 */
export function mapItems(data: unknown, spec: ProbeSpec): unknown[] {
  const list = readPath(data, spec.items);
  const items = Array.isArray(list) ? list : isObject(list) ? [list] : undefined;
  if (items === undefined) throw new ProbeMappingError(`metadata.probe.items finds ${list === undefined ? 'nothing' : `a ${typeof list}`} in the result; it must find the list of tasks`);
  return items.map((item) => {
    if (!isObject(item)) return item;
    const out: Record<string, unknown> = {};
    for (const field of MAPPED_FIELDS) {
      const value = readPath(item, spec.fields[field]);
      if (value !== undefined) out[field] = value;
    }
    return out;
  });
}

async function callAndMap(context: ProbeContext, spec: ProbeSpec): Promise<unknown[]> {
  const call = await context.call(spec.arguments);
  return mapItems(resultData(call), spec);
}

function declaresProviders(tool: Tool): boolean {
  return (tool.providers?.length ?? 0) > 0 || (tool.implementation?.module ?? '') !== '';
}

/** Call the tool through its providers and map the result by `metadata.probe`. */
export const mappingAdapter: ProbeAdapter = {
  name: 'mapping',
  async probe(context) {
    const spec = probeSpecOf(context.tool);
    if (!declaresProviders(context.tool)) {
      throw new ProbeMappingError('the tool has no provider to call (give it an http, mcp or command provider, or name a file in metadata.probe.file)');
    }
    return callAndMap(context, spec);
  },
};

/** Read the tasks of `metadata.probe.file` (through the tool's `probe-file` provider) and map them by `metadata.probe`. */
export const fileAdapter: ProbeAdapter = {
  name: 'file',
  async probe(context) {
    const spec = probeSpecOf(context.tool);
    if (spec.file === undefined) throw new ProbeMappingError('the file adapter needs metadata.probe.file');
    if (declaresProviders(context.tool)) throw new ProbeMappingError('metadata.probe.file is not read for a tool that declares providers; drop one of them');
    return callAndMap(context, spec);
  },
};
