/**
 * The JSON-RPC request ids a POST body to an upstream MCP server carries:
 * what lean-fetch answers with an error when an event stream overflows, and
 * what isolated-fetch looks for when a `notifications/cancelled` names one.
 * @module
 */

/** The ids of the requests (not notifications or responses) in a body of one message or a batch; empty when none can be read. */
export function requestIds(body: unknown): Array<string | number> {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed])
      .map((m: unknown) => (typeof m === 'object' && m !== null && 'method' in m ? (m as { id?: unknown }).id : undefined))
      .filter((id): id is string | number => typeof id === 'string' || typeof id === 'number');
  } catch {
    return [];
  }
}
