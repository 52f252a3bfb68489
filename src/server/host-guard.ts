/**
 * DNS rebinding defence: the `Host` and `Origin` of every request, `/mcp`
 * and unknown paths included, are checked against the allowed lists before
 * anything else runs. A page on `evil.example` that rebinds its name to
 * 127.0.0.1 sends `Host: evil.example` (421 MISDIRECTED_REQUEST); a page
 * that reaches the server under an allowed name still sends its own
 * `Origin` (403 FORBIDDEN_ORIGIN). The MCP specification asks servers to
 * validate Origin; this does it for every route.
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import { ApiProblem, problem } from './problem.js';

/** `host[:port]` split, IPv6 brackets kept on the name (`[::1]:4317` → `[::1]`, `4317`). */
function splitHost(value: string): { name: string; port: string | undefined } {
  const v = value.trim().toLowerCase();
  const close = v.startsWith('[') ? v.indexOf(']') : -1;
  const colon = close >= 0 ? (v[close + 1] === ':' ? close + 1 : -1) : v.lastIndexOf(':');
  return colon < 0 ? { name: v, port: undefined } : { name: v.slice(0, colon), port: v.slice(colon + 1) };
}

/**
 * Whether a Host value is allowed: an entry with a port must match exactly,
 * an entry without one matches the name on any port (a port is digits, or
 * nothing). Names are compared without case, as DNS does.
 * @example hostAllowed('localhost:4317', ['localhost']) // true
 */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  return allowedAmong(host, allowed.map(splitHost));
}

/** {@link hostAllowed} against entries split once (the guard checks every request against the same list). */
function allowedAmong(host: string, allowed: ReadonlyArray<{ name: string; port: string | undefined }>): boolean {
  const got = splitHost(host);
  // `localhost:4317@evil.example` is no port: it must not pass an entry that allows every port
  if (got.port !== undefined && !/^\d{0,5}$/.test(got.port)) return false;
  return allowed.some((want) => want.name === got.name && (want.port === undefined || want.port === got.port));
}

/** A URL's `host:port`, the scheme's default port written out (the URL parser drops it; an allowed entry may name it). */
const authority = (url: URL): string => `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;

/** Origins compare as serialised (scheme, host, port), without case or a trailing slash. */
const normalOrigin = (o: string) => o.trim().toLowerCase().replace(/\/$/, '');

/**
 * The middleware: 421 for a Host not allowed, 403 for an Origin header not
 * allowed (a request without Origin, as non-browser clients send, passes).
 * A list left undefined is not checked.
 */
export function hostGuard(allowedHosts: readonly string[] | undefined, allowedOrigins: readonly string[] | undefined): MiddlewareHandler {
  const refusal = hostRefusal(allowedHosts, allowedOrigins);
  return async (c, next) => {
    const refused = refusal(c.req.url, (name) => c.req.header(name));
    if (refused) throw refused;
    await next();
  };
}

/**
 * The guard's check alone, for a request served outside Hono (the `/mcp`
 * socket lane): the problem refusing a request with this URL and these
 * headers, or undefined.
 */
export function hostRefusal(allowedHosts: readonly string[] | undefined, allowedOrigins: readonly string[] | undefined): (url: string, header: (name: string) => string | undefined) => ApiProblem | undefined {
  const origins = allowedOrigins?.map(normalOrigin);
  const hosts = allowedHosts?.map(splitHost);
  return (url, header) => {
    if (allowedHosts && hosts) {
      // the Node adapter builds the URL from Host, except for an absolute-form target (`GET http://evil.example/x`),
      // whose authority RFC 9112 puts above Host: both must be served here (an in-process Request may carry both too)
      const urlHost = authority(new URL(url));
      const named = header('host') ?? urlHost;
      for (const host of named === urlHost ? [urlHost] : [named, urlHost]) {
        if (!allowedAmong(host, hosts)) {
          return new ApiProblem(problem('MISDIRECTED_REQUEST', `This server does not answer for host "${host}"; it serves ${allowedHosts.join(', ')}.`));
        }
      }
    }
    const origin = header('origin');
    if (origins && origin !== undefined && !origins.includes(normalOrigin(origin))) {
      return new ApiProblem(problem('FORBIDDEN_ORIGIN', `Requests from origin "${origin}" are not allowed.`));
    }
    return undefined;
  };
}

/**
 * For a GET that runs tools (`GET /tasks/snapshot`): refuse one another site
 * started. A cross-site `<img>`, `<script>` or link sends no Origin, so the
 * Origin check above never sees it, and in local mode every request is the
 * local admin: any page the user visits could make toolcap run tools.
 * Browsers say where a request came from (`Sec-Fetch-Site`); `cross-site`
 * or `same-site` (another port of the same host) without an Origin is
 * refused. `same-origin`, `none` (typed in the address bar) and clients
 * that are no browser (no header) pass; so does a request with an Origin,
 * which the guard has judged already.
 */
export function sameOriginGet(): MiddlewareHandler {
  return async (c, next) => {
    const site = c.req.header('sec-fetch-site')?.trim().toLowerCase();
    if ((site === 'cross-site' || site === 'same-site') && c.req.header('origin') === undefined) {
      throw new ApiProblem(problem('FORBIDDEN_ORIGIN', `A ${c.req.method} that runs tools may not be started by another site (Sec-Fetch-Site: ${site}); open it from this server or call it from a client.`));
    }
    await next();
  };
}
