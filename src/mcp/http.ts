/**
 * The gateway over Streamable HTTP (MCP 2025-03-26+), for a route such as
 * `/mcp`: a `(Request) => Promise<Response>` on Web-standard objects, with
 * stateful sessions, one gateway server (./server.ts) per session. The
 * session manager checks what the SDK transport does not: the session
 * header, the body size and JSON, and that a session starts with
 * `initialize`. See docs/mcp.md for the answers it gives.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../model/errors.js';
import { createGatewayServer, type Gateway, type GatewayOptions } from './server.js';

/** A Streamable HTTP endpoint's options: the gateway's, with a default persona and the request checks. */
export interface McpHttpOptions extends Omit<GatewayOptions, 'persona'> {
  /** The persona when a session names none (`?persona=` or `x-toolcap-persona`). @default none: shared tools */
  persona?: string;
  /** Hosts allowed in the Host header (DNS rebinding protection); unset: no check. */
  allowedHosts?: string[];
  /** Origins allowed in the Origin header; unset: no check. */
  allowedOrigins?: string[];
  /** Largest accepted request body, bytes. @default 4 MiB */
  maxBodyBytes?: number;
}

/** A Streamable HTTP endpoint: a `(Request) => Promise<Response>` with session control. */
export type McpHttpHandler = ((request: Request) => Promise<Response>) & {
  /** Send `notifications/tools/list_changed` to every open session now (reloads send it on their own). */
  notifyAll(): void;
  /** Open sessions. */
  readonly sessionCount: number;
  /** Close every session. */
  close(): Promise<void>;
};

const jsonRpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * Streamable HTTP (MCP 2025-03-26+) for a route such as `/mcp`: stateful
 * sessions, one gateway server per session. A POST `initialize` without a
 * session opens one (its persona from `?persona=` or the
 * `x-toolcap-persona` header, fixed for the session); later requests carry
 * `mcp-session-id`; DELETE closes the session.
 * @example
 * const mcp = mcpHttpHandler({ registry, runtime });
 * app.all('/mcp', (c) => mcp(c.req.raw));
 */
export function mcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; gateway: Gateway }>();
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  let closed = false;

  const open = async (request: Request, body: unknown): Promise<Response> => {
    const url = new URL(request.url);
    const persona = url.searchParams.get('persona') ?? request.headers.get('x-toolcap-persona') ?? options.persona;
    const { persona: _default, allowedHosts, allowedOrigins, maxBodyBytes: _max, ...gatewayOptions } = options;
    const gateway = createGatewayServer({ ...gatewayOptions, ...(persona ? { persona } : {}) });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // a POST gets its answer as one JSON body, not an event stream: one round trip, no SSE framing;
      // server-initiated messages (list_changed, elicitation) use the session's GET stream
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, gateway });
      },
      ...(allowedHosts || allowedOrigins
        ? { enableDnsRebindingProtection: true, ...(allowedHosts ? { allowedHosts } : {}), ...(allowedOrigins ? { allowedOrigins } : {}) }
        : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await gateway.server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: body });
    // initialize failed (bad params): no session was made, drop the server
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await gateway.close().catch(() => undefined);
    return response;
  };

  const handle = async (request: Request): Promise<Response> => {
    try {
      if (closed) return jsonRpcError(503, ErrorCode.ConnectionClosed, 'The MCP endpoint is shutting down.');
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId) {
        const session = sessions.get(sessionId);
        if (!session) return jsonRpcError(404, -32001, 'Session not found: it was closed or never existed. Initialize a new one.');
        return await session.transport.handleRequest(request);
      }
      if (request.method !== 'POST') {
        if (request.method === 'GET' || request.method === 'DELETE') return jsonRpcError(400, ErrorCode.ConnectionClosed, 'Bad Request: no mcp-session-id header; initialize a session with a POST first.');
        return jsonRpcError(405, ErrorCode.ConnectionClosed, `Method ${request.method} not allowed.`, { allow: 'GET, POST, DELETE' });
      }
      const declared = Number(request.headers.get('content-length') ?? '0');
      if (declared > maxBody) return jsonRpcError(413, ErrorCode.InvalidRequest, `Request body larger than ${maxBody} bytes.`);
      const raw = await request.text();
      if (Buffer.byteLength(raw) > maxBody) return jsonRpcError(413, ErrorCode.InvalidRequest, `Request body larger than ${maxBody} bytes.`);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return jsonRpcError(400, ErrorCode.ParseError, 'Parse error: the body is not JSON.');
      }
      const messages = Array.isArray(body) ? (body as unknown[]) : [body];
      if (!messages.some((m) => isInitializeRequest(m))) return jsonRpcError(400, ErrorCode.ConnectionClosed, 'Bad Request: no mcp-session-id header and not an initialize request.');
      return await open(request, body);
    } catch (error) {
      return jsonRpcError(500, ErrorCode.InternalError, `Internal error: ${errorMessage(error)}`);
    }
  };

  return Object.defineProperties(handle, {
    notifyAll: {
      value: () => {
        for (const { gateway } of sessions.values()) gateway.notifyToolsChanged();
      },
    },
    sessionCount: { get: () => sessions.size },
    close: {
      value: async () => {
        closed = true;
        const all = [...sessions.values()];
        sessions.clear();
        await Promise.all(all.map(({ gateway }) => gateway.close().catch(() => undefined)));
      },
    },
  }) as McpHttpHandler;
}
