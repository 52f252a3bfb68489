/**
 * A canonical tool as the MCP gateway lists it: name, title, description,
 * an input schema MCP accepts, MCP annotations (the mcp dialect's own
 * {@link mcpAnnotationsOf}, so `toolcap convert --to mcp` and `tools/list`
 * agree) and the `_meta["toolcap.dev/capability"]` block with what toolcap
 * knows beyond the hints. Pure: no server, no registry.
 * @module
 */
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { mcpAnnotationsOf } from '../dialects/mcp/annotations.js';
import { toolHash } from '../model/hash.js';
import type { Tool } from '../model/schema.js';
import { isPlainObject } from '../model/objects.js';

/** The `_meta` key of the capability block on every listed tool. */
export const CAPABILITY_META_KEY = 'toolcap.dev/capability';

/** The capability block of `_meta["toolcap.dev/capability"]`. Absent manifest fields are null. */
export interface McpCapabilityMeta {
  version: string | null;
  mode: string | null;
  sideEffects: string | null;
  risk: string | null;
  reversible: string | null;
  rollbackHint: string | null;
  approvalRequired: boolean;
  consent: boolean;
  retryClass: string | null;
  timeoutSec: number | null;
  idempotent: boolean | null;
  capabilities: string[];
  /** `toolHash(tool)`: what an approval binds to. */
  manifestHash: string;
}

/**
 * The capability block of a tool (`_meta["toolcap.dev/capability"]`). Unlike
 * the annotations it includes derived values: it is toolcap's full picture,
 * the one the runtime enforces.
 * @example capabilityMetaOf(tool).approvalRequired // true
 */
export function capabilityMetaOf(tool: Tool): McpCapabilityMeta {
  const e = tool.effects ?? {};
  const x = tool.execution ?? {};
  return {
    version: tool.version ?? null,
    mode: e.mode ?? null,
    sideEffects: e.sideEffects ?? null,
    risk: e.risk ?? null,
    reversible: e.reversible ?? null,
    rollbackHint: e.rollbackHint ?? null,
    approvalRequired: tool.approval?.required === true,
    consent: tool.approval?.consent === true,
    retryClass: x.retryClass ?? null,
    timeoutSec: x.timeoutSec ?? null,
    idempotent: x.idempotent ?? null,
    capabilities: [...(tool.capabilities ?? [])],
    manifestHash: toolHash(tool),
  };
}

/**
 * An object schema MCP accepts (root `type: "object"`): an object schema
 * with no `type` gets one; a boolean or non-object schema is not usable as
 * a root, so the caller falls back.
 */
function objectSchema(schema: unknown): (Record<string, unknown> & { type: 'object' }) | undefined {
  if (!isPlainObject(schema)) return undefined;
  if (schema['type'] !== undefined && schema['type'] !== 'object') return undefined;
  return { ...schema, type: 'object' };
}

/**
 * The MCP annotations the gateway lists: the hints of
 * {@link mcpAnnotationsOf}, and the title also here, for clients older than
 * the top-level `title` (MCP 2025-06-18). Undefined when there is neither.
 */
function annotationsOf(tool: Tool): McpTool['annotations'] {
  const annotations: NonNullable<McpTool['annotations']> = {
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...mcpAnnotationsOf(tool),
  };
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}

/**
 * The MCP tool definition of a toolcap tool: name, title, description,
 * inputSchema (default `{ type: "object" }`), outputSchema (only when it is
 * an object schema, as MCP requires), annotations (only what the manifest
 * declares, see docs/dialects/mcp.md) and `_meta["toolcap.dev/capability"]`
 * ({@link capabilityMetaOf}).
 * @example mcpToolOf({ name: 'text.reverse', effects: { mode: 'read' } }).annotations // { readOnlyHint: true }
 */
export function mcpToolOf(tool: Tool): McpTool {
  const outputSchema = objectSchema(tool.outputSchema);
  const annotations = annotationsOf(tool);
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: objectSchema(tool.inputSchema) ?? { type: 'object' },
    ...(outputSchema ? { outputSchema } : {}),
    ...(annotations ? { annotations } : {}),
    _meta: { [CAPABILITY_META_KEY]: capabilityMetaOf(tool) },
  };
}
