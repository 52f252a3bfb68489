/**
 * Telling a client that went away from a toolcap failure. A client that
 * disconnects mid-request (a slow client timing out, a cancelled fetch, a
 * closed laptop) is normal traffic: it is reported as one quiet line, never
 * as a stack trace that reads as a toolcap bug (a slow-client test left 728
 * of them). Everything else is still an internal error, reported in full.
 * @module
 */
import { errorMessage } from '../model/errors.js';

/** Error codes Node and undici give a connection the peer closed. */
const GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'UND_ERR_ABORTED', 'ABORT_ERR']);

/**
 * The SDK's words for an answer whose request has no open connection left
 * (Protocol's "Failed to send response: … No connection established …").
 */
const GONE_MESSAGE = /No connection established for request|prematurely closed|aborted/i;

/**
 * Did this error come from the client going away? True when the request's
 * signal is aborted (the HTTP adapter aborts it when the socket closes) or
 * the error, or one of its causes, is an abort or a closed connection.
 * @example clientGone(new Error('x'), abortedRequest) // true
 */
export function clientGone(error: unknown, request?: Request): boolean {
  if (request?.signal.aborted === true) return true;
  let e: unknown = error;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (e.name === 'AbortError' || (typeof code === 'string' && GONE_CODES.has(code)) || GONE_MESSAGE.test(e.message)) return true;
  }
  return false;
}

/** One line about a client that went away: what it was doing, and the reason on the same line. */
export function clientGoneLine(what: string, error: unknown): string {
  const reason = errorMessage(error).split('\n')[0] ?? '';
  return `mcp: the client went away during ${what}${reason === '' ? '' : ` (${reason})`}`;
}
