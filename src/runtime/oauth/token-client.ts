/**
 * The token endpoint, through `oauth4webapi`: the authorization-code
 * exchange and the refresh grant, shaped as the manifest says (JSON or
 * form body, Basic or in-body client authentication; see services.ts).
 * oauth4webapi builds and checks every request and response; the one thing
 * it does not do, a JSON body, is a `customFetch` that re-encodes the form
 * it built. Requests go through the egress guard (containment/egress.ts):
 * by default only the token URL's own host is reachable.
 * @module
 */
import * as oauth from 'oauth4webapi';
import { errorMessage } from '../../model/errors.js';
import { BodyTooLargeError, readBodyLimited } from '../containment/body-limit.js';
import { guardedDispatcher } from '../containment/dispatcher.js';
import { defaultEgressAllow, EgressGuard } from '../containment/egress.js';
import type { ProviderEgress } from '../providers/types.js';
import { isLoopback, type OAuthService } from './services.js';

/** The tokens of one connection, as sealed in the store. */
export interface TokenSet {
  accessToken: string;
  /** `bearer` (lower-case, as oauth4webapi gives it), or what the server said. */
  tokenType: string;
  refreshToken?: string;
  /** ISO 8601; absent when the server gave no `expires_in`. */
  expiresAt?: string;
  scope?: string;
  /** The issuer the tokens came from (the authorization response's `iss`, else the origin). */
  issuer: string;
}

/** The token endpoint refused (`oauthError` is its `error`, e.g. `invalid_grant`) or could not be reached. */
export class TokenEndpointError extends Error {
  override readonly name = 'TokenEndpointError' as const;
  constructor(
    message: string,
    readonly oauthError?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Options of the token requests. */
export interface TokenRequestOptions {
  /** Hosts the requests may reach. @default the token URL's host */
  egress?: ProviderEgress;
  signal?: AbortSignal;
  /** @default 30000 */
  timeoutMs?: number;
  clock?: () => number;
}

/** The authorization server as oauth4webapi wants it: no discovery, the manifest's endpoints. */
export function authorizationServer(service: OAuthService, issuer?: string): oauth.AuthorizationServer {
  return {
    issuer: issuer ?? service.authorizationUrl.origin,
    authorization_endpoint: service.authorizationUrl.href,
    token_endpoint: service.tokenUrl.href,
  };
}

/**
 * The client's authentication at the token endpoint (see services.ts).
 * `basic` is the header exactly as Shinkai writes it, `base64(id:secret)`:
 * oauth4webapi's ClientSecretBasic form-encodes both first (RFC 6749
 * 2.3.1), which servers that do not decode (as Shinkai's targets may not)
 * would refuse; a decoding server reads the same values either way unless
 * they hold reserved characters.
 */
export function clientAuthOf(service: OAuthService): oauth.ClientAuth {
  const secret = service.clientSecret;
  if (secret === undefined) return oauth.None();
  if (service.clientAuth === 'body') return oauth.ClientSecretPost(secret);
  return (_as, client, _body, headers) => {
    headers.set('authorization', `Basic ${Buffer.from(`${client.client_id}:${secret}`, 'utf8').toString('base64')}`);
  };
}

/** Exchange an authorization response's code (its `state` already checked) for tokens. */
export async function exchangeCode(
  service: OAuthService,
  issuer: string,
  params: URLSearchParams,
  redirectUri: string,
  verifier: string | undefined,
  options: TokenRequestOptions = {},
): Promise<TokenSet> {
  const as = authorizationServer(service, issuer);
  const client: oauth.Client = { client_id: service.clientId };
  return withTransport(service, options, async (http) => {
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuthOf(service), params, redirectUri, verifier ?? oauth.nopkce, http);
    return tokenSet(await oauth.processAuthorizationCodeResponse(as, client, response), issuer, undefined, options.clock);
  });
}

/** Use a refresh token; the old one is kept when the server does not rotate it. */
export async function refreshTokens(service: OAuthService, current: TokenSet, options: TokenRequestOptions = {}): Promise<TokenSet> {
  if (current.refreshToken === undefined) throw new TokenEndpointError('There is no refresh token.');
  const as = authorizationServer(service, current.issuer);
  const client: oauth.Client = { client_id: service.clientId };
  return withTransport(service, options, async (http) => {
    const response = await oauth.refreshTokenGrantRequest(as, client, clientAuthOf(service), current.refreshToken!, http);
    return tokenSet(await oauth.processRefreshTokenResponse(as, client, response), current.issuer, current.refreshToken, options.clock);
  });
}

function tokenSet(r: oauth.TokenEndpointResponse, issuer: string, previousRefresh: string | undefined, clock: () => number = Date.now): TokenSet {
  const refreshToken = r.refresh_token ?? previousRefresh;
  return {
    accessToken: r.access_token,
    tokenType: r.token_type,
    ...(refreshToken !== undefined ? { refreshToken } : {}),
    ...(typeof r.expires_in === 'number' ? { expiresAt: new Date(clock() + r.expires_in * 1000).toISOString() } : {}),
    ...(typeof r.scope === 'string' ? { scope: r.scope } : {}),
    issuer,
  };
}

type Http = oauth.TokenEndpointRequestOptions;

/** The most a token endpoint's answer may hold: tokens and their fields are a few KB (an ID token with many claims, tens). */
export const MAX_TOKEN_RESPONSE_BYTES = 1024 * 1024;
/** Statuses whose Response may have no body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/** Run `work` with oauth4webapi options: guarded fetch, JSON re-encoding when asked, a timeout; errors as TokenEndpointError. */
async function withTransport<T>(service: OAuthService, options: TokenRequestOptions, work: (http: Http) => Promise<T>): Promise<T> {
  let guard: EgressGuard;
  try {
    guard = new EgressGuard({ allow: options.egress?.allow ?? defaultEgressAllow([service.tokenUrl.href]) });
  } catch (error) {
    throw new TokenEndpointError(errorMessage(error), undefined, { cause: error });
  }
  const dispatcher = guardedDispatcher(guard);
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 30_000), ...(options.signal ? [options.signal] : [])];
  const http: Http = {
    signal: AbortSignal.any(signals),
    [oauth.allowInsecureRequests]: isLoopback(service.tokenUrl.hostname),
    [oauth.customFetch]: async (url, init) => {
      const byName = guard.check(url);
      if (!byName.allowed) throw new TokenEndpointError(`egress refused: ${byName.reason}`);
      let { body, headers } = init;
      if (service.tokenBody === 'json' && body instanceof URLSearchParams) {
        body = JSON.stringify(Object.fromEntries(body)) as unknown as URLSearchParams;
        headers = { ...headers, 'content-type': 'application/json' };
      }
      // Node's fetch takes an undici dispatcher; the DOM RequestInit type does not name it
      const response = await fetch(url, { ...init, body, headers, dispatcher } as unknown as RequestInit);
      // oauth4webapi reads the whole answer: a token endpoint that streams without end would fill the memory
      const answer = await readBodyLimited(response, MAX_TOKEN_RESPONSE_BYTES).catch((error: unknown) => {
        throw new TokenEndpointError(error instanceof BodyTooLargeError ? `the token endpoint's answer is over ${MAX_TOKEN_RESPONSE_BYTES} bytes` : `reading the token endpoint's answer failed: ${errorMessage(error)}`, undefined, { cause: error });
      });
      return new Response(NULL_BODY_STATUSES.has(response.status) ? null : answer, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
  };
  try {
    return await work(http);
  } catch (error) {
    if (error instanceof TokenEndpointError) throw error;
    if (error instanceof oauth.ResponseBodyError) {
      const description = error.error_description !== undefined ? `: ${error.error_description}` : '';
      throw new TokenEndpointError(`the token endpoint answered ${error.status} ${error.error}${description}`, error.error, { cause: error });
    }
    throw new TokenEndpointError(`the token request to ${service.tokenUrl.origin} failed: ${errorMessage(error)}`, undefined, { cause: error });
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}
