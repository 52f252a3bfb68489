/**
 * The `http` provider type: run a tool as one HTTP request with the global
 * `fetch`.
 *
 * Config (see docs/providers.md):
 *
 * | key | meaning |
 * | --- | --- |
 * | `baseUrl` (alias `server`, as the OpenAPI dialect writes it) | where `path` is resolved |
 * | `method`, `path` | the operation; `{name}` in `path` is a path parameter |
 * | `parameters` | `{ <arg>: { in: 'path'\|'query'\|'header'\|'cookie'\|'body', name } }`, as the OpenAPI dialect writes it |
 * | `contentType` | the body's media type (JSON unless form-encoded) |
 * | `headers` | fixed headers |
 * | `auth` | `{ type: 'bearer'\|'header'\|'query', env, name? }`: the credential comes from the env var `env`, never the manifest |
 * | `healthUrl` | `check()` GETs it (relative to `baseUrl` allowed) |
 *
 * When `method`/`path` are missing they are read from the tool's
 * OpenAPI-derived provider entry (see ./http-config.ts).
 *
 * Containment (see docs/security.md). Every request, redirect hop and DNS
 * answer passes the egress policy (`environment.egress.allow`; default: the
 * hosts of this entry's own `baseUrl` and `healthUrl`), and the connection
 * goes to the address that was checked (`guardedDispatcher`). Redirects are
 * followed here, at most {@link MAX_REDIRECTS} hops: credentials stay on the
 * origin they were configured for, and a hop to another origin goes without
 * them or is refused (`egress.crossOriginRedirects`). Response bodies are
 * read up to `environment.maxResponseBytes` (10 MiB).
 * @module
 */
import type { Agent } from 'undici';
import type { Provider, Tool } from '../../model/schema.js';
import { DEFAULT_MAX_BODY_BYTES, readTextLimited, BodyTooLargeError } from '../containment/body-limit.js';
import { guardedDispatcher } from '../containment/dispatcher.js';
import { defaultEgressAllow, EgressError, EgressGuard } from '../containment/egress.js';
import { redirectDecision, withoutCredentials } from '../containment/redirects.js';
import { joinUrl, readHttpConfig, type HttpProviderConfig } from './http-config.js';
import { buildHttpRequest, headerValue, type BuiltRequest } from './http-request.js';
import { codeIdentityOf } from './identity.js';
import {
  ProviderConfigError,
  ProviderError,
  type HealthCheckResult,
  type ProviderCallContext,
  type ProviderEnvironment,
  type ProviderInstance,
  type ProviderType,
} from './types.js';
import { errorMessage } from '../../model/errors.js';

export { readHttpConfig, type HttpAuthConfig, type HttpParameterLocation, type HttpProviderConfig } from './http-config.js';
export { buildHttpRequest, type BuiltRequest } from './http-request.js';

/** Most redirects one call follows. */
export const MAX_REDIRECTS = 5;
/** Network failures that prove the request never reached a server. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DETAIL_LIMIT = 2048;

/** Walk an error's causes for a system error code (AggregateError included: all must agree). */
function networkCode(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur !== undefined && cur !== null; depth++) {
    const e = cur as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && NOT_SENT_CODES.has(e.code)) return e.code;
    if (Array.isArray(e.errors) && e.errors.length > 0) {
      const codes = e.errors.map((x) => networkCode(x));
      if (codes.every((c) => c !== undefined)) return codes[0];
    }
    cur = e.cause;
  }
  return undefined;
}

/** The egress refusal behind a failed fetch, if that is why it failed. */
function egressError(err: unknown): EgressError | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur !== undefined && cur !== null; depth++) {
    if (cur instanceof EgressError) return cur;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The request of the next hop: 303, and 301/302 after a POST, turn into a GET without a body (as fetch does). */
function nextHop(request: BuiltRequest, status: number, url: string): BuiltRequest {
  const toGet = status === 303 ? request.method !== 'HEAD' : (status === 301 || status === 302) && request.method === 'POST';
  if (!toGet) return { ...request, url };
  const { 'content-type': _type, ...headers } = request.headers;
  return { url, method: 'GET', headers };
}

class HttpInstance implements ProviderInstance {
  readonly type = 'http';
  declare readonly healthCheckIntervalSec?: number;
  declare readonly check?: (signal: AbortSignal) => Promise<HealthCheckResult>;
  private readonly guard: EgressGuard;
  private readonly dispatcher: Agent;
  private readonly target: string;
  private readonly maxBytes: number;

  constructor(
    readonly name: string,
    readonly config: HttpProviderConfig,
    private readonly environment: ProviderEnvironment,
  ) {
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
    this.target = config.baseUrl === undefined ? config.path : joinUrl(config.baseUrl, config.path);
    const healthUrl = config.healthUrl === undefined ? undefined : this.healthTarget(config.healthUrl);
    if (config.healthUrl !== undefined) this.check = (signal) => this.runCheck(healthUrl, signal);
    try {
      this.guard = new EgressGuard({ allow: environment.egress?.allow ?? defaultEgressAllow([this.target, ...(healthUrl ? [healthUrl] : [])]) });
    } catch (err) {
      throw new ProviderConfigError(errorMessage(err), { cause: err });
    }
    this.dispatcher = guardedDispatcher(this.guard);
    this.maxBytes = environment.maxResponseBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  private healthTarget(healthUrl: string): string | undefined {
    try {
      return new URL(/^https?:\/\//i.test(healthUrl) ? healthUrl : joinUrl(this.config.baseUrl ?? '', healthUrl)).href;
    } catch {
      return undefined;
    }
  }

  ready(): HealthCheckResult {
    const auth = this.config.auth;
    if (auth) {
      const v = this.environment.env[auth.env];
      if (v === undefined || v === '') return { healthy: false, reason: `${auth.env} is not set` };
    }
    const egress = this.guard.check(this.target.replace(/\{[^}]*\}/g, 'x'));
    if (!egress.allowed) return { healthy: false, reason: `egress refused: ${egress.reason}` };
    return { healthy: true };
  }

  /** The resolved method, URL template and origin: where the call goes and what it asks for. */
  async codeIdentity(): Promise<string> {
    let origin: string | null = null;
    try {
      origin = new URL(this.target.replace(/\{[^}]*\}/g, 'x')).origin;
    } catch {
      // readHttpConfig accepted it as an absolute URL; an unparsable host still has no origin
    }
    return codeIdentityOf('http', { method: this.config.method, url: this.target, origin });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  /**
   * Send `request`, following redirects under the egress and credential
   * rules. `hops` counts the requests sent: a failure on the first one is
   * before any effect, a failure on a later one is not.
   */
  private async send(request: BuiltRequest, signal: AbortSignal, what: string, hops: { sent: number }): Promise<Response> {
    const crossOrigin = this.environment.egress?.crossOriginRedirects ?? 'drop-credentials';
    const auth = this.config.auth;
    let current = request;
    for (;;) {
      const byName = this.guard.check(current.url);
      if (!byName.allowed) throw new ProviderError('EGRESS_DENIED', `${what}: egress refused: ${byName.reason}`, hops.sent === 0, { detail: { url: current.url, refusal: byName.code } });
      const response = await fetch(current.url, {
        method: current.method,
        headers: current.headers,
        ...(current.body !== undefined ? { body: current.body } : {}),
        signal,
        redirect: 'manual',
        // Node's fetch takes an undici dispatcher; the DOM RequestInit type does not name it
        dispatcher: this.dispatcher,
      } as unknown as RequestInit);
      hops.sent += 1;
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel().catch(() => {});
      if (hops.sent > MAX_REDIRECTS) throw new ProviderError('PROVIDER_ERROR', `${what}: more than ${MAX_REDIRECTS} redirects`, false, { detail: { location } });
      const decision = redirectDecision(current.url, location, { crossOrigin, egress: this.guard });
      if (decision.action === 'refuse') throw new ProviderError('EGRESS_DENIED', `${what}: ${decision.reason}`, false, { detail: { location } });
      const next = nextHop(current, response.status, new URL(location, current.url).href);
      if (decision.action === 'follow-without-credentials') {
        next.headers = withoutCredentials(next.headers, auth?.type === 'header' && auth.name !== undefined ? [auth.name] : []);
        if (auth?.type === 'query' && auth.name !== undefined) {
          const url = new URL(next.url);
          url.searchParams.delete(auth.name);
          next.url = url.href;
        }
      }
      current = next;
    }
  }

  /** A failed fetch as a ProviderError: aborted, refused by egress, never sent, or failed in flight. */
  private fetchFailure(err: unknown, url: string, what: string, signal: AbortSignal, first: boolean): ProviderError {
    if (err instanceof ProviderError) return err;
    if (signal.aborted) return new ProviderError('ABORTED', `${what}: aborted`, false, { cause: err });
    const refused = egressError(err);
    if (refused?.code === 'DNS_FAILED') return new ProviderError('PROVIDER_UNAVAILABLE', `${what}: ${refused.message}`, first, { cause: err });
    if (refused) return new ProviderError('EGRESS_DENIED', `${what}: egress refused: ${refused.message}`, first, { cause: err, detail: { host: refused.host, refusal: refused.code } });
    const code = networkCode(err);
    if (code !== undefined) return new ProviderError('PROVIDER_UNAVAILABLE', `${what}: cannot reach ${new URL(url).host} (${code})`, first, { cause: err });
    const reason = errorMessage((err as { cause?: unknown }).cause ?? err);
    // fetch refuses some ports (the WHATWG "bad port" list) before opening a connection: nothing was sent
    if (reason === 'bad port') return new ProviderError('PROVIDER_UNAVAILABLE', `${what}: fetch refuses to connect to port ${new URL(url).port} (a blocked port)`, first, { cause: err });
    return new ProviderError('PROVIDER_ERROR', `${what}: request failed: ${reason}`, false, { cause: err });
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const { signal } = context;
    const what = `${this.config.method} ${this.config.path || this.config.baseUrl || ''}`.trim();
    if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted before it started`, true, { cause: signal.reason });
    const request = buildHttpRequest(this.config, args, this.environment.env);
    if (context.idempotencyKey !== undefined && request.headers['idempotency-key'] === undefined) {
      request.headers['idempotency-key'] = headerValue('Idempotency-Key', context.idempotencyKey, 'the idempotency key');
    }
    // a tool with exactly one OAuth service and no auth of its own sends that service's access token (docs/oauth.md)
    const oauth = this.config.auth === undefined && context.oauth ? Object.values(context.oauth) : [];
    if (oauth.length === 1 && request.headers['authorization'] === undefined) request.headers['authorization'] = `Bearer ${oauth[0]!.accessToken}`;
    const hops = { sent: 0 };
    let response: Response;
    try {
      response = await this.send(request, signal, what, hops);
    } catch (err) {
      throw this.fetchFailure(err, request.url, what, signal, hops.sent === 0);
    }

    let text: string;
    try {
      text = await readTextLimited(response, this.maxBytes);
    } catch (err) {
      if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted`, false, { cause: err });
      if (err instanceof BodyTooLargeError) {
        throw new ProviderError('RESPONSE_TOO_LARGE', `${what}: HTTP ${response.status} response body exceeds ${err.limit} bytes (maxResponseBytes)`, false, {
          cause: err,
          detail: { limit: err.limit, received: err.received },
        });
      }
      throw new ProviderError('PROVIDER_ERROR', `${what}: reading the response failed: ${errorMessage(err)}`, false, { status: response.status, cause: err });
    }
    const json = /\bjson\b|\+json/i.test(response.headers.get('content-type') ?? '');
    let value: unknown = text;
    if (json) {
      try {
        value = text.trim() === '' ? null : (JSON.parse(text) as unknown);
      } catch (err) {
        throw new ProviderError('BAD_RESPONSE', `${what}: HTTP ${response.status} with invalid JSON: ${(err as Error).message}`, false, { status: response.status, cause: err });
      }
    }

    if (response.ok) return value;
    const retryAfter = response.headers.get('retry-after');
    const notProcessed = (response.status === 429 || response.status === 503) && retryAfter !== null;
    const detail = json ? value : text.length > DETAIL_LIMIT ? `${text.slice(0, DETAIL_LIMIT)}...` : text;
    throw new ProviderError(
      'PROVIDER_ERROR',
      `${what}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      notProcessed,
      { status: response.status, detail: retryAfter !== null ? { body: detail, retryAfter } : detail },
    );
  }

  private async runCheck(url: string | undefined, signal: AbortSignal): Promise<HealthCheckResult> {
    if (url === undefined) return { healthy: false, reason: `healthUrl "${this.config.healthUrl ?? ''}" is not a valid URL` };
    try {
      const response = await this.send({ url, method: 'GET', headers: {} }, signal, `GET ${url}`, { sent: 0 });
      await response.body?.cancel();
      return response.ok ? { healthy: true } : { healthy: false, reason: `GET ${url}: HTTP ${response.status}` };
    } catch (err) {
      if (err instanceof ProviderError) return { healthy: false, reason: err.message };
      const refused = egressError(err);
      return { healthy: false, reason: `GET ${url}: ${refused?.message ?? networkCode(err) ?? errorMessage((err as { cause?: unknown }).cause ?? err)}` };
    }
  }
}

/** The `http` provider type. */
export const httpProviderType: ProviderType = {
  type: 'http',
  create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
    return new HttpInstance(entry.name, readHttpConfig(entry, tool), environment);
  },
};
