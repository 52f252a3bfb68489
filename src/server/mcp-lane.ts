/**
 * The `/mcp` socket lane: a `tools/call` (or any single request) POSTed to
 * an open MCP session is read straight off Node's `IncomingMessage` and
 * answered on its `ServerResponse`, without the Web `Request`/`Response`
 * conversion, Hono's routing and the SDK transport's stream machinery (the
 * gateway's own inbound cost per call; docs/mcp.md has the figures).
 *
 * Nothing is checked less: the Host/Origin guard (`host-guard.ts`), the
 * route's authentication and permission (`auth.ts`, the same `admit()`),
 * the body limit, session ownership and grants, JSON and the transport's
 * header checks (`mcp/direct-post.ts`), and the request metrics
 * (`http-metrics.ts`) are the same functions the Hono path runs. What the
 * lane cannot answer exactly as that path does goes to it untouched, before
 * a byte of the body is read: another method or path, no session header,
 * no `Content-Length` or one over the limit, a chunked body, a Host the
 * adapter would rebuild, any Host/Origin refusal, an unknown session.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import { clientGone, clientGoneLine } from '../mcp/client-abort.js';
import type { DirectAnswer } from '../mcp/http.js';
import { admit, type RequestHead } from './auth.js';
import type { ApiContext } from './context.js';
import { hostRefusal } from './host-guard.js';
import { httpRecorder } from './http-metrics.js';
import { ApiProblem, problem, problemResponse } from './problem.js';

/**
 * Takes a request (true) or leaves it to the Hono app (false, nothing
 * read). `fallback` hands a taken request to the app after all, while its
 * body is still unread.
 */
export type SocketLane = (req: IncomingMessage, res: ServerResponse, fallback: () => void) => boolean;

const lanes = new WeakMap<Hono, SocketLane>();

/** The socket lane `createApi` made for `app`, if it serves `/mcp`. */
export const socketLaneOf = (app: Hono): SocketLane | undefined => lanes.get(app);

/** A Host the Node adapter puts in the URL as it is (its own test): anything else it rebuilds, so the app serves it. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
/** `/mcp` with a query of plain URL characters: the adapter's URL is then exactly `scheme://host` + this. */
const MCP_TARGET = /^\/mcp(?:\?[A-Za-z0-9\-._~%!$&'()*+,;=:@/?]*)?$/;

/**
 * A request header as the Node adapter's `Request` reads it: every line of a
 * repeated name, joined. Node's `req.headers` keeps only the first of some
 * (Host, Content-Type, Authorization…): a second `Host: evil.example` the
 * guard refuses on the Hono path must not pass here.
 */
const headerOf = (req: IncomingMessage) => {
  // joined in one pass at the first look-up: the guard, the lane's header checks and the transport's ask for five or more
  let joined: Map<string, string> | undefined;
  return (name: string): string | undefined => {
    if (joined === undefined) {
      joined = new Map();
      const raw = req.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const key = raw[i]!.toLowerCase();
        const value = joined.get(key);
        joined.set(key, value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`);
      }
    }
    return joined.get(name);
  };
};

/** The request's headers as a Web `Request` without a body, for the error logger (`onError`) only. */
const headerRequest = (url: string, req: IncomingMessage): Request => {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return new Request(url, { method: 'POST', headers });
};

function write(res: ServerResponse, answer: DirectAnswer): void {
  if (res.destroyed) return;
  const headers: Record<string, string | number> = { ...answer.headers };
  if (answer.body !== null) headers['content-length'] = Buffer.byteLength(answer.body);
  res.writeHead(answer.status, headers);
  res.end(answer.body ?? undefined);
}

async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body === null ? null : await response.text();
  write(res, { status: response.status, headers: Object.fromEntries(response.headers), body });
}

/** UTF-8 text as a Web body's `text()` decodes it: a leading byte order mark is dropped. */
const utf8 = (bytes: Buffer): string => {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
};

/** The body, whole (its length is held by Node's parser to the declared one, within the limit). */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(utf8(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))));
    req.once('error', reject);
    req.once('aborted', () => reject(Object.assign(new Error('the request was aborted'), { code: 'ECONNRESET' })));
  });
}

/**
 * Make the lane of an API and register it for `listen()` to find; nothing
 * when the API serves no `/mcp`.
 */
export function registerMcpLane(app: Hono, ctx: ApiContext): void {
  const mcp = ctx.options.mcp;
  const lane = mcp?.direct?.bind(mcp);
  if (!lane) return;
  const { auth, allowedHosts, allowedOrigins } = ctx.options;
  const guard = allowedHosts || allowedOrigins ? hostRefusal(allowedHosts, allowedOrigins) : undefined;
  const record = ctx.runtime ? httpRecorder(ctx.runtime.metrics) : undefined;
  const limit = ctx.maxBodyBytes;

  const serve = async (req: IncomingMessage, res: ServerResponse, fallback: () => void, url: string, header: (name: string) => string | undefined, sessionId: string, declared: number, started: number) => {
    let status = 500;
    // authentication reads the header lines through the lane's own view of them (the same joined values a Request's
    // Headers give): a Web Request per call, its Headers and AbortSignal, cost more than the rest of the lane's checks
    const head: RequestHead = { url, headers: { get: (name) => header(name.toLowerCase()) ?? null } };
    // a failure's report gets a whole Request, built then
    const request = () => headerRequest(url, req);
    // watched from the start: a client may hang up while its credentials are checked, before the body is read
    let gone = false;
    let forget: (() => void) | undefined;
    const onClose = () => {
      gone = true;
      forget?.();
    };
    res.once('close', onClose);
    // a response queued behind another on a pipelined connection has no socket yet, and no 'close' when the client hangs up: its socket's is heard
    const queued = res.socket === null ? req.socket : undefined;
    queued?.once('close', onClose);
    try {
      let principal;
      try {
        principal = auth === undefined ? undefined : await admit(auth, 'list', head, url);
      } catch (error) {
        if (!(error instanceof ApiProblem)) throw error;
        const response = error.getResponse();
        status = response.status;
        await writeResponse(res, response);
        return;
      }
      const direct = lane(sessionId, principal, declared);
      if (direct === undefined) {
        // an unknown session (or another principal's): the app answers it, and counts it
        status = -1;
        res.off('close', onClose);
        queued?.off('close', onClose);
        fallback();
        return;
      }
      // a body cut short by the hang-up would never end, and a whole one would run a call nobody waits for
      if (gone || req.destroyed) throw Object.assign(new Error('the client went away before its body was read'), { code: 'ECONNRESET' });
      const abandoned = (f: () => void) => {
        forget = f;
        if (gone) f();
      };
      const answer = await direct({ url, header, headers: req.headers, body: await readBody(req), abandoned });
      status = answer.status;
      write(res, answer);
    } catch (error) {
      if (clientGone(error)) {
        ctx.options.warn?.(clientGoneLine(`POST /mcp`, error).replace(/^mcp: /, 'http: '));
        status = 499;
        if (!res.headersSent) write(res, { status, headers: {}, body: null });
        return;
      }
      try {
        ctx.options.onError?.(error, request());
      } catch {
        // a broken logger must not turn a 500 into a dropped connection
      }
      await writeResponse(res, problemResponse(problem('INTERNAL', 'The server failed to answer; this is a toolcap bug. The error was logged.')));
    } finally {
      res.off('close', onClose);
      queued?.off('close', onClose);
      if (status !== -1) record?.('POST', '/mcp', status, started);
    }
  };

  lanes.set(app, (req, res, fallback) => {
    if (req.method !== 'POST') return false;
    const target = req.url ?? '';
    if (!MCP_TARGET.test(target)) return false;
    const h = req.headers;
    const sessionId = h['mcp-session-id'];
    const length = h['content-length'];
    const host = h.host;
    if (typeof sessionId !== 'string' || sessionId === '' || length === undefined || h['transfer-encoding'] !== undefined || host === undefined || !PLAIN_HOST.test(host)) return false;
    const declared = Number(length);
    if (!Number.isInteger(declared) || declared < 0 || declared > limit) return false;
    const started = performance.now();
    const url = `${(req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${host}${target}`;
    // a refusal is the app's to give, with its own problem body
    const header = headerOf(req);
    if (guard?.(url, header) !== undefined) return false;
    void serve(req, res, fallback, url, header, sessionId, declared, started);
    return true;
  });
}
