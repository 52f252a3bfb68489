/**
 * `/mcp`: the MCP gateway's Streamable HTTP handler (made by `src/mcp`,
 * handed in as `ApiOptions.mcp`), behind the same body limit as the call
 * routes. The MCP transport answers every method itself (GET for its event
 * stream, DELETE to end a session), so this path is not in the route table
 * and never answers 405 from it. Every request is authenticated (any role
 * may speak MCP; the gateway checks each method) and the handler is told
 * the principal, which it binds its sessions to: a session is used only by
 * the principal that opened it, under the grants it opened it with. A GET
 * (the session's event stream, which stays open) is also given the means to
 * authenticate its credential again, so the stream ends with it.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Context } from 'hono';
import type { Recheck } from '../../mcp/stream-credential.js';
import { authorize, principalOf, type ApiAuth, type RequestHead } from '../auth.js';
import { routeModule, type ApiContext, type RouteModule } from '../context.js';
import { bodyOffSocket, limitBody } from '../json-body.js';

/** The socket of a request off Node's HTTP server whose response waits behind another's (pipelining), else undefined. */
function queuedSocket(c: Context): Socket | undefined {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  if (env?.incoming === undefined || env.outgoing === undefined || env.outgoing.socket !== null) return undefined;
  return env.incoming.socket;
}

/** Authenticates `request`'s credential again, as sent (its headers copied: the request itself is not kept). */
function streamRecheck(auth: ApiAuth, request: Request): Recheck {
  const head: RequestHead = { url: request.url, headers: new Headers(request.headers) };
  return () => auth.authenticate(head);
}

/** The MCP mount point at `/mcp`, or nothing when the API was made without a handler (then `/mcp` is 404). */
export function mcpRoutes(ctx: ApiContext): RouteModule | undefined {
  const handler = ctx.options.mcp;
  if (!handler) return undefined;
  const module = routeModule('/mcp', ctx);
  // 401 with its WWW-Authenticate before the body is read, as the MCP authorization specification expects
  module.app.all('/', authorize(ctx.options.auth, 'list'), limitBody(ctx.maxBodyBytes), async (c) => {
    const principal = principalOf(c);
    const auth = ctx.options.auth;
    // a GET opens the session's event stream, which stays open: it is held to the credential it was opened with
    const recheck = auth !== undefined && principal !== undefined && c.req.method === 'GET' ? streamRecheck(auth, c.req.raw) : undefined;
    const context = { ...(principal ? { principal } : {}), lengthHeld: bodyOffSocket(c), ...(recheck ? { recheck } : {}) };
    const queued = queuedSocket(c);
    if (queued === undefined) return handler(c.req.raw, context);
    // a response queued behind another on a pipelined connection hears no close of its own, so the adapter never aborts
    // its request's signal when the client hangs up: the socket's close is heard instead (as on the socket lane)
    const hangUp = new AbortController();
    const onClose = () => hangUp.abort();
    queued.once('close', onClose);
    const signal = c.req.raw.signal;
    signal.addEventListener('abort', onClose, { once: true });
    try {
      return await handler(c.req.raw, { ...context, hangUp: hangUp.signal });
    } finally {
      queued.off('close', onClose);
      signal.removeEventListener('abort', onClose);
    }
  });
  return module;
}
