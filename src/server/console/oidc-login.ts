/**
 * Signing in to the console with the configured OpenID provider: the
 * authorization code flow with PKCE (S256), `state` and `nonce`, through
 * `oauth4webapi` (discovery, the code exchange, ID token validation).
 *
 * `GET /ui/login/oidc` makes a one-time state, nonce and code verifier, seals
 * them (AES-256-GCM, under a key made when the console starts) into a
 * short-lived cookie, and redirects to the provider. Nothing is kept on the
 * server: a pending sign-in held there could be pushed out by anyone asking
 * for new ones (the page needs no credentials), and a flood of them did
 * (10,000 kept at most). A sealed cookie is useless elsewhere and cannot be
 * forged; the provider's authorization code, bound to the verifier, is good
 * once. That cookie is `SameSite=Lax`, not `Strict`: the
 * provider's redirect back is a top-level navigation started by another
 * site, which a browser sends Lax cookies with and Strict ones without (the
 * callback could then never find its state). It is `HttpOnly`, scoped to
 * `/ui/login` and dies after ten minutes or its first use.
 *
 * `GET /ui/login/callback` checks the state, exchanges the code, validates
 * the ID token (signature, issuer, audience = the client id, nonce, expiry), and opens
 * the console session with the access token of the exchange, which is
 * authenticated exactly as an API bearer token is (same verifier, same
 * claim mapping, same grants), as every later console request re-checks it.
 * The redirect URI is configured or derived from the bound server URL,
 * never from a request's Host header. Failures are pages with a 4xx status
 * (502 when the provider cannot be reached), never a crash.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { errorMessage } from '../../model/errors.js';
import { isLoopback } from '../../runtime/oauth/services.js';
import { h, Safe } from './html.js';
import { html, layout } from './layout.js';
import { safeNext } from './login.js';
import { cookieValue, type Renew, type Sessions } from './session.js';

/** How the console signs in with the OpenID provider. */
export interface OidcLoginOptions {
  /** The issuer, as `auth.oidc.issuer` (discovery at `<issuer>/.well-known/openid-configuration`). */
  issuer: string;
  /** The console's client id at the provider. */
  clientId: string;
  /** The client secret (a confidential client), already read from the environment; absent: a public client (PKCE only). */
  clientSecret?: string;
  /** Where the provider sends the browser back: `<server URL>/ui/login/callback` unless configured. */
  redirectUri: string;
  /** Scopes asked for. @default 'openid' */
  scope?: string;
  /** An RFC 8707 resource indicator, so the access token is issued for toolcap's audience. */
  resource?: string;
  /** How long to wait for the provider, ms. @default 10000 */
  timeoutMs?: number;
  /** @default Date.now */
  clock?: () => number;
}

/** The cookie that binds a browser to its pending sign-in. */
export const OIDC_COOKIE = 'toolcap_oidc';
/** A pending sign-in lives this long. */
const PENDING_MS = 10 * 60 * 1000;
/** The longest `next` a pending sign-in carries (the cookie holds it); a longer one leads to `/`. */
const NEXT_MAX = 1000;

interface Pending {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly next: string;
  readonly expiresAt: number;
}

/** A refusal: a page with this status and message. */
class LoginFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The browser sign-in of one console. */
export class OidcLogin {
  readonly #options: OidcLoginOptions;
  readonly #sessions: Sessions;
  /** Seals pending sign-ins into their cookie; made afresh at each start, so a restart ends sign-ins under way. */
  readonly #key = randomBytes(32);
  readonly #clock: () => number;
  readonly #client: oauth.Client;
  readonly #clientAuth: oauth.ClientAuth;
  readonly #secure: boolean;
  #server: Promise<oauth.AuthorizationServer> | undefined;
  /** The issuer's keys, as oauth4webapi caches them between sign-ins. */
  readonly #jwks: oauth.JWKSCacheInput = {};

  constructor(options: OidcLoginOptions, sessions: Sessions) {
    this.#options = options;
    this.#sessions = sessions;
    this.#clock = options.clock ?? Date.now;
    this.#client = { client_id: options.clientId };
    this.#clientAuth = options.clientSecret !== undefined ? oauth.ClientSecretBasic(options.clientSecret) : oauth.None();
    this.#secure = new URL(options.redirectUri).protocol === 'https:';
  }

  /** The issuer shown on the button. */
  get issuer(): string {
    return this.#options.issuer;
  }

  /** `GET /ui/login/oidc`: to the provider, with a fresh state, nonce and PKCE challenge bound to this browser. */
  async start(c: Context): Promise<Response> {
    const wanted = safeNext(c.req.query('next'));
    const next = wanted.length > NEXT_MAX ? '/' : wanted;
    const here = new URL(c.req.url);
    const home = new URL(this.#options.redirectUri);
    // the callback comes back to the redirect URI's origin: the pending cookie must be set there
    if (here.origin !== home.origin) return redirect(`${home.origin}/ui/login/oidc?next=${encodeURIComponent(next)}`);
    let as: oauth.AuthorizationServer;
    try {
      as = await this.#authorizationServer();
    } catch (error) {
      return failure(502, `The sign-in provider ${this.#options.issuer} cannot be reached: ${errorMessage(error)}`);
    }
    if (as.authorization_endpoint === undefined) return failure(502, `The provider ${this.#options.issuer} names no authorization endpoint.`);
    const verifier = oauth.generateRandomCodeVerifier();
    const pending: Pending = { state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce(), verifier, next, expiresAt: this.#clock() + PENDING_MS };
    const url = new URL(as.authorization_endpoint);
    const params: Record<string, string> = {
      response_type: 'code',
      client_id: this.#options.clientId,
      redirect_uri: this.#options.redirectUri,
      scope: this.#options.scope ?? 'openid',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(this.#options.resource !== undefined ? { resource: this.#options.resource } : {}),
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return redirect(url.href, this.#cookie(this.#seal(pending), PENDING_MS / 1000));
  }

  /** `GET /ui/login/callback`: check the state, exchange the code, validate the ID token, open the session. */
  async callback(c: Context): Promise<Response> {
    const sealed = cookieValue(c.req.header('cookie'), OIDC_COOKIE);
    const pending = sealed === undefined ? undefined : this.#unseal(sealed);
    const clear = this.#cookie('', 0);
    try {
      if (!pending) throw new LoginFailure(400, 'This sign-in was not started here, was already used, or took longer than ten minutes. Start again.');
      const params = new URL(c.req.url).searchParams;
      const as = await this.#authorizationServer().catch((error: unknown) => {
        throw new LoginFailure(502, `The sign-in provider ${this.#options.issuer} cannot be reached: ${errorMessage(error)}`);
      });
      const checked = this.#authorizationResponse(as, params, pending.state);
      const tokens = await this.#exchange(as, checked, pending);
      const claims = oauth.getValidatedIdTokenClaims(tokens);
      const accessSub = safeSub(tokens.access_token);
      if (claims && accessSub !== undefined && accessSub !== claims.sub) throw new LoginFailure(403, `The access token is for "${accessSub}", the ID token for "${claims.sub}".`);
      // the session keeps the access token and re-authenticates it on every request, as the API does a bearer token
      const outcome = await this.#sessions.login(c.req.raw, tokens.access_token, this.#renewal(tokens.refresh_token));
      if (!outcome.ok) {
        if (outcome.code === 'UNAVAILABLE') throw new LoginFailure(503, `Credentials cannot be checked now: ${outcome.message}`);
        throw new LoginFailure(403, `Signed in at ${this.#options.issuer} as "${claims?.sub ?? '?'}", but toolcap does not accept that sign-in: ${outcome.message}`);
      }
      // a page that moves on, not a redirect: see landing()
      const res = landing(pending.next, outcome.principal?.id ?? claims?.sub ?? '?');
      res.headers.append('set-cookie', outcome.setCookie);
      res.headers.append('set-cookie', clear);
      return res;
    } catch (error) {
      const { status, message } = error instanceof LoginFailure ? error : { status: 500, message: `Sign-in failed: ${errorMessage(error)}` };
      const res = failure(status, message);
      res.headers.append('set-cookie', clear);
      return res;
    }
  }

  /** The authorization response's parameters, checked: the provider's error, the state, the issuer (RFC 9207), a code. */
  #authorizationResponse(as: oauth.AuthorizationServer, params: URLSearchParams, state: string): URLSearchParams {
    let checked: URLSearchParams;
    try {
      checked = oauth.validateAuthResponse(as, this.#client, params, state);
    } catch (error) {
      if (error instanceof oauth.AuthorizationResponseError) {
        const description = error.error_description ? `: ${error.error_description}` : '';
        throw new LoginFailure(error.error === 'access_denied' ? 403 : 400, `The provider did not sign you in (${error.error}${description}).`);
      }
      throw new LoginFailure(400, `The provider's answer was refused: ${errorMessage(error)}.`);
    }
    if (!checked.get('code')) throw new LoginFailure(400, 'The provider\'s answer has no authorization code. Start again.');
    return checked;
  }

  /** The code for tokens; the ID token is required and checked (issuer, audience, nonce, expiry). */
  async #exchange(as: oauth.AuthorizationServer, params: URLSearchParams, pending: Pending): Promise<oauth.TokenEndpointResponse> {
    let response: Response;
    try {
      response = await oauth.authorizationCodeGrantRequest(as, this.#client, this.#clientAuth, params, this.#options.redirectUri, pending.verifier, this.#http(as.token_endpoint));
    } catch (error) {
      throw new LoginFailure(502, `The token endpoint of ${this.#options.issuer} cannot be reached: ${errorMessage(error)}`);
    }
    try {
      const tokens = await oauth.processAuthorizationCodeResponse(as, this.#client, response, { expectedNonce: pending.nonce, requireIdToken: true });
      // its signature too, against the issuer's JWKS (TLS alone would do, per OIDC Core 3.1.3.7; plain http to a loopback provider would not)
      await oauth.validateApplicationLevelSignature(as, response, { ...this.#http(as.jwks_uri), [oauth.jwksCache]: this.#jwks });
      return tokens;
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError) {
        const description = error.error_description ? `: ${error.error_description}` : '';
        throw new LoginFailure(400, `The provider refused the code (${error.error}${description}). Start again.`);
      }
      throw new LoginFailure(400, `The provider's tokens were refused: ${errorMessage(error)}.`);
    }
  }

  /** With a refresh token: how the session gets a new access token when its own expires (the newest refresh token kept, as a provider may rotate it). */
  #renewal(refreshToken: string | undefined): Renew | undefined {
    if (refreshToken === undefined) return undefined;
    let current = refreshToken;
    return async () => {
      const as = await this.#authorizationServer();
      const response = await oauth.refreshTokenGrantRequest(as, this.#client, this.#clientAuth, current, this.#http(as.token_endpoint));
      const tokens = await oauth.processRefreshTokenResponse(as, this.#client, response);
      if (tokens.refresh_token !== undefined) current = tokens.refresh_token;
      return tokens.access_token;
    };
  }

  /** The provider's metadata, discovered once (a failed discovery is retried next time). */
  #authorizationServer(): Promise<oauth.AuthorizationServer> {
    this.#server ??= (async () => {
      const issuer = new URL(this.#options.issuer);
      const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...this.#http(issuer.href) });
      return oauth.processDiscoveryResponse(issuer, response);
    })();
    return this.#server.catch((error: unknown) => {
      this.#server = undefined;
      throw error;
    });
  }

  /** Request options: a timeout; plain http only to a loopback provider. */
  #http(url: string | undefined): { signal: AbortSignal; [oauth.allowInsecureRequests]: boolean } {
    const loopback = url !== undefined && isLoopback(new URL(url).hostname);
    return { signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000), [oauth.allowInsecureRequests]: loopback };
  }

  /** A pending sign-in as its cookie's value: IV, tag and ciphertext, base64url. */
  #seal(pending: Pending): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(pending), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The pending sign-in a cookie seals, unless it was not sealed here (or since the last start), was altered or expired. */
  #unseal(value: string): Pending | undefined {
    try {
      const raw = Buffer.from(value, 'base64url');
      if (raw.length < 29) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const p = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as Pending;
      return typeof p.expiresAt === 'number' && p.expiresAt > this.#clock() ? p : undefined;
    } catch {
      return undefined;
    }
  }

  #cookie(value: string, maxAgeSec: number): string {
    return `${OIDC_COOKIE}=${value}; Path=/ui/login; HttpOnly; SameSite=Lax${this.#secure ? '; Secure' : ''}; Max-Age=${maxAgeSec}`;
  }
}

/** The `sub` of a JWT (already verified by the authenticator), or undefined. */
function safeSub(token: string): string | undefined {
  try {
    const sub = decodeJwt(token).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

function redirect(location: string, setCookie?: string): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  if (setCookie) headers.append('set-cookie', setCookie);
  return new Response(null, { status: 303, headers });
}

/**
 * The page the callback answers with: it moves on to `next` by itself
 * (`<meta http-equiv="refresh">`, no script) and has a link. Not a 303:
 * the callback is reached by a navigation the provider's site started, and
 * browsers count a redirect chain with a cross-site step as cross-site, so
 * the `SameSite=Strict` session cookie would not be sent to `next` and the
 * console would ask to sign in again. The page's own navigation is same-site.
 * Exported for its test.
 */
export function landing(next: string, who: string): Response {
  const page = layout({ title: 'Signed in', nav: 'login' }, h`<div class="login"><h1>Signed in</h1><p>Signed in as <strong>${who}</strong>.</p><p><a href="${next}">Continue</a></p></div>`);
  // a function, not a string: `next` may hold `$'` or `$\``, which a replacement string expands into a copy of the page
  const head = h`<head><meta http-equiv="refresh" content="0;url=${next}">`.text;
  return html(new Safe(page.text.replace('<head>', () => head)), 200);
}

/** The page of a failed sign-in. */
function failure(status: number, message: string): Response {
  return html(layout({ title: 'Sign-in failed', nav: 'login' }, h`<div class="login"><h1>Sign-in failed</h1><p class="error" role="alert">${message}</p><p><a href="/ui/login">Back to sign-in</a></p></div>`), status);
}
