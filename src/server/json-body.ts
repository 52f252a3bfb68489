/**
 * Request bodies: Hono's `bodyLimit` for every route that reads one (calls,
 * approvals, `/mcp`), whether the client declares a Content-Length or
 * streams chunks without one, and the JSON object the call and approval
 * routes accept.
 * @module
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { every } from 'hono/combine';
import { DEFAULT_LIMITS } from '../source/source.js';
import { errorMessage } from '../model/errors.js';
import { ApiProblem, problem } from './problem.js';

/**
 * Did the request come off a socket (@hono/node-server, as `toolcap serve`
 * runs)? Node's HTTP parser then holds the body to its declared
 * `Content-Length` (it refuses a message with both that and chunked, or two
 * lengths). A Request made in process (an embedder's `app.request`) may
 * declare a length its body does not keep to.
 */
export const bodyOffSocket = (c: Context): boolean => (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined;

/**
 * At most `maxBytes` of body, else 413 PAYLOAD_TOO_LARGE. A declared length
 * is refused before reading; a streamed body is counted as it arrives.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  const refuse = (c: Context): never => {
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    const detail = declared > maxBytes ? `The body is ${declared} bytes; at most ${maxBytes}.` : `The body is over ${maxBytes} bytes.`;
    throw new ApiProblem(problem('PAYLOAD_TOO_LARGE', detail));
  };
  const streamed = bodyLimit({ maxSize: maxBytes, onError: refuse });
  return async (c, next) => {
    // a declared length is Hono's own first test, made here without touching `body`: on Node that
    // would wrap the socket in a Web stream, and the route could no longer read it straight off
    // the socket (about a fifth of the /mcp route's own time per tools/call in a profile)
    const declared = c.req.raw.headers.get('content-length');
    if (declared !== null && bodyOffSocket(c) && !c.req.raw.headers.has('transfer-encoding')) {
      if (Number.parseInt(declared || '0', 10) > maxBytes) refuse(c);
      await next();
      return;
    }
    return streamed(c, next);
  };
}

/** Refuse a body that is not `application/json` (or `+json`) with 415, before reading it. */
const requireJson: MiddlewareHandler = async (c, next) => {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) throw new ApiProblem(problem('UNSUPPORTED_MEDIA_TYPE', `Send the body as application/json (got ${type || 'no content type'}).`));
  await next();
};

/** The middleware of a route that reads a JSON body: the media type, then the size. */
export function jsonBody(maxBytes: number): MiddlewareHandler {
  return every(requireJson, limitBody(maxBytes));
}

/** JSON.parse that refuses nesting deeper than the manifest limit (a deep body must not blow the stack later). */
function parseJsonSafely(text: string): unknown {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++;
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) max = Math.max(max, ++depth);
    else if (ch === 125 || ch === 93) depth--;
  }
  if (max > DEFAULT_LIMITS.maxDepth) throw new Error(`nesting is ${max} levels deep; at most ${DEFAULT_LIMITS.maxDepth}`);
  return JSON.parse(text);
}

/** The body (already limited by {@link jsonBody}) as a JSON object; empty is `{}`, anything else 400 BAD_BODY. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = parseJsonSafely(text);
  } catch (error) {
    throw new ApiProblem(problem('BAD_BODY', `The body is not JSON: ${errorMessage(error)}.`));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ApiProblem(problem('BAD_BODY', 'The body must be a JSON object.'));
  return value as Record<string, unknown>;
}

/** A body field that is absent, null or a non-empty string; anything else is 400 BAD_BODY pointing at it. */
export function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v === '') throw new ApiProblem(problem('BAD_BODY', `"${name}" must be a non-empty string.`, { pointer: `/${name}` }));
  return v;
}
