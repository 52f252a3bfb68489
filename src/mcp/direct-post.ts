/**
 * The direct lane of a Streamable HTTP session: one JSON-RPC request POSTed
 * to an open session is handed to the session's SDK `Protocol` as the
 * transport would hand it (`onmessage`, with the request's headers and
 * URL), and its response is taken at the transport's `send` and answered
 * as the JSON body the transport would have built. The SDK transport's
 * `Request`/`Response` objects, its stream map and its per-POST bookkeeping
 * are skipped; nothing else is.
 *
 * It takes only what it answers exactly as the transport does: one request
 * (not `initialize`, not a batch, not a notification) that passes the
 * transport's own schema, with the `Accept`, `Content-Type` and
 * `mcp-protocol-version` headers the transport accepts, under an id not
 * already in flight. Everything else goes to the transport itself, which
 * gives its own answers (406, 415, 400 and its `onerror` report). Messages
 * the server relates to a request on the lane other than its response (a
 * progress notification) are dropped, as the transport drops them in JSON
 * response mode; server-initiated ones go to the session's GET stream as
 * before.
 * @module
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  JSONRPCRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  type RequestInfo,
} from '@modelcontextprotocol/sdk/types.js';

/** The headers of a request the lane reads, by lower-case name. */
export type HeaderLookup = (name: string) => string | undefined;

/**
 * The message of a POST if the lane may take it: a single JSON-RPC request
 * other than `initialize`, as the transport's schema parses it, sent with
 * headers the transport accepts. Undefined: the transport must answer it.
 */
export function laneRequest(body: unknown, header: HeaderLookup): JSONRPCRequest | undefined {
  // the transport's header checks, in its words: anything it would refuse it refuses itself
  const accept = header('accept');
  if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (!isJsonContentType(header('content-type') ?? null)) return undefined;
  const version = header('mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  // any initialize, well formed or not, is the transport's: it decides whether it opens a session
  if ((body as { method?: unknown }).method === 'initialize') return undefined;
  // the request branch of the transport's own message schema (its first): the Protocol sees the same message
  const parsed = JSONRPCRequestSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/**
 * What a request on the lane got: its JSON-RPC response; `closed` when the
 * session ended first; `gone` when its client went away first.
 */
export type LaneOutcome = JSONRPCMessage | 'closed' | 'gone';

/** The lane of one session's transport. Make it once, before the server connects. */
export class DirectLane {
  readonly #transport: WebStandardStreamableHTTPServerTransport;
  readonly #pending = new Map<RequestId, (outcome: LaneOutcome) => void>();
  /** Ids in {@link #pending} whose client went away: only their late answers are awaited, to be dropped. */
  readonly #abandoned = new Set<RequestId>();
  /** The transport's own `send`, before the lane took it over. */
  readonly #send: WebStandardStreamableHTTPServerTransport['send'];

  constructor(transport: WebStandardStreamableHTTPServerTransport) {
    this.#transport = transport;
    const send = transport.send.bind(transport);
    this.#send = send;
    transport.send = (message, options) => {
      if (this.#pending.size > 0) {
        const response = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
        const id = response ? message.id : options?.relatedRequestId;
        const resolve = id === undefined ? undefined : this.#pending.get(id);
        if (resolve !== undefined) {
          if (response) {
            this.#pending.delete(id!);
            this.#abandoned.delete(id!);
            resolve(message);
          }
          return Promise.resolve();
        }
      }
      return send(message, options);
    };
  }

  /** Whether a request with this id is answered on the lane now (a second one must take the transport). */
  inFlight(id: RequestId): boolean {
    return this.#pending.has(id);
  }

  /**
   * A new request arrived under `id`: a request of that id whose client went
   * away stops waiting for its answer, so the new one is not held behind it
   * (for ever, if that call hangs). The first answer for the id, from either
   * call, is then the new request's; the other goes to the transport, which
   * has no request left for it, as on the Web-standard path.
   */
  supersede(id: RequestId): void {
    if (this.#abandoned.delete(id)) this.#pending.delete(id);
  }

  /**
   * Hand `message` to the session's server and wait for its response.
   * `abandoned` receives a function to call when the request's client went
   * away: the wait ends at once with `gone` and the request is cancelled
   * ({@link cancel}); an answer that was on its way all the same is taken
   * here and dropped (the transport has no request of that id to answer:
   * handed to it, it reported an error).
   */
  deliver(message: JSONRPCRequest, requestInfo: RequestInfo, abandoned?: (forget: () => void) => void): Promise<LaneOutcome> {
    return new Promise<LaneOutcome>((resolve) => {
      const id = message.id;
      this.#pending.set(id, resolve);
      abandoned?.(() => {
        if (this.#pending.get(id) !== resolve) return;
        this.#pending.set(id, () => undefined);
        this.#abandoned.add(id);
        resolve('gone');
        this.cancel(id, 'The client closed the request.');
      });
      const onmessage = this.#transport.onmessage;
      if (onmessage === undefined) {
        this.#pending.delete(id);
        resolve('closed');
        return;
      }
      onmessage(message, { requestInfo });
    });
  }

  /**
   * The client of request `id` went away: its handler is aborted as a
   * client's own `notifications/cancelled` aborts it (the SDK's Protocol
   * then sends no answer, and the call's signal reaches the upstream call).
   * Once the Protocol has taken the notice (a turn of the event loop later),
   * nothing more comes for the id: a lane request's dropped wait is
   * forgotten, and a request the transport holds (the Web-standard path) is
   * given an error answer, so the transport's wait for it ends (its
   * connection is gone: nobody reads it). Unless an answer came meanwhile,
   * or a new request took the id.
   */
  cancel(id: RequestId, reason: string): void {
    const onmessage = this.#transport.onmessage;
    if (onmessage === undefined) return;
    const waiting = this.#pending.get(id);
    onmessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } });
    setImmediate(() => {
      if (waiting !== undefined) {
        if (this.#pending.get(id) === waiting && this.#abandoned.delete(id)) this.#pending.delete(id);
        return;
      }
      if (this.#pending.has(id)) return;
      this.#send({ jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message: reason } }).catch(() => undefined);
    });
  }

  /** The session closed: every request still waiting is told so. */
  close(): void {
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    this.#abandoned.clear();
    for (const resolve of waiting) resolve('closed');
  }
}
