/**
 * `tools/list` for the gateway: the persona's callable tools by name, 100 a
 * page. The cursor names the last tool of the previous page rather than an
 * offset, so walking the pages across a reload neither repeats nor skips
 * the tools that did not change.
 * @module
 */
import { ErrorCode, McpError, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../model/errors.js';
import { isPlainObject } from '../model/objects.js';
import type { Tool } from '../model/schema.js';
import type { Registry } from '../registry/registry.js';
import { mcpToolOf } from './projection.js';

/** Tools per `tools/list` page. */
export const MCP_PAGE_SIZE = 100;

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
  const page = rest.slice(0, MCP_PAGE_SIZE);
  const last = page.at(-1);
  return { tools: page.map(mcpToolOf), ...(rest.length > MCP_PAGE_SIZE && last ? { nextCursor: encodeCursor(last.name) } : {}) };
}
