/**
 * A `fetch` for the gateway's upstream Streamable HTTP hop on undici's
 * `request()` rather than WHATWG `fetch`.
 *
 * Node's fetch builds a Request, a Headers list, a body stream for a string
 * body (written as an async iterable) and a Response around a byte stream
 * for every call; on the gateway's second hop that machinery was a fair part
 * of what a call through toolcap adds over a direct one (`npm run bench
 * mcp`; about 0.3 to 0.6 ms per request on the bench machine). Here a
 * request goes out through the same global undici dispatcher (same
 * keep-alive pool, TLS settings and connection reuse) with its string body
 * as is, and the answer is a plain `Response`: a JSON body read whole, an
 * event stream passed through as a Web stream.
 *
 * What stays as fetch does it: the `user-agent` it sends (`node`); abort by
 * the request's signal; a redirect, which is handed to the real `fetch`
 * whole (a 3xx means the server ran nothing, so asking again is safe), so
 * its rules (method changes, headers dropped across origins) are fetch's;
 * any body that is not a string or bytes also goes to fetch. It asks for
 * no content coding (`accept-encoding: identity`) and decodes gzip, deflate
 * and brotli anyway when a server sends them.
 * @module
 */
import { pipeline, Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { request } from 'undici';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Statuses whose Response may carry no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

const decoders: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** Request headers as a plain object, with fetch's defaults where the caller set none. */
function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => (out[name] = value));
  out['user-agent'] ??= 'node';
  out['accept-encoding'] ??= 'identity';
  return out;
}

/** undici's answer headers as a Headers object (repeated names appended). */
function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}

/**
 * A fetch on undici's `request()` over the global dispatcher, falling back to
 * `fallback` (the global fetch by default) for what it does not handle:
 * redirects and bodies other than a string or bytes.
 * @example new StreamableHTTPClientTransport(url, { fetch: isolatedSignalFetch(leanFetch()) })
 */
export function leanFetch(fallback: FetchLike = (url, init) => fetch(url, init)): FetchLike {
  return async (url, init) => {
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) return fallback(url, init);
    const method = init?.method ?? 'GET';
    const answer = await request(url, { method: method as 'GET', headers: headersOf(init), body: body ?? null, signal: init?.signal ?? undefined });
    const { statusCode } = answer;
    if (statusCode >= 300 && statusCode < 400 && answer.headers.location !== undefined) {
      await answer.body.dump().catch(() => undefined);
      return fallback(url, init);
    }
    const headers = responseHeaders(answer.headers);
    if (NULL_BODY.has(statusCode) || method === 'HEAD') {
      await answer.body.dump().catch(() => undefined);
      return new Response(null, { status: statusCode, headers });
    }
    const coding = (headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
    const decoder = coding === 'identity' ? undefined : decoders[coding];
    if (coding !== 'identity' && !decoder) {
      answer.body.destroy();
      throw new TypeError(`fetch failed: the server answered with content coding "${coding}", which toolcap does not decode`);
    }
    if (decoder) {
      headers.delete('content-encoding');
      headers.delete('content-length');
    }
    // pipeline: an error or abort of the answer ends the decoded stream too
    const source: Readable = decoder ? (pipeline(answer.body, decoder(), () => undefined) as unknown as Readable) : answer.body;
    if ((headers.get('content-type') ?? '').includes('text/event-stream')) {
      return new Response(Readable.toWeb(source) as ReadableStream<Uint8Array>, { status: statusCode, headers });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of source) chunks.push(chunk as Buffer);
    return new Response(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), { status: statusCode, headers });
  };
}
