/**
 * Search mode of the gateway (`tools: 'search'`): the answer to tool
 * definitions filling the agent's context. `tools/list` shows two meta-tools
 * instead of the catalog: `toolcap_search_tools`, which ranks the session's
 * callable tools for a task (./search-answer.ts), and `toolcap_call_tool`,
 * which calls any of them by name through the gateway's one call path. The
 * tools a search found join the session's list (the last
 * {@link MAX_FOUND_TOOLS}), and the server sends `list_changed`.
 *
 * This module holds the meta-tools' definitions, the checks of their
 * (untrusted) arguments, the per-session set of found tools and the
 * search-mode `tools/list`. The list is a view, not a permission: a tool not
 * found yet is still callable when the session may call it.
 * @module
 */
import type { CallToolResult, ListToolsResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../model/objects.js';
import type { Tool } from '../model/schema.js';
import { GATEWAY_TOOLS } from '../model/vocabulary.js';
import type { Snapshot } from '../registry/snapshot.js';
import { errorResult } from './call-results.js';
import { mcpToolOf } from './projection.js';
import { invalidCursor } from './tool-list.js';

export { GATEWAY_TOOLS_MODES, type GatewayToolsMode } from './config.js';

/** The search meta-tool. Like every gateway tool name, it has an underscore where catalog names have dots (and no catalog tool may take it). */
export const SEARCH_TOOL = GATEWAY_TOOLS.search;
/** The call meta-tool. */
export const CALL_TOOL = GATEWAY_TOOLS.call;
/** Longest query, in characters. */
export const MAX_QUERY_CHARS = 500;
/** Matches a search returns unless it asks for another number. */
export const DEFAULT_SEARCH_LIMIT = 5;
/** Most matches one search returns. */
export const MAX_SEARCH_LIMIT = 20;
/** Found tools a session lists at most: the most recently found. */
export const MAX_FOUND_TOOLS = 20;

/** The search meta-tool as `tools/list` shows it. */
export const searchToolDefinition: McpTool = {
  name: SEARCH_TOOL,
  title: 'Search tools',
  description:
    'Find the tools for a task, ranked: the safest tool that fits first. Describe the task in words. Each match gives its mode (read/write), risk, whether a call needs human approval, why it ranked where it did, safer alternatives and its inputSchema. ' +
    `The matches then appear in tools/list (list_changed is sent); call one directly, or through ${CALL_TOOL}.`,
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'The task, in words: "open an issue about the failing build".' },
      intent: { type: 'string', enum: ['read', 'write'], description: 'Whether the task reads or changes something; default: read from the query.' },
      limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT, description: 'Matches to return.' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { title: 'Search tools', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

/** The call meta-tool as `tools/list` shows it. */
export const callToolDefinition: McpTool = {
  name: CALL_TOOL,
  title: 'Call a tool',
  description:
    `Call a tool by name with its arguments, for clients that do not refresh tools/list: any tool you may call, found by ${SEARCH_TOOL} or not. ` +
    'Approvals, argument checks and the audit log apply exactly as to a direct call; the answer is the tool\'s own.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: `The tool's name, as ${SEARCH_TOOL} gives it.` },
      arguments: { type: 'object', description: 'The tool\'s arguments, matching its inputSchema.' },
    },
    required: ['name'],
    additionalProperties: false,
  },
  // what it calls decides what happens: MCP's defaults (may write, destructive, open world) are the honest hints
  annotations: { title: 'Call a tool' },
};

/** A search as asked, checked. */
export interface SearchArgs {
  query: string;
  intent?: 'read' | 'write';
  limit: number;
}

/** A tool error for an argument that fails the meta-tool's schema (the input is never echoed). */
const invalid = (pointer: string, message: string) => errorResult('INVALID_ARGUMENTS', `${pointer.slice(1) || 'arguments'}: ${message}`, { pointer });

/** Fields outside `known`: the schemas say `additionalProperties: false`. */
function unknownField(args: Record<string, unknown>, known: readonly string[]): CallToolResult | undefined {
  const extra = Object.keys(args).find((k) => !known.includes(k));
  return extra === undefined ? undefined : invalid('', `unknown field (known: ${known.join(', ')}).`);
}

/**
 * The arguments of a `toolcap_search_tools` call, or the tool error saying
 * what is wrong: a query of 1 to {@link MAX_QUERY_CHARS} characters (not
 * only spaces), `intent` read or write, `limit` an integer from 1 to
 * {@link MAX_SEARCH_LIMIT}, no other field.
 * @example parseSearchArgs({ query: 'open an issue' }) // { query: 'open an issue', limit: 5 }
 */
export function parseSearchArgs(args: Record<string, unknown>): SearchArgs | CallToolResult {
  const unknown = unknownField(args, ['query', 'intent', 'limit']);
  if (unknown) return unknown;
  const { query, intent, limit } = args;
  if (typeof query !== 'string' || query.trim() === '') return invalid('/query', 'a task in words is required (a non-empty string).');
  if (query.length > MAX_QUERY_CHARS) return invalid('/query', `at most ${MAX_QUERY_CHARS} characters (got ${query.length}).`);
  if (intent !== undefined && intent !== 'read' && intent !== 'write') return invalid('/intent', 'read or write.');
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)) {
    return invalid('/limit', `an integer from 1 to ${MAX_SEARCH_LIMIT}.`);
  }
  return { query: query.trim(), limit: limit ?? DEFAULT_SEARCH_LIMIT, ...(intent !== undefined ? { intent } : {}) };
}

/** A call as `toolcap_call_tool` asks for it. */
export interface CallArgs {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The arguments of a `toolcap_call_tool` call, or the tool error saying what
 * is wrong: a tool name (not a meta-tool's: call those directly) and, when
 * given, an object of arguments.
 * @example parseCallArgs({ name: 'text.reverse', arguments: { text: 'hi' } })
 */
export function parseCallArgs(args: Record<string, unknown>): CallArgs | CallToolResult {
  const unknown = unknownField(args, ['name', 'arguments']);
  if (unknown) return unknown;
  const { name, arguments: inner } = args;
  if (typeof name !== 'string' || name === '') return invalid('/name', 'the name of the tool to call is required.');
  if (name === SEARCH_TOOL || name === CALL_TOOL) return invalid('/name', `${name} is called directly, not through ${CALL_TOOL}.`);
  if (inner !== undefined && !isPlainObject(inner)) return invalid('/arguments', 'an object of the tool\'s arguments.');
  return { name, arguments: inner ?? {} };
}

/**
 * The tools a session's searches found, most recent last, at most
 * {@link MAX_FOUND_TOOLS}: finding one again makes it the most recent, and
 * the oldest drop out.
 */
export class FoundTools {
  readonly #names = new Set<string>();
  readonly #max: number;

  constructor(max = MAX_FOUND_TOOLS) {
    this.#max = max;
  }

  /** Add names in rank order (the best stays the most recent); true when the set of names changed. */
  add(names: readonly string[]): boolean {
    const before = [...this.#names].sort().join('\n');
    for (const name of [...names].reverse()) {
      this.#names.delete(name);
      this.#names.add(name);
    }
    for (const name of this.#names) {
      if (this.#names.size <= this.#max) break;
      this.#names.delete(name);
    }
    return [...this.#names].sort().join('\n') !== before;
  }

  /** The names, oldest first. */
  names(): string[] {
    return [...this.#names];
  }
}

/**
 * `tools/list` in search mode, one page: the two meta-tools, then the found
 * tools the session may still call (a reload may have taken one away; each
 * projected from the serving snapshot, by name), then `extra` (the approval
 * status tool). Any cursor is refused: this list has one page.
 */
export function searchModePage(snapshot: Snapshot, persona: string | undefined, found: FoundTools, cursor: string | undefined, extra: readonly McpTool[], keep: (tool: Tool) => boolean = () => true): ListToolsResult {
  if (cursor !== undefined) throw invalidCursor(cursor);
  const tools = found
    .names()
    .map((name) => snapshot.callable(name, persona))
    .filter((tool): tool is Tool => tool !== undefined && keep(tool))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(mcpToolOf);
  return { tools: [searchToolDefinition, callToolDefinition, ...tools, ...extra] };
}
