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
 * the request's signal; the request headers fetch never sends as given
 * (`host`, connection-level ones) left out; a redirect followed by fetch's
 * rules, never by asking the first URL again (a 303 after a POST is the
 * answer to a POST that ran): 303, and 301/302 after a POST, become a GET
 * without the body, 307/308 repeat the request, credentials are dropped
 * across origins, and the real `fetch` goes on from the new location; any
 * body that is not a string or bytes also goes to fetch. It asks for no
 * content coding (`accept-encoding: identity`), decodes gzip, deflate and
 * brotli (in any stack) when a server sends them anyway, and passes any
 * other coding through undecoded, as fetch does.
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

/** Request headers fetch sets itself whatever the caller gives (forbidden request headers that reach the wire). */
const NOT_SENT = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection', 'content-length', 'expect']);

/** Request headers as a plain object, with fetch's defaults where the caller set none. */
function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, name) => {
    if (!NOT_SENT.has(name)) out[name] = value;
  });
  out['user-agent'] ??= 'node';
  out['accept-encoding'] ??= 'identity';
  return out;
}

/**
 * undici's answer headers as a Headers object (repeated names appended). A
 * value with bytes past ASCII, which undici has read as UTF-8, is kept as
 * its UTF-8 bytes, one character each (fetch reads the raw bytes so; an
 * invalid sequence is already lost here), rather than failing the answer.
 */
function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  const append = (name: string, value: string) => {
    try {
      headers.append(name, value);
    } catch {
      headers.append(name, Buffer.from(value, 'utf8').toString('latin1'));
    }
  };
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const v of value) append(name, v);
    else if (value !== undefined) append(name, value);
  }
  return headers;
}

/** Headers that carry credentials: not sent on to another origin (as fetch drops them). */
const CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie'];
/** Headers about a body: not sent with the GET a redirect turns a POST into. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/** The request fetch makes after a redirect answer, by its rules; undefined when there is nowhere to go. */
function redirected(url: string | URL, init: RequestInit | undefined, status: number, location: string): [URL, RequestInit] | undefined {
  let next: URL;
  try {
    next = new URL(location, url);
  } catch {
    return undefined;
  }
  const method = (init?.method ?? 'GET').toUpperCase();
  const headers = new Headers(init?.headers);
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  if (toGet) for (const name of BODY_HEADERS) headers.delete(name);
  if (next.origin !== new URL(url).origin) for (const name of CREDENTIALS) headers.delete(name);
  const { body: _body, method: _method, headers: _headers, ...rest } = init ?? {};
  return [next, { ...rest, headers, ...(toGet ? { method: 'GET' } : { method, ...(init?.body == null ? {} : { body: init.body }) }) }];
}

/** The decoders for a `content-encoding` value (applied in reverse order); undefined when one coding is unknown. */
function decodersFor(value: string | null): Array<() => NodeJS.ReadWriteStream> | undefined {
  const codings = (value ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const found = codings.map((c) => decoders[c]);
  return found.every((d) => d !== undefined) ? (found as Array<() => NodeJS.ReadWriteStream>).reverse() : undefined;
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
    const location = answer.headers.location;
    if ([301, 302, 303, 307, 308].includes(statusCode) && typeof location === 'string') {
      await answer.body.dump().catch(() => undefined);
      const next = redirected(url, init, statusCode, location);
      if (next) return fallback(...next);
    }
    const headers = responseHeaders(answer.headers);
    if (NULL_BODY.has(statusCode) || method === 'HEAD') {
      await answer.body.dump().catch(() => undefined);
      return new Response(null, { status: statusCode, headers });
    }
    // codings it cannot decode pass through as they came, as fetch passes them
    const stack = decodersFor(headers.get('content-encoding')) ?? [];
    if (stack.length > 0) {
      headers.delete('content-encoding');
      headers.delete('content-length');
    }
    // pipeline: an error or abort of the answer ends the decoded stream too
    const source: Readable = stack.length > 0 ? (pipeline([answer.body, ...stack.map((make) => make())], () => undefined) as unknown as Readable) : answer.body;
    if ((headers.get('content-type') ?? '').includes('text/event-stream')) {
      return new Response(Readable.toWeb(source) as ReadableStream<Uint8Array>, { status: statusCode, headers });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of source) chunks.push(chunk as Buffer);
    return new Response(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), { status: statusCode, headers });
  };
}
