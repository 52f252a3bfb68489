/**
 * `tools/list` for the gateway: the persona's callable tools by name, 100 a
 * page or fewer when their definitions pass {@link MCP_PAGE_BYTES}. The cursor names the last tool of the previous page rather than an
 * offset, so walking the pages across a reload neither repeats nor skips
 * the tools that did not change.
 * @module
 */
import { ErrorCode, McpError, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../model/errors.js';
import { isPlainObject } from '../model/objects.js';
import type { Tool } from '../model/schema.js';
import type { Registry } from '../registry/registry.js';
import { jsonSize } from '../model/json-size.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { mcpToolOf } from './projection.js';

/** Most tools per `tools/list` page. */
export const MCP_PAGE_SIZE = 100;

/**
 * Most bytes of tool definitions (compact JSON) per `tools/list` page: a
 * page ends before the tool that would pass it (a page always holds at
 * least one tool). Self-contained schemas can be large (a Stripe tool
 * reaching most of its components is about 0.7 MB), and clients and proxies
 * commonly refuse messages past 10 MB. @default 8 MB
 */
export const MCP_PAGE_BYTES = 8 * 1024 * 1024;

/** Each tool's MCP definition and its size, made once per tool (snapshot tools are frozen). */
const projected = new WeakMap<Tool, { readonly tool: McpTool; readonly bytes: number }>();

/** The MCP definition of a tool with its JSON size, cached per tool. */
export function projectedTool(tool: Tool): { readonly tool: McpTool; readonly bytes: number } {
  let known = projected.get(tool);
  if (known === undefined) {
    const definition = mcpToolOf(tool);
    projected.set(tool, (known = { tool: definition, bytes: jsonSize(definition) }));
  }
  return known;
}

/**
 * The tools a gateway lists: the persona's enabled tools, or with no persona the shared ones; by name.
 * @example gatewayTools(registry, 'ops').map((t) => t.name)
 */
export function gatewayTools(registry: Registry, persona?: string): Tool[] {
  return [...registry.snapshot().callableTools(persona)];
}

/** A page cursor: the last name of the previous page, base64url JSON. */
const encodeCursor = (after: string) => Buffer.from(JSON.stringify({ after }), 'utf8').toString('base64url');

/** The InvalidParams error for a cursor that is not one of ours. */
export function invalidCursor(cursor: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid cursor "${cursor.slice(0, 80)}": use the nextCursor of a previous tools/list answer.`);
}

function decodeCursor(cursor: string): string {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (isPlainObject(value) && typeof value['after'] === 'string') return value['after'];
  } catch {
    // any malformed cursor gets the one answer below
  }
  throw invalidCursor(cursor);
}

/**
 * One `tools/list` page after `cursor` (none: the first), of the tools
 * `keep` keeps (all without it). Throws an
 * `McpError` for a cursor that is not ours (InvalidParams) or a registry
 * with no catalog (InternalError).
 */
export function listToolsPage(registry: Registry, persona: string | undefined, cursor: string | undefined, keep?: (tool: Tool) => boolean): ListToolsResult {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  let tools: Tool[];
  try {
    tools = gatewayTools(registry, persona);
    // the session's agent view (query/agent-view.ts), when it has one
    if (keep !== undefined) tools = tools.filter(keep);
  } catch (error) {
    throw new McpError(ErrorCode.InternalError, `The catalog is not available: ${errorMessage(error)}`);
  }
  const start = after === undefined ? 0 : tools.findIndex((t) => t.name > after);
  const rest = start < 0 ? [] : tools.slice(start);
  const page: McpTool[] = [];
  let bytes = 0;
  let last: Tool | undefined;
  for (const tool of rest) {
    if (page.length >= MCP_PAGE_SIZE) break;
    const item = projectedTool(tool);
    if (page.length > 0 && bytes + item.bytes > MCP_PAGE_BYTES) break;
    page.push(item.tool);
    bytes += item.bytes;
    last = tool;
  }
  return { tools: page, ...(rest.length > page.length && last ? { nextCursor: encodeCursor(last.name) } : {}) };
}
