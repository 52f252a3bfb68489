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
 * (`host`, connection-level ones) left out; `redirect: 'manual'` (what the
 * SDK's transports ask for: they follow a redirect only within the origin,
 * through this fetch again) and `'error'` honoured. It asks for no content
 * coding (`accept-encoding: identity`), decodes gzip, deflate and brotli (in
 * any stack) when a server sends them anyway, and passes any other coding
 * through undecoded, as fetch does.
 *
 * What it adds for the upstream hop (./upstream-fetch.ts gives the options):
 * connections from a given dispatcher (the egress guard's, which checks
 * every DNS answer); a redirect followed here, hop by hop, by fetch's rules
 * (303, and 301/302 after a POST, become a GET without the body; 307/308
 * repeat the request; never by asking the first URL again) and by toolcap's
 * (./upstream-redirects.ts: each target checked by the egress policy,
 * credentials dropped across origins, at most {@link MAX_REDIRECTS}); and a
 * size limit: a body past `maxResponseBytes` (declared or read, decoded)
 * fails with an {@link UpstreamTooLargeError} and its connection is
 * destroyed, and an event stream passes whole messages only, ending at the
 * first one past the limit, with a JSON-RPC error answer to the request it
 * answers when the request had an id (so that call fails at once, naming the
 * server and the limit), or with the error otherwise. The answer to a POST
 * of one request that comes alone on its event stream is handed over as a
 * JSON answer (./event-stream-answer.ts: the SDK then builds no stream
 * parsers for it). A body that is not a
 * string or bytes goes to `fallback` (fetch over the same dispatcher, no
 * redirect followed), and its answer gets the same redirect rules and limits.
 * @module
 */
import { pipeline, Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { request, type Dispatcher } from 'undici';
import { DEFAULT_MAX_BODY_BYTES } from '../runtime/containment/body-limit.js';
import type { EgressGuard } from '../runtime/containment/egress.js';
import { limitEventStream } from '../runtime/containment/event-stream-limit.js';
import type { CrossOriginRedirects } from '../runtime/containment/redirects.js';
import { UpstreamRedirectError, UpstreamTooLargeError } from './upstream-errors.js';
import { readEventStreamAnswer } from './event-stream-answer.js';
import { requestIds } from './request-ids.js';
import { followRedirect, type RedirectRules } from './upstream-redirects.js';

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

/** The decoders for a `content-encoding` value (applied in reverse order); undefined when one coding is unknown. */
function decodersFor(value: string | null): Array<() => NodeJS.ReadWriteStream> | undefined {
  const codings = (value ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const found = codings.map((c) => decoders[c]);
  return found.every((d) => d !== undefined) ? (found as Array<() => NodeJS.ReadWriteStream>).reverse() : undefined;
}

/** Options of {@link leanFetch}. */
export interface LeanFetchOptions {
  /** Where connections come from (e.g. a `guardedDispatcher`). @default undici's global dispatcher */
  dispatcher?: Dispatcher;
  /** Largest answer body, and largest single message of an event stream, in bytes. @default DEFAULT_MAX_BODY_BYTES (10 MiB) */
  maxResponseBytes?: number;
  /** When given, every redirect hop must pass it by name (the dispatcher checks the addresses). */
  egress?: EgressGuard;
  /** A redirect to another origin: followed without credentials, or refused. @default 'drop-credentials' */
  crossOriginRedirects?: CrossOriginRedirects;
  /** Headers besides authorization, proxy-authorization and cookie that never go to another origin (e.g. a configured API-key header). */
  credentialHeaders?: readonly string[];
  /** Who answers, for error messages. @default 'the upstream server' */
  upstream?: string;
  /** Told of every answer past the limit (the request fails with the same error). */
  onOversize?: (error: UpstreamTooLargeError) => void;
  /**
   * Put in the `data` of the JSON-RPC error answers written for an event-stream message past the limit
   * (`{ oversize: marker }`), so the caller can tell them from a server's own errors: a secret the server never sees.
   */
  oversizeMarker?: string;
  /** Sends a request whose body is not a string or bytes. @default the global fetch over `dispatcher`, redirects not followed */
  fallback?: FetchLike;
}

/** One hop's answer, before its body is read. */
interface Hop {
  status: number;
  headers: Headers;
  /** The body as it came (undici's Readable, or a fetch body); null when none. */
  body: Readable | ReadableStream<Uint8Array> | null;
}

/** Read and forget a body, freeing its connection for reuse. */
async function discard(body: Hop['body']): Promise<void> {
  if (body === null) return;
  if (body instanceof Readable) await (body as Readable & { dump?: () => Promise<void> }).dump?.().catch(() => undefined);
  else await body.cancel().catch(() => undefined);
}

/** Destroy a stream and the connection under it; the abort error undici then emits is expected, not an uncaught one. */
function drop(...streams: Readable[]): void {
  for (const stream of streams) {
    stream.on('error', () => undefined);
    stream.destroy();
  }
}

/** A Node stream's bytes, at most `max` of them (decoded size); past it `raw` (the connection's stream) and `source` are destroyed. */
async function readWhole(source: Readable, raw: Readable, max: number, tooLarge: () => Error): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += (chunk as Buffer).byteLength;
    if (size > max) {
      chunks.length = 0;
      drop(raw, source);
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/**
 * A fetch on undici's `request()`, over `options.dispatcher` (the global
 * dispatcher by default), with redirects followed here hop by hop under the
 * egress and credential rules, and answers read up to the size limit.
 * `redirect: 'manual'` (what the SDK's transports ask for) returns a
 * redirect answer as it is; `'error'` fails on one.
 * @example new StreamableHTTPClientTransport(url, { fetch: isolatedSignalFetch(leanFetch({ dispatcher, maxResponseBytes })) })
 */
export function leanFetch(options: LeanFetchOptions = {}): FetchLike {
  const dispatcher = options.dispatcher;
  const max = options.maxResponseBytes ?? DEFAULT_MAX_BODY_BYTES;
  const upstream = options.upstream ?? 'the upstream server';
  const fallback: FetchLike = options.fallback ?? ((url, init) => fetch(url, { ...init, redirect: 'manual', ...(dispatcher ? { dispatcher } : {}) } as RequestInit));
  const policy = { ...(options.egress ? { egress: options.egress } : {}), crossOrigin: options.crossOriginRedirects ?? 'drop-credentials', credentialHeaders: options.credentialHeaders ?? [] } satisfies RedirectRules;
  const tooLarge = (part: 'body' | 'event') => () => {
    const error = new UpstreamTooLargeError(upstream, max, part);
    options.onOversize?.(error);
    return error;
  };

  /** One request, no redirect followed. */
  const hop = async (url: string | URL, init: RequestInit | undefined): Promise<Hop> => {
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      const response = await fallback(url, init);
      return { status: response.status, headers: response.headers, body: response.body };
    }
    const answer = await request(url, { method: (init?.method ?? 'GET') as 'GET', headers: headersOf(init), body: body ?? null, signal: init?.signal ?? undefined, ...(dispatcher ? { dispatcher } : {}) });
    return { status: answer.statusCode, headers: responseHeaders(answer.headers), body: answer.body };
  };

  return async (url, init) => {
    let current: [string | URL, RequestInit | undefined] = [url, init];
    let answer = await hop(...current);
    for (let hops = 0; REDIRECTS.has(answer.status); hops++) {
      const location = answer.headers.get('location');
      if (location === null || init?.redirect === 'manual') break;
      await discard(answer.body);
      if (init?.redirect === 'error') throw new TypeError(`${upstream}: redirected (HTTP ${answer.status}) where redirect is 'error'`);
      if (hops === MAX_REDIRECTS) throw new UpstreamRedirectError(upstream, `more than ${MAX_REDIRECTS} redirects`);
      current = followRedirect(current[0], current[1], answer.status, location, { ...policy, upstream });
      answer = await hop(...current);
    }
    const { status, headers } = answer;
    const method = (current[1]?.method ?? 'GET').toUpperCase();
    if (NULL_BODY.has(status) || method === 'HEAD' || answer.body === null) {
      await discard(answer.body);
      return new Response(null, { status, headers });
    }
    const declared = Number(headers.get('content-length') ?? NaN);
    const eventStream = (headers.get('content-type') ?? '').includes('text/event-stream');
    if (!eventStream && declared > max) {
      if (answer.body instanceof Readable) drop(answer.body);
      else await answer.body.cancel().catch(() => undefined);
      throw tooLarge('body')();
    }
    // a fetch body is already decoded; undici's is decoded here. Codings it cannot decode pass through as they came, as fetch passes them
    let source: Readable;
    if (answer.body instanceof Readable) {
      const stack = decodersFor(headers.get('content-encoding')) ?? [];
      if (stack.length > 0) {
        headers.delete('content-encoding');
        headers.delete('content-length');
      }
      // pipeline: an error or abort of the answer ends the decoded stream too
      source = stack.length > 0 ? (pipeline([answer.body, ...stack.map((make) => make())], () => undefined) as unknown as Readable) : answer.body;
    } else source = Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream<Uint8Array>);
    if (eventStream) {
      const sent = current[1]?.body;
      let events = source as AsyncIterable<Uint8Array>;
      // a POST of one request: its answer alone on the stream is handed over as a JSON answer (./event-stream-answer.ts)
      const ids = method === 'POST' ? requestIds(sent) : [];
      if (ids.length === 1) {
        const found = await readEventStreamAnswer(events, ids[0]!, max);
        if (found.kind === 'answer') return jsonAnswer(found, status, headers);
        events = found.body;
      }
      // a message past the limit ends the stream: with an error answer to the request it answers when there is one, else with an error
      const limited = limitEventStream(events, {
        maxEventBytes: max,
        onOverflow: () => {
          // a request other than a POST's is read only now: a normal answer costs no parse
          const answered = method === 'POST' ? ids : requestIds(sent);
          return answered.length === 0 ? undefined : errorEvents(answered, tooLarge('event')().message, options.oversizeMarker);
        },
        overflowError: tooLarge('event'),
      });
      return new Response(limited, { status, headers });
    }
    return new Response(await readWhole(source, answer.body instanceof Readable ? answer.body : source, max, tooLarge('body')), { status, headers });
  };
}

/**
 * A response read off an event stream as the JSON answer a server could have
 * sent: its text as the body, and `json()` giving the value already parsed
 * (the SDK's transport calls it once), so the text is not parsed twice.
 */
function jsonAnswer(found: { text: string; message: unknown }, status: number, headers: Headers): Response {
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  const response = new Response(found.text, { status, headers });
  Object.defineProperty(response, 'json', { value: () => Promise.resolve(found.message) });
  return response;
}

/** Statuses that redirect. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Most redirects one request follows (fetch's own limit is 20; the http provider's is 5). */
export const MAX_REDIRECTS = 5;

/** An event stream ending with an error answer to each request id: the calls waiting on it fail with `message` (and `{ oversize: marker }` as data). */
function errorEvents(ids: ReadonlyArray<string | number>, message: string, marker: string | undefined): Uint8Array {
  // -32603: JSON-RPC's internal error; the SDK rejects the waiting request with it
  const error = { code: -32603, message, ...(marker !== undefined ? { data: { oversize: marker } } : {}) };
  const events = ids.map((id) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error })}\n\n`);
  return new TextEncoder().encode(events.join(''));
}
