/**
 * The gateway over Streamable HTTP (MCP 2025-03-26+), for a route such as
 * `/mcp`: a `(Request, { principal }) => Promise<Response>` on Web-standard
 * objects, with stateful sessions, one gateway server (./server.ts) per
 * session. The handler checks what the SDK transport does not: the session
 * header and its owner, the session caps (./sessions.ts), the body size
 * (chunked too, ./body.ts) and JSON, and that a session starts with
 * `initialize`. The open `GET` event stream is held to its credential
 * (./stream-credential.ts). A client that goes away mid-request is one quiet `warn`
 * line (./client-abort.ts); any other failure is a 500 and goes to
 * `onError`. Its `direct()` lane answers a POST to an open session read
 * straight off a socket (the server's `/mcp` socket lane, ./direct-post.ts)
 * with the same answers. See docs/mcp.md for the answers it gives.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, isInitializeRequest, isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../model/errors.js';
import { CallError } from '../runtime/errors.js';
import { grantsKey, type Principal } from '../runtime/identity/principal.js';
import { releaseAnsweredStreams } from './answered-streams.js';
import { readBodyWithin } from './body.js';
import { clientGone, clientGoneLine } from './client-abort.js';
import { DirectLane, laneRequest, type HeaderLookup } from './direct-post.js';
import { createGatewayServer, type Gateway, type GatewayOptions } from './server.js';
import { SessionTable, type SessionLimits } from './sessions.js';
import { sessionMetrics } from './session-metrics.js';
import { StreamCredential, type Recheck } from './stream-credential.js';

/** A Streamable HTTP endpoint's options: the gateway's, with a default persona, the request checks and the session limits. */
export interface McpHttpOptions extends Omit<GatewayOptions, 'persona' | 'agent' | 'principal'> {
  /** The persona when a session names none (`?persona=` or `x-toolcap-persona`). @default none: shared tools (with a principal: its default) */
  persona?: string;
  /** The agent when a session names none (`?agent=` or `x-toolcap-agent`). @default none: no agent narrowing */
  agent?: string;
  /** Hosts allowed in the Host header (DNS rebinding protection); unset: no check. */
  allowedHosts?: string[];
  /** Origins allowed in the Origin header; unset: no check. */
  allowedOrigins?: string[];
  /** Largest accepted request body, bytes, chunked bodies included. @default 4 MiB */
  maxBodyBytes?: number;
  /** Session caps and idle expiry. @default 16 per principal, 256 in all, closed after 900 s idle */
  sessions?: SessionLimits;
  /**
   * Every how many ms the credential of an open `GET` event stream is
   * authenticated again (with {@link McpRequestContext.recheck}), besides
   * before each message sent on it and at the credential's expiry: the bound
   * on how long a revoked API key keeps a silent stream. @default 60000
   */
  streamRecheckMs?: number;
  /**
   * A request failed inside the handler: a toolcap bug, answered 500. A
   * client that went away is not one: it goes to `warn` as one line.
   * @default nothing
   */
  onError?: (error: unknown, request: Request) => void;
}

/** What the route knows about a request: who sent it, once authenticated. */
export interface McpRequestContext {
  /** The authenticated principal; absent: a trusted caller (no authentication configured). */
  principal?: Principal | undefined;
  /**
   * The request came off a socket whose HTTP parser holds its body to the
   * declared `Content-Length` (`toolcap serve`, @hono/node-server): such a
   * body within the limit is read whole. Otherwise (a Request made in
   * process, whose header may lie) the bounded reader counts every byte.
   */
  lengthHeld?: boolean;
  /**
   * Aborts when the client goes away before its answer: the requests of the
   * POST are then cancelled. The route adds what the request's own signal
   * does not hear (a response queued behind another on a pipelined
   * connection). @default the request's signal
   */
  hangUp?: AbortSignal;
  /**
   * Authenticates this request's credential again (as the route did), for a
   * `GET` event stream that stays open: the stream ends when it no longer
   * authenticates as {@link principal} under the same grants (and a refused
   * API key ends the session). Absent: the stream is not watched (no
   * authentication).
   */
  recheck?: Recheck | undefined;
}

/** The ids of the requests (not notifications or responses) in a parsed POST body: one message or a batch. */
function parsedRequestIds(body: unknown): RequestId[] {
  return (Array.isArray(body) ? (body as unknown[]) : [body]).filter(isJSONRPCRequest).map((m) => m.id);
}

/** A POST to an open session, as read straight off a socket (see {@link McpHttpHandler.direct}). */
export interface DirectPost {
  /** The absolute URL, as the Web-standard path would have built it. */
  url: string;
  /** A request header by lower-case name. */
  header: HeaderLookup;
  /** Every header, lower-case names (what the SDK hands handlers as `requestInfo.headers`). */
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8 text, already within the size limit. */
  body: string;
  /** Receives a function to call when the client goes away before the answer. */
  abandoned?: (forget: () => void) => void;
}

/** The answer to a {@link DirectPost}: what the Web-standard path would have answered. */
export interface DirectAnswer {
  status: number;
  headers: Record<string, string>;
  /** Null: no body (202). */
  body: string | null;
}

/** A Streamable HTTP endpoint: a `(Request, context) => Promise<Response>` with session control. */
export type McpHttpHandler = ((request: Request, context?: McpRequestContext) => Promise<Response>) & {
  /** Send `notifications/tools/list_changed` to every open session now (reloads send it on their own). */
  notifyAll(): void;
  /** Open sessions. */
  readonly sessionCount: number;
  /** Close every session. */
  close(): Promise<void>;
  /**
   * The direct lane for a POST carrying `mcp-session-id` (the caller has
   * authenticated it as {@link McpRequestContext.principal}): a function
   * answering it, or undefined when the handler itself must (an unknown
   * session or another principal's, a declared body over the limit, the
   * endpoint closing). The lane answers exactly what the handler would.
   */
  direct(sessionId: string, principal: Principal | undefined, declaredBytes: number): ((post: DirectPost) => Promise<DirectAnswer>) | undefined;
};

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  gateway: Gateway;
  lane: DirectLane;
  /** The credential watch of the session's `GET` event stream. */
  credential: StreamCredential;
}

/** A JSON-RPC error answer with no id, as the transport gives its own. */
const jsonRpcErrorAnswer = (status: number, code: number, message: string, extra: { headers?: Record<string, string>; data?: unknown } = {}): DirectAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...extra.headers },
  body: JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(extra.data !== undefined ? { data: extra.data } : {}) }, id: null }),
});

const jsonRpcError = (status: number, code: number, message: string, extra: { headers?: Record<string, string>; data?: unknown } = {}) => {
  const answer = jsonRpcErrorAnswer(status, code, message, extra);
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
};

/** A Response of the transport as a {@link DirectAnswer} (its bodies are JSON, never a stream, in JSON response mode). */
const answerOf = async (response: Response): Promise<DirectAnswer> => ({
  status: response.status,
  headers: Object.fromEntries(response.headers),
  body: response.body === null ? null : await response.text(),
});

/** The JSON-RPC code for errors the MCP transport defines no code for (the SDK uses it for its own 4xx answers). */
const TRANSPORT_ERROR = ErrorCode.ConnectionClosed;

/**
 * Most messages in one POSTed JSON-RPC batch. Every request of a batch is
 * answered before the POST is, in one body: a batch of 100 `tools/list`
 * requests (the SDK's own cap) built 100 pages of up to 8 MiB each from one
 * small POST. MCP 2025-06-18 dropped batches altogether and no SDK client
 * sends them; the few a 2025-03-26 client may send are small.
 */
export const MAX_BATCH = 10;

/**
 * Streamable HTTP (MCP 2025-03-26+) for a route such as `/mcp`: stateful
 * sessions, one gateway server per session. A POST `initialize` without a
 * session opens one for the request's principal (its persona from
 * `?persona=` or the `x-toolcap-persona` header, resolved for the principal
 * and fixed for the session; its agent, if any, from `?agent=` or
 * `x-toolcap-agent`, fixed likewise); later requests carry `mcp-session-id` and must
 * come from the same principal; DELETE closes the session.
 * @example
 * const mcp = mcpHttpHandler({ registry, runtime });
 * app.all('/mcp', (c) => mcp(c.req.raw, { principal }));
 */
export function mcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const { persona: defaultPersona, agent: defaultAgent, allowedHosts, allowedOrigins, maxBodyBytes, sessions: limits, streamRecheckMs, onError, ...gatewayOptions } = options;
  const sessions = new SessionTable<Session>(limits ?? {}, ({ gateway, credential }) => {
    credential.close();
    void gateway.close().catch(() => undefined);
  });
  const recheckMs = streamRecheckMs ?? 60_000;
  const maxBody = maxBodyBytes ?? 4 * 1024 * 1024;
  const counted = sessionMetrics(gatewayOptions.runtime.metrics);
  const untrack = counted.track('streamable_http', () => sessions.size);
  let closed = false;

  const open = async (request: Request, body: unknown, principal: Principal | undefined): Promise<Response> => {
    const url = new URL(request.url);
    const persona = url.searchParams.get('persona') ?? request.headers.get('x-toolcap-persona') ?? defaultPersona;
    const agent = url.searchParams.get('agent') ?? request.headers.get('x-toolcap-agent') ?? defaultAgent;
    let gateway: Gateway;
    try {
      gateway = createGatewayServer({ ...gatewayOptions, ...(persona ? { persona } : {}), ...(agent !== undefined && agent !== null ? { agent } : {}), ...(principal ? { principal } : {}) });
    } catch (error) {
      if (error instanceof CallError) {
        const { allowed, agent: named, constraint } = error.extra;
        return jsonRpcError(error.status, ErrorCode.InvalidRequest, error.message, { data: { code: error.code, ...(allowed ? { allowed } : {}), ...(named !== undefined ? { agent: named } : {}), ...(constraint !== undefined ? { constraint } : {}) } });
      }
      throw error;
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // a POST gets its answer as one JSON body, not an event stream: one round trip, no SSE framing;
      // server-initiated messages (list_changed, elicitation) use the session's GET stream
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.add(id, principal?.id, { transport, gateway, lane, credential }, principal ? grantsKey(principal) : undefined);
        counted.opened('streamable_http');
      },
      ...(allowedHosts || allowedOrigins
        ? { enableDnsRebindingProtection: true, ...(allowedHosts ? { allowedHosts } : {}), ...(allowedOrigins ? { allowedOrigins } : {}) }
        : {}),
    });
    // the SDK keeps every answered JSON-mode POST until the session ends (answered-streams.ts)
    releaseAnsweredStreams(transport);
    const lane = new DirectLane(transport);
    const credential = new StreamCredential(recheckMs, ({ outcome, closeSession }) => {
      transport.closeStandaloneSSEStream();
      // a token's stream ends quietly (its client renews the token and opens it again); a refused key ends the session
      if (!closeSession) return;
      options.warn?.(`mcp: the session of "${principal?.id ?? ''}" ended: its API key no longer authenticates (${outcome.code}).`);
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      void gateway.close().catch(() => undefined);
    });
    // what the server sends on its own (list_changed, an elicitation request) goes out on the GET stream: only while the
    // credential that opened the stream still authenticates; answers to POSTed requests are not the stream's
    const sendOn = transport.send.bind(transport);
    transport.send = async (message, sendOptions) => {
      const standalone = sendOptions?.relatedRequestId === undefined && !isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message);
      if (standalone && !(await credential.allows())) {
        // a request (an elicitation) fails at once rather than wait for an answer that cannot come
        if (isJSONRPCRequest(message)) throw new Error("The session's event stream ended: its credential no longer authenticates.");
        return;
      }
      return sendOn(message, sendOptions);
    };
    transport.onclose = () => {
      credential.close();
      lane.close();
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await gateway.server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    // initialize failed (bad params): no session was made, drop the server
    if (transport.sessionId === undefined || sessions.get(transport.sessionId, principal?.id, principal ? grantsKey(principal) : undefined) === undefined) await gateway.close().catch(() => undefined);
    return response;
  };

  const tooLarge = () => jsonRpcErrorAnswer(413, ErrorCode.InvalidRequest, `Request body larger than ${maxBody} bytes.`);
  /** A body's text as JSON, or the error answer (not JSON; a batch of more than {@link MAX_BATCH} messages). */
  const parseJson = (raw: string): { json: unknown } | DirectAnswer => {
    let json: unknown;
    try {
      json = JSON.parse(raw) as unknown;
    } catch {
      return jsonRpcErrorAnswer(400, ErrorCode.ParseError, 'Parse error: the body is not JSON.');
    }
    if (Array.isArray(json) && json.length > MAX_BATCH) {
      return jsonRpcErrorAnswer(400, ErrorCode.InvalidRequest, `Invalid Request: a batch of ${json.length} messages; at most ${MAX_BATCH} are answered in one POST, send them apart.`, { data: { code: 'BATCH_TOO_LARGE', limit: MAX_BATCH } });
    }
    return { json };
  };
  /** The body of a POST as JSON, or the error answer. */
  const readJson = async (request: Request, lengthHeld: boolean): Promise<{ body: unknown } | Response> => {
    const raw = await readBodyWithin(request, maxBody, lengthHeld);
    const read = raw === undefined ? tooLarge() : parseJson(raw);
    return 'json' in read ? { body: read.json } : new Response(read.body, { status: read.status, headers: read.headers });
  };

  /** A failure while answering: a client that went away is one quiet line and a 400, anything else goes to onError and is a 500. */
  const failed = (error: unknown, request: Request): DirectAnswer => {
    if (clientGone(error, request)) {
      // nobody reads this answer; the line says what happened without a stack
      options.warn?.(clientGoneLine(`${request.method} /mcp`, error));
      return jsonRpcErrorAnswer(400, TRANSPORT_ERROR, 'The client closed the request.');
    }
    onError?.(error, request);
    return jsonRpcErrorAnswer(500, ErrorCode.InternalError, `Internal error: ${gatewayOptions.runtime.redactor.redactText(errorMessage(error))}`);
  };

  /**
   * A POST of requests through the transport, whose client may hang up
   * before the answer: the transport does not watch the request's signal,
   * so each request is cancelled here (the SDK's Protocol aborts its
   * handler, and with it the upstream call) and the wait ends with the
   * quiet line a client that went away gets.
   */
  const untilHangUp = async (session: Session, request: Request, body: unknown, ids: RequestId[], hangUp: AbortSignal): Promise<Response> => {
    if (hangUp.aborted) throw new DOMException('The client closed the request.', 'AbortError');
    let onHangUp!: () => void;
    const gone = new Promise<never>((_, reject) => {
      onHangUp = () => {
        for (const id of ids) session.lane.cancel(id, 'The client closed the request.');
        reject(new DOMException('The client closed the request.', 'AbortError'));
      };
    });
    gone.catch(() => undefined);
    hangUp.addEventListener('abort', onHangUp, { once: true });
    try {
      return await Promise.race([session.transport.handleRequest(request, { parsedBody: body }), gone]);
    } finally {
      hangUp.removeEventListener('abort', onHangUp);
    }
  };

  /** Whether the transport's own DNS rebinding check (this handler's `allowedHosts`/`allowedOrigins`) refuses the request: it answers it then. */
  const transportRefuses = (header: HeaderLookup): boolean => {
    const host = header('host');
    if (allowedHosts && allowedHosts.length > 0 && (!host || !allowedHosts.includes(host))) return true;
    const origin = header('origin');
    return allowedOrigins !== undefined && allowedOrigins.length > 0 && !!origin && !allowedOrigins.includes(origin);
  };

  /**
   * An opened `GET` event stream held to its credential ({@link StreamCredential}):
   * watched while its body is read, no longer once it ends (closed by either side).
   */
  const watched = (session: Session, response: Response, principal: Principal, recheck: Recheck): Response => {
    if (response.status !== 200 || response.body === null) return response;
    const end = session.credential.watch(recheck, principal);
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    // a client that goes away cancels `readable`, which errors the pipe and cancels the transport's stream
    response.body.pipeTo(writable).then(end, end);
    return new Response(readable, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  /** A POST to `session` read off a socket: on the lane when it can take it, else through the transport as the handler does. */
  const postDirect = async (sessionId: string, session: Session, post: DirectPost): Promise<DirectAnswer> => {
    const headerRequest = () => new Request(post.url, { method: 'POST', headers: Object.entries(post.headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v] as [string, string]])) });
    try {
      const read = parseJson(post.body);
      if (!('json' in read)) return read;
      const message = laneRequest(read.json, post.header);
      if (message !== undefined) session.lane.supersede(message.id);
      if (message === undefined || session.lane.inFlight(message.id) || transportRefuses(post.header)) {
        // batches, notifications, initialize, headers the transport refuses: its own answer; a hang-up cancels the
        // requests it carries, as on the Web-standard path (a batch of calls, a second request under an id in flight)
        const ids = parsedRequestIds(read.json);
        const request = headerRequest();
        if (ids.length === 0 || post.abandoned === undefined) return await sessions.use(sessionId, async () => answerOf(await session.transport.handleRequest(request, { parsedBody: read.json })));
        const hangUp = new AbortController();
        post.abandoned(() => hangUp.abort());
        return await sessions.use(sessionId, async () => answerOf(await untilHangUp(session, request, read.json, ids, hangUp.signal)));
      }
      const outcome = await sessions.use(sessionId, () => session.lane.deliver(message, { headers: post.headers, url: new URL(post.url) }, post.abandoned));
      // the session closed while the call ran: the transport's answer for a closed session
      if (outcome === 'closed') return jsonRpcErrorAnswer(404, -32001, 'Session not found');
      // its client went away: the one quiet line the Web-standard path gives
      if (outcome === 'gone') return failed(new DOMException('The client closed the request.', 'AbortError'), headerRequest());
      return { status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': sessionId }, body: JSON.stringify(outcome) };
    } catch (error) {
      return failed(error, headerRequest());
    }
  };

  const handle = async (request: Request, context: McpRequestContext = {}): Promise<Response> => {
    const { principal } = context;
    try {
      if (closed) return jsonRpcError(503, ErrorCode.ConnectionClosed, 'The MCP endpoint is shutting down.');
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId) {
        // another principal's session, or this principal's under other grants, is answered as an unknown one
        const session = sessions.get(sessionId, principal?.id, principal ? grantsKey(principal) : undefined);
        if (!session) return jsonRpcError(404, -32001, 'Session not found: it was closed, expired or never existed. Initialize a new one.');
        if (request.method !== 'POST') {
          const response = await sessions.use(sessionId, () => session.transport.handleRequest(request));
          return request.method === 'GET' && principal !== undefined && context.recheck !== undefined ? watched(session, response, principal, context.recheck) : response;
        }
        const read = await readJson(request, context.lengthHeld === true);
        if (read instanceof Response) return read;
        // a request under the id of a lane request whose client went away is not held behind it (DirectLane.supersede)
        const ids = parsedRequestIds(read.body);
        for (const id of ids) session.lane.supersede(id);
        if (ids.length === 0) return await sessions.use(sessionId, () => session.transport.handleRequest(request, { parsedBody: read.body }));
        return await sessions.use(sessionId, () => untilHangUp(session, request, read.body, ids, context.hangUp ?? request.signal));
      }
      if (request.method !== 'POST') {
        if (request.method === 'GET' || request.method === 'DELETE') return jsonRpcError(400, TRANSPORT_ERROR, 'Bad Request: no mcp-session-id header; initialize a session with a POST first.');
        return jsonRpcError(405, TRANSPORT_ERROR, `Method ${request.method} not allowed.`, { headers: { allow: 'GET, POST, DELETE' } });
      }
      const read = await readJson(request, context.lengthHeld === true);
      if (read instanceof Response) return read;
      const messages = Array.isArray(read.body) ? (read.body as unknown[]) : [read.body];
      if (!messages.some((m) => isInitializeRequest(m))) return jsonRpcError(400, TRANSPORT_ERROR, 'Bad Request: no mcp-session-id header and not an initialize request.');
      const refused = sessions.reserve(principal?.id);
      if (refused) {
        const whose = refused.reason === 'principal' ? `Principal "${principal?.id}" has ${refused.limit} open MCP sessions` : `The endpoint has ${refused.limit} open MCP sessions`;
        return jsonRpcError(429, TRANSPORT_ERROR, `${whose}, the most allowed: close one (DELETE with its mcp-session-id) or let one expire.`, {
          data: { code: 'TOO_MANY_SESSIONS', limit: refused.limit },
        });
      }
      try {
        return await open(request, read.body, principal);
      } finally {
        sessions.release(principal?.id);
      }
    } catch (error) {
      const answer = failed(error, request);
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    }
  };

  return Object.defineProperties(handle, {
    notifyAll: {
      value: () => {
        for (const { gateway } of sessions.sessions()) gateway.notifyToolsChanged();
      },
    },
    sessionCount: { get: () => sessions.size },
    direct: {
      value: (sessionId: string, principal: Principal | undefined, declaredBytes: number) => {
        if (closed || !(declaredBytes <= maxBody)) return undefined;
        const session = sessions.get(sessionId, principal?.id, principal ? grantsKey(principal) : undefined);
        if (!session) return undefined;
        return (post: DirectPost) => postDirect(sessionId, session, post);
      },
    },
    close: {
      value: async () => {
        closed = true;
        untrack();
        await Promise.all(sessions.clear().map(({ gateway }) => gateway.close().catch(() => undefined)));
      },
    },
  }) as McpHttpHandler;
}
