/**
 * toolcap's catalog as framework tools see it, whatever the framework: a name
 * the framework (and the OpenAI API behind it) accepts, a description, an
 * object schema for the parameters, whether a call needs a person's approval
 * (the runtime's own rule, {@link approvalReason}: the manifest's
 * `approval.required`/`consent`, the configured rules by side effects, risk
 * and mode, and the built-in rule for experimental tools), and the
 * capability block the MCP gateway puts in `_meta` (docs/mcp.md).
 * @module
 */
import type { Tool } from '../model/schema.js';
import { isPlainObject } from '../model/objects.js';
import { capabilityMetaOf, type McpCapabilityMeta } from '../mcp/projection.js';
import { approvalReason } from '../runtime/approval-rules.js';
import type { ToolcapClient } from './client.js';

/** One toolcap tool, ready for a framework. */
export interface AdapterTool {
  /** The name the framework and the model see (see {@link adapterToolName}). */
  name: string;
  /** The toolcap tool it calls. */
  toolcapName: string;
  description: string;
  /** An object schema: the manifest's `inputSchema`, with `type`, `properties` and `required` filled in. */
  parameters: Record<string, unknown> & { type: 'object'; properties: Record<string, unknown>; required: string[] };
  /** Why a call needs approval, up front; undefined when the manifest and the known rules ask none. */
  approvalReason: string | undefined;
  /** The `_meta["toolcap.dev/capability"]` block the MCP gateway lists. */
  capability: McpCapabilityMeta;
}

/** What a tool name may be for the OpenAI API (and so for the Agents SDK and most AI SDK providers). */
const SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The name a framework sees for a toolcap tool: itself when it matches
 * `^[a-zA-Z0-9_-]{1,64}$`, else every other character as `_`, cut to 64.
 * A local stand-in for the project's name mapping (issue 17, item 5); the
 * adapters resolve collisions themselves ({@link adapterTools}).
 * @example adapterToolName('notes.append') // 'notes_append'
 */
export function adapterToolName(name: string): string {
  if (SAFE_NAME.test(name)) return name;
  const safe = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return safe === '' ? 'tool' : safe;
}

/** The manifest's input schema as an object schema a framework accepts. */
function parametersOf(tool: Tool): AdapterTool['parameters'] {
  const schema = isPlainObject(tool.inputSchema) && (tool.inputSchema['type'] === undefined || tool.inputSchema['type'] === 'object') ? tool.inputSchema : {};
  const properties = isPlainObject(schema['properties']) ? schema['properties'] : {};
  const required = Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : [];
  return { ...schema, type: 'object', properties, required };
}

/** Options shared by the adapters' catalog. */
export interface AdapterCatalogOptions {
  /** Keep only these tools (toolcap names, `*` at the end for a prefix), or a predicate. @default all the identity may call */
  tools?: readonly string[] | ((tool: Tool) => boolean);
}

const keeps = (filter: AdapterCatalogOptions['tools']) => {
  if (filter === undefined) return () => true;
  if (typeof filter === 'function') return filter;
  return (tool: Tool) => filter.some((p) => (p.endsWith('*') ? tool.name.startsWith(p.slice(0, -1)) : p === tool.name));
};

/**
 * The tools the client may call, as {@link AdapterTool}s, in name order.
 * Two toolcap names that sanitize alike get `_2`, `_3`, ... after the first.
 * @example (await adapterTools(client)).find((t) => t.toolcapName === 'notes.append')?.name // 'notes_append'
 */
export async function adapterTools(client: ToolcapClient, options: AdapterCatalogOptions = {}): Promise<AdapterTool[]> {
  const keep = keeps(options.tools);
  const tools = (await client.tools()).filter(keep).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const taken = new Set<string>();
  return tools.map((tool) => {
    const base = adapterToolName(tool.name);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
    taken.add(name);
    return {
      name,
      toolcapName: tool.name,
      description: tool.description ?? tool.title ?? tool.name,
      parameters: parametersOf(tool),
      approvalReason: approvalReason(tool, client.persona, client.rules ?? []),
      capability: capabilityMetaOf(tool),
    };
  });
}
