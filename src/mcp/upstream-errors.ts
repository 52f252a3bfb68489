/**
 * Why a request to an upstream MCP server failed on toolcap's side of the
 * hop: its answer was larger than `mcp.maxResponseBytes`, or a redirect led
 * where the egress policy does not let a request go. Both carry the
 * server's name and the rule that refused, so the call or discovery that
 * failed says which server and which limit (./call-outcome.ts maps them to
 * `RESPONSE_TOO_LARGE` and `EGRESS_DENIED`).
 * @module
 */

/** What was too large: a whole (JSON) body, or one message of an event stream. */
export type OversizePart = 'body' | 'event';

/** An upstream answer past the size limit; the connection it came on was dropped. */
export class UpstreamTooLargeError extends Error {
  override readonly name = 'UpstreamTooLargeError';
  readonly code = 'RESPONSE_TOO_LARGE';
  /** The message without the server's name, for a caller that names the server already. */
  readonly reason: string;
  constructor(
    /** Who answered, e.g. `MCP server "docs"`. */
    readonly upstream: string,
    readonly limit: number,
    readonly part: OversizePart,
    options?: ErrorOptions,
  ) {
    const reason = `${part === 'body' ? 'the answer' : 'an event-stream message'} exceeds ${limit} bytes (mcp.maxResponseBytes); the connection was dropped`;
    super(`${upstream}: ${reason}`, options);
    this.reason = reason;
  }
}

/** A redirect toolcap would not follow: refused by the egress policy, not http(s), or one hop too many. */
export class UpstreamRedirectError extends Error {
  override readonly name = 'UpstreamRedirectError';
  readonly code = 'EGRESS_DENIED';
  constructor(
    readonly upstream: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`${upstream}: ${reason}`, options);
  }
}
