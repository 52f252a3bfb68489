/**
 * What an MCP `tools/call` came to, as the `mcp` provider reports it: the
 * value of a result, or the ProviderError for a failure. A tool result with
 * `isError: true` and a JSON-RPC error answer are `PROVIDER_ERROR` (the tool
 * ran); a request that never left is `PROVIDER_UNAVAILABLE` before any
 * effect; an answer past `mcp.maxResponseBytes` is `RESPONSE_TOO_LARGE`, a
 * connection or redirect the egress policy refused `EGRESS_DENIED`; a connection that closed mid-call is "server exited during the
 * call", which may have had effects; an aborted signal is `ABORTED`.
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../model/errors.js';
import { EgressError } from '../runtime/containment/egress.js';
import { createRedactor, redactedExcerpt } from '../runtime/containment/redact.js';
import { ProviderError } from '../runtime/providers/types.js';
import type { McpServerConfig } from './config.js';
import { UpstreamRedirectError, UpstreamTooLargeError } from './upstream-errors.js';

type CallResult = Awaited<ReturnType<Client['callTool']>>;

/**
 * Most characters of a server's own failure text (an isError result's text,
 * a JSON-RPC error's message) kept in the error: the server is not trusted
 * and its answer may be as large as mcp.maxResponseBytes, and the message
 * goes into every attempt's outcome and the audit row of each failed call
 * (the http provider keeps 2 KB of a failed body, the command provider 300
 * characters of its last line).
 */
export const MAX_FAILURE_TEXT = 2048;

/**
 * A server's failure text cut to {@link MAX_FAILURE_TEXT} characters, saying how much was left out. `redact` runs before
 * the cut: cut first, a secret on the cut would keep all but its last characters, which neither its known value nor a
 * token shape matches any more (a caller pads its arguments to put it there on a server that echoes them).
 */
export function failureExcerpt(text: string, redact: (text: string) => string): string {
  return redactedExcerpt(text, redact, MAX_FAILURE_TEXT);
}

/**
 * Redaction of what a server says: the values it was given (its env and
 * headers: what it can echo) and the token shapes. For text that is cut
 * ({@link failureExcerpt}) or logged; built only when used (on a failure).
 */
export function serverRedaction(config: Pick<McpServerConfig, 'env' | 'headers'>): (text: string) => string {
  return (text) => createRedactor({ secrets: [...Object.values(config.env), ...Object.values(config.headers)] }).redactText(text);
}

/** Text of a tool result's content, for error messages. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c: unknown) => {
      if (typeof c !== 'object' || c === null) return '';
      const item = c as { type?: unknown; text?: unknown };
      return item.type === 'text' && typeof item.text === 'string' ? item.text : `[${String(item.type)}]`;
    })
    .filter((s) => s !== '')
    .join('\n');
}

/** Errors that say the request never left (nothing could have run). */
function neverSent(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.message === 'Not connected') return true;
  const codes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
  let e: unknown = err;
  for (let i = 0; i < 4 && e instanceof Error; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
    e = e.cause;
  }
  return false;
}

/** The refusal on toolcap's side of the hop behind `err` (its cause chain walked), if that is why it failed. */
function upstreamRefusal(err: unknown): UpstreamTooLargeError | UpstreamRedirectError | EgressError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof UpstreamTooLargeError || e instanceof UpstreamRedirectError || e instanceof EgressError) return e;
    e = e.cause;
  }
  return undefined;
}

/** The last few lines of a stderr tail, on one line. */
export function lastLines(text: string, lines = 5): string {
  return text.trim().split(/\r?\n/).slice(-lines).join(' | ');
}

/**
 * The value of a tool result: `structuredContent` when there is one, else
 * `{ content }`; a result with `isError: true` throws PROVIDER_ERROR.
 * @param what names the tool and server in messages
 * @param redact the server's own secrets and the token shapes, applied before the failure text is cut
 */
export function callValue(result: CallResult, what: string, redact: (text: string) => string): unknown {
  if (result.isError === true) {
    const text = failureExcerpt(contentText(result.content), redact);
    throw new ProviderError('PROVIDER_ERROR', text === '' ? `${what} reported an error` : text, false, { detail: result });
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  return 'content' in result ? { content: result.content } : { content: [], ...result };
}

/**
 * The ProviderError for a `tools/call` that failed with `err`.
 * @param context what was called, the call's signal, the server's stderr tail, why toolcap closed the connection if it did
 * (`closedBy`), and the size refusal whose error answer `err` is, if it is one (`oversize`: ./upstream-fetch.ts tells)
 */
export function callFailure(
  err: unknown,
  context: { what: string; signal: AbortSignal; stderr: string; closedBy?: UpstreamTooLargeError; oversize?: UpstreamTooLargeError; redact: (text: string) => string },
): ProviderError {
  const { what, signal, stderr } = context;
  if (signal.aborted) return new ProviderError('ABORTED', `${what}: aborted`, false, { cause: err });
  // toolcap closed the connection (an HTTP+SSE message past the limit) or answered the call itself (a Streamable HTTP message
  // past it): the call may have run, and a retry on this server would meet the same answer
  const tooLarge = err instanceof McpError && err.code === ErrorCode.ConnectionClosed ? context.closedBy : context.oversize;
  if (tooLarge) return new ProviderError('RESPONSE_TOO_LARGE', `${what}: ${tooLarge.reason}`, false, { cause: err, detail: { limit: tooLarge.limit, part: tooLarge.part } });
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
    const tail = stderr.trim() === '' ? '' : ` (stderr: ${lastLines(stderr)})`;
    return new ProviderError('PROVIDER_ERROR', `server exited during the call`, false, { cause: err, detail: `${what}${tail}` });
  }
  const refused = upstreamRefusal(err);
  if (refused instanceof UpstreamTooLargeError) return new ProviderError('RESPONSE_TOO_LARGE', `${what}: ${refused.reason}`, false, { cause: err, detail: { limit: refused.limit, part: refused.part } });
  if (refused instanceof UpstreamRedirectError) return new ProviderError('EGRESS_DENIED', `${what}: ${refused.reason}`, false, { cause: err });
  // a connection the egress policy refused never opened: nothing was sent
  if (refused instanceof EgressError) return new ProviderError('EGRESS_DENIED', `${what}: egress refused: ${refused.message}`, true, { cause: err, detail: { host: refused.host, refusal: refused.code } });
  // an SDK transport error may repeat what the server sent (a fetch body, a parse error's input): the server's text, cut
  const text = failureExcerpt(errorMessage(err), context.redact);
  if (neverSent(err)) return new ProviderError('PROVIDER_UNAVAILABLE', `${what}: ${text}`, true, { cause: err });
  if (err instanceof McpError) return new ProviderError('PROVIDER_ERROR', `${what}: ${text}`, false, { cause: err, status: err.code, detail: err.data });
  return new ProviderError('PROVIDER_ERROR', `${what}: ${text}`, false, { cause: err });
}
