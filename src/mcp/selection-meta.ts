/**
 * Selections over MCP: `toolcap_search_tools` keeps its answer as a
 * selection (runtime/selections.ts) and gives its id in
 * `structuredContent.selection` and `_meta["toolcap.dev/selection"]`; a
 * `tools/call` (or `toolcap_call_tool`) whose request `_meta` carries that
 * key passes it to the runtime, which records what the tool was selected
 * over on the call's span and audit lines.
 * @module
 */
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '../model/objects.js';
import { SELECTION_ID, selectionCandidate, selectionOwner, type Selections } from '../runtime/selections.js';

/** The `_meta` key of a selection id, on search results and on call requests. */
export const SELECTION_META_KEY = 'toolcap.dev/selection';

/**
 * The selection id a call request's `_meta` carries; undefined without one.
 * A value that is not a selection id is InvalidParams.
 * @example selectionOfMeta({ 'toolcap.dev/selection': 'sel_…' }) // 'sel_…'
 */
export function selectionOfMeta(meta: unknown): string | undefined {
  if (!isPlainObject(meta) || meta[SELECTION_META_KEY] === undefined) return undefined;
  const id = meta[SELECTION_META_KEY];
  if (typeof id === 'string' && SELECTION_ID.test(id)) return id;
  throw new McpError(ErrorCode.InvalidParams, `_meta["${SELECTION_META_KEY}"] is not a selection id (the one a toolcap_search_tools answer gave).`, { code: 'BAD_SELECTION' });
}

/** A search result kept as a selection for `principal`: its id added to the structured content, the text and `_meta`. */
export function withSelectionId(result: CallToolResult, selections: Selections, principal: { id: string } | undefined, query: string): CallToolResult {
  const structured = result.structuredContent;
  if (result.isError === true || !isPlainObject(structured)) return result;
  const matches = Array.isArray(structured['matches']) ? (structured['matches'] as Array<Record<string, unknown>>) : [];
  const candidates = matches.map((m) =>
    selectionCandidate({
      name: String(m['name']),
      rank: Number(m['rank']),
      score: Number(m['score']),
      fit: Number(m['fit']),
      penalties: Array.isArray(m['penalties']) ? (m['penalties'] as Array<{ code: string; points: number; reason: string }>) : [],
    }),
  );
  const id = selections.record(selectionOwner(principal), query, candidates);
  const note = { type: 'text' as const, text: `Selection ${id}: pass it as _meta["${SELECTION_META_KEY}"] when you call one of these tools.` };
  return { ...result, content: [...result.content, note], structuredContent: { ...structured, selection: id }, _meta: { ...(result._meta ?? {}), [SELECTION_META_KEY]: id } };
}
