/**
 * Reading a server's whole `tools/list`: page after page, within limits a
 * hostile or broken server cannot push past (too many pages, too many
 * tools, too many bytes in all, a cursor that repeats).
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { jsonSize } from '../model/json-size.js';
import type { McpToolDefinition } from './discovery.js';

/** Most `tools/list` pages read from one server per discovery. */
export const MAX_PAGES = 100;
/** Most tools read from one server per discovery. */
export const MAX_TOOLS = 10_000;
/**
 * Most bytes of tool definitions (as JSON) read from one server per
 * discovery. Each page is bounded by `mcp.maxResponseBytes`, but 100 pages
 * of 10 MiB would be a gigabyte held in memory and written to the discovery
 * cache; the largest real lists are a few MB (GitHub's 114 tools: 0.3 MB).
 */
export const MAX_LIST_BYTES = 32 * 1024 * 1024;
/** Longest wait for a `tools/list` page. */
const LIST_TIMEOUT_MS = 30_000;

/**
 * Every page of `tools/list`, within {@link MAX_PAGES}, {@link MAX_TOOLS}
 * and {@link MAX_LIST_BYTES}; `truncated` says why the list stopped early.
 * @example const { tools } = await listAllTools(client);
 */
export async function listAllTools(client: Pick<Client, 'listTools'>, maxBytes = MAX_LIST_BYTES): Promise<{ tools: McpToolDefinition[]; truncated?: string }> {
  const tools: McpToolDefinition[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let bytes = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: LIST_TIMEOUT_MS });
    for (const t of result.tools) {
      if (tools.length >= MAX_TOOLS) return { tools, truncated: `more than ${MAX_TOOLS} tools; the rest are left out` };
      bytes += jsonSize(t);
      if (bytes > maxBytes) return { tools, truncated: `the tool definitions pass ${maxBytes} bytes of JSON after ${tools.length} tools; the rest are left out` };
      tools.push(t as McpToolDefinition);
    }
    cursor = result.nextCursor;
    if (cursor === undefined || cursor === '') return { tools };
    if (cursors.has(cursor)) return { tools, truncated: `tools/list repeated the cursor "${cursor}"; stopped there` };
    cursors.add(cursor);
  }
  return { tools, truncated: `more than ${MAX_PAGES} pages of tools; the rest are left out` };
}
