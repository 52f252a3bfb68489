/**
 * Release what the SDK's Streamable HTTP server transport keeps of every
 * answered POST in JSON response mode (`enableJsonResponse: true`, which the
 * gateway uses).
 *
 * The transport (`@modelcontextprotocol/sdk` 1.x, up to at least 1.32.2)
 * registers each POST in its private `_streamMapping` with the resolver of
 * the pending `Response`; in JSON mode it resolves that Response but never
 * removes the entry, so the resolver, its promise and so the answered
 * Response (body included) stay reachable until the session closes
 * (upstream modelcontextprotocol/typescript-sdk#2559; the v1.x fix, #2747,
 * is not released). One Stripe listing is 23 `tools/list` pages of up to
 * 8 MB: every open session that listed it kept about 350 MB of answers.
 *
 * Here the entry is removed once its Response is resolved, as the SDK's SSE
 * branch does with `cleanup()`. When the transport has no such map (a
 * future SDK), nothing is patched and `false` is returned; the gateway's
 * memory test then shows whether the new SDK still keeps answers.
 * @module
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/** The part of the SDK's stream mapping entry this module reads. */
interface StreamEntry {
  resolveJson?: (response: Response) => void;
}

/**
 * Make `transport` forget each JSON-mode POST once it is answered. Returns
 * whether the transport was patched (false: not the SDK shape this knows).
 * @example
 * const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true, sessionIdGenerator: randomUUID });
 * releaseAnsweredStreams(transport);
 */
export function releaseAnsweredStreams(transport: WebStandardStreamableHTTPServerTransport): boolean {
  const streams = (transport as unknown as { _streamMapping?: unknown })._streamMapping;
  if (!(streams instanceof Map)) return false;
  const map = streams as Map<string, StreamEntry>;
  const set = map.set.bind(map);
  map.set = (id: string, entry: StreamEntry) => {
    const resolve = entry?.resolveJson;
    if (typeof resolve === 'function') {
      entry.resolveJson = (response: Response) => {
        // only this POST's own entry: a later registration under the same id stays
        if (map.get(id) === entry) map.delete(id);
        resolve(response);
      };
    }
    return set(id, entry);
  };
  return true;
}
