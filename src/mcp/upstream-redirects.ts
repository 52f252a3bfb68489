/**
 * The next request after a redirect answer on the gateway's upstream hop,
 * by fetch's rules (303, and 301/302 after a POST, become a GET without the
 * body; 307/308 repeat the request) and under toolcap's: the target must be
 * http(s), carry no user info and pass the egress policy
 * (`redirectDecision()` of runtime/containment/redirects.ts, as the http
 * provider applies it), and a hop to another origin goes without the
 * credentials (authorization, proxy-authorization, cookie and the headers
 * the server's config sets) or is refused (`egress.crossOriginRedirects`).
 * @module
 */
import { CREDENTIAL_HEADERS, redirectDecision, type CrossOriginRedirects } from '../runtime/containment/redirects.js';
import type { EgressGuard } from '../runtime/containment/egress.js';
import { UpstreamRedirectError } from './upstream-errors.js';

/** What a redirect hop must pass. */
export interface RedirectRules {
  egress?: EgressGuard;
  crossOrigin: CrossOriginRedirects;
  /** Headers besides {@link CREDENTIAL_HEADERS} that never go to another origin. */
  credentialHeaders: readonly string[];
}

/** Headers about a body: not sent with the GET a redirect turns a POST into. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/**
 * The request to send after a `status` answer with `location` to a request
 * (`url`, `init`).
 * @throws UpstreamRedirectError when the rules refuse the hop
 */
export function followRedirect(url: string | URL, init: RequestInit | undefined, status: number, location: string, rules: RedirectRules & { upstream: string }): [URL, RequestInit] {
  const decision = redirectDecision(url, location, { crossOrigin: rules.crossOrigin, ...(rules.egress ? { egress: rules.egress } : {}) });
  if (decision.action === 'refuse') throw new UpstreamRedirectError(rules.upstream, decision.reason);
  const next = new URL(location, url);
  const method = (init?.method ?? 'GET').toUpperCase();
  const headers = new Headers(init?.headers);
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  if (toGet) for (const name of BODY_HEADERS) headers.delete(name);
  if (decision.action === 'follow-without-credentials') for (const name of [...CREDENTIAL_HEADERS, ...rules.credentialHeaders]) headers.delete(name);
  const { body: _body, method: _method, headers: _headers, ...rest } = init ?? {};
  return [next, { ...rest, headers, ...(toGet ? { method: 'GET' } : { method, ...(init?.body == null ? {} : { body: init.body }) }) }];
}
