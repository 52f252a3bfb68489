/**
 * Who is asking, per request: the API's `authenticate` turns a request into
 * a principal (or a refusal), and each route table entry's action is checked
 * with identity's `can()`. Refusals are problems: 401 UNAUTHENTICATED with a
 * `WWW-Authenticate` challenge (RFC 6750, and RFC 9728's `resource_metadata`
 * when protected resource metadata is configured, as the MCP authorization
 * specification asks), 503 AUTH_UNAVAILABLE when credentials cannot be
 * checked (fail closed, but not the client's fault), 403 FORBIDDEN when the
 * principal's roles do not allow the action.
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import type { AuthOutcome } from '../runtime/identity/authenticate.js';
import { can, type Action, type Principal } from '../runtime/identity/principal.js';
import { ApiProblem, problem } from './problem.js';

/**
 * What authentication reads of a request: its URL and its header lines (a
 * repeated name's values joined with ", ", as `Headers.get` joins them). A
 * Web `Request` is one; the `/mcp` socket lane passes its own view of Node's
 * header lines, without building a `Request` per call.
 */
export interface RequestHead {
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}

/** How the API authenticates requests. */
export interface ApiAuth {
  /** The principal behind a request, or why there is none (bad credentials are an outcome, not a throw). */
  authenticate(request: RequestHead): Promise<AuthOutcome>;
  /** RFC 9728 protected resource metadata, served at `/.well-known/oauth-protected-resource` and named in `WWW-Authenticate`. */
  resourceMetadata?: { resource: string; authorizationServers: readonly string[] };
}

/** The request variable this module sets: the authenticated principal, absent without `auth` (or on a public route without good credentials). */
export interface PrincipalEnv {
  Variables: { principal: Principal | undefined };
}

/** The well-known path of RFC 9728 protected resource metadata. */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The `WWW-Authenticate` challenge of a 401: `Bearer realm="toolcap"`, with
 * `error="invalid_token"` when a token was sent and refused, and where the
 * resource metadata is when it is configured: at the resource's origin when
 * the resource identifier is an http(s) URL (that stays right behind a
 * reverse proxy, where the request's own URL may not), else at the origin
 * the request was sent to (an audience such as `toolcap` or `api://toolcap`
 * names no place).
 * @example challenge(undefined, 'UNAUTHENTICATED') // 'Bearer realm="toolcap"'
 */
export function challenge(auth: ApiAuth | undefined, code: string, requestUrl?: string): string {
  const parts = ['Bearer realm="toolcap"'];
  if (code !== 'UNAUTHENTICATED') parts.push('error="invalid_token"');
  const resource = auth?.resourceMetadata?.resource;
  const origin = resource === undefined ? undefined : (httpOrigin(resource) ?? (requestUrl === undefined ? undefined : httpOrigin(requestUrl)));
  if (origin !== undefined) parts.push(`resource_metadata="${origin}${RESOURCE_METADATA_PATH}"`);
  return parts.join(', ');
}

/** The origin of an http(s) URL, or undefined for anything else (never throws). */
function httpOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The problem for a failed authentication: 503 when credentials could not be checked, else 401 with the challenge. */
export function authFailure(auth: ApiAuth, outcome: AuthOutcome & { ok: false }, requestUrl?: string): ApiProblem {
  if (outcome.code === 'UNAVAILABLE') return new ApiProblem(problem('AUTH_UNAVAILABLE', `Credentials cannot be checked now: ${outcome.message}`), { 'retry-after': '5' });
  const detail = `${outcome.message} Send Authorization: Bearer <API key or access token>.`;
  return new ApiProblem(problem('UNAUTHENTICATED', detail, { reason: outcome.code }), { 'www-authenticate': challenge(auth, outcome.code, requestUrl) });
}

/**
 * The middleware of one route: authenticate (when the API has `auth`), then
 * check the action. A public route lets everyone through but still learns
 * the principal behind good credentials (`/health` shows detail to those
 * allowed `health.detail`). Without `auth` every request passes with no
 * principal: the library's trusted in-process caller.
 */
export function authorize<E extends PrincipalEnv>(auth: ApiAuth | undefined, action: Action | 'public'): MiddlewareHandler<E> {
  return async (c, next) => {
    const principal = await admit(auth, action, c.req.raw, c.req.url);
    if (principal !== undefined) c.set('principal', principal);
    await next();
  };
}

/**
 * The check {@link authorize} makes, for a request served outside Hono (the
 * `/mcp` socket lane): the principal behind the request (undefined without
 * `auth`, or on a public route without good credentials), or a thrown
 * {@link ApiProblem} (401, 503, 403).
 */
export async function admit(auth: ApiAuth | undefined, action: Action | 'public', request: RequestHead, url: string): Promise<Principal | undefined> {
  if (!auth) return undefined;
  const outcome = await auth.authenticate(request);
  if (action !== 'public') {
    if (!outcome.ok) throw authFailure(auth, outcome, url);
    const { principal } = outcome;
    if (!can(principal, action)) {
      throw new ApiProblem(problem('FORBIDDEN', `"${principal.id}" (roles: ${principal.roles.join(', ') || 'none'}) may not ${action}.`, { action }));
    }
  }
  return outcome.ok ? outcome.principal : undefined;
}

/** The principal a request was authenticated as, if any. */
export const principalOf = (c: { readonly var: PrincipalEnv['Variables'] }): Principal | undefined => c.var.principal;
