/**
 * `toolcap oauth connect`: the authorization-code flow with PKCE for one
 * OAuth service of a tool. The key is checked first (tokens are only ever
 * stored sealed); then a loopback listener starts (redirect-listener.ts),
 * the authorization URL is handed to `onAuthorizationUrl` (printed; toolcap
 * opens no browser), the callback's `state` is checked, the code is
 * exchanged as the manifest says (token-client.ts) and the tokens are
 * sealed into the store (vault.ts).
 * @module
 */
import * as oauth from 'oauth4webapi';
import type { Tool } from '../../model/schema.js';
import { errorMessage } from '../../model/errors.js';
import type { OAuthTokenRecord } from '../../store/oauth-tokens.js';
import type { ProviderEgress } from '../providers/types.js';
import { listenForRedirect, redirectTarget } from './redirect-listener.js';
import { resolveService, type OAuthService } from './services.js';
import { authorizationServer, exchangeCode } from './token-client.js';
import type { OAuthVault } from './vault.js';

/** Options of {@link connectOAuth}. */
export interface ConnectOptions {
  vault: OAuthVault;
  tool: Tool;
  /** The service to connect; may be left out when the tool has one. */
  service?: string;
  /** Told the URL the user opens, and the redirect URI the listener serves. */
  onAuthorizationUrl: (url: string, redirectUri: string) => void;
  /** Told what the user should know (a redirect URL that is not local). */
  onNotice?: (message: string) => void;
  /** How long to wait for the browser to come back. @default 300000 */
  timeoutMs?: number;
  signal?: AbortSignal;
  env?: Readonly<Record<string, string | undefined>>;
  egress?: ProviderEgress;
  clock?: () => number;
}

/** A finished connection. */
export interface ConnectResult {
  tool: string;
  service: string;
  redirectUri: string;
  record: OAuthTokenRecord;
}

/** The flow could not finish: the user refused, the wait timed out, the token endpoint refused the code. */
export class OAuthConnectError extends Error {
  override readonly name = 'OAuthConnectError' as const;
}

/** The authorization request URL (PKCE and state included). */
export async function authorizationUrl(service: OAuthService, redirectUri: string, state: string, verifier: string | undefined): Promise<URL> {
  const url = new URL(service.authorizationUrl.href);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', service.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  if (service.scopes.length > 0) url.searchParams.set('scope', service.scopes.join(' '));
  url.searchParams.set('state', state);
  if (verifier !== undefined) {
    url.searchParams.set('code_challenge', service.pkce === 'S256' ? await oauth.calculatePKCECodeChallenge(verifier) : verifier);
    url.searchParams.set('code_challenge_method', service.pkce === 'S256' ? 'S256' : 'plain');
  }
  return url;
}

/**
 * Run the flow and store the tokens. Throws OAuthSetupError (the manifest),
 * SecretKeyError (no usable key: nothing started), OAuthConnectError.
 * @example await connectOAuth({ vault, tool, onAuthorizationUrl: (url) => console.log(`Open ${url}`) });
 */
export async function connectOAuth(options: ConnectOptions): Promise<ConnectResult> {
  const env = options.env ?? process.env;
  const service = resolveService(options.tool, options.service, env);
  options.vault.box(); // no key: refuse before anyone logs in
  const target = redirectTarget(service.redirectUrl);
  const state = oauth.generateRandomState();
  const verifier = service.pkce === undefined ? undefined : oauth.generateRandomCodeVerifier();
  let listener;
  try {
    listener = await listenForRedirect(target, state, { timeoutMs: options.timeoutMs ?? 300_000, ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    throw new OAuthConnectError(`cannot listen for the OAuth redirect on 127.0.0.1:${target.port}: ${errorMessage(error)}`, { cause: error });
  }
  const { redirectUri } = listener;
  if (!target.local) {
    options.onNotice?.(`the manifest's redirectUrl ${service.redirectUrl === undefined ? '(none)' : `"${service.redirectUrl}"`} is not a loopback http URL toolcap can listen on; using ${redirectUri}, which the OAuth app must allow as a redirect URI`);
  }
  let record: OAuthTokenRecord | undefined;
  try {
    const url = await authorizationUrl(service, redirectUri, state, verifier);
    options.onAuthorizationUrl(url.href, redirectUri);
    await listener.wait(async (params) => {
      const issuer = issuerOf(service, params);
      let checked: URLSearchParams;
      try {
        checked = oauth.validateAuthResponse(authorizationServer(service, issuer), { client_id: service.clientId }, params, state);
      } catch (error) {
        const why = error instanceof oauth.AuthorizationResponseError ? `${error.error}${error.error_description ? `: ${error.error_description}` : ''}` : errorMessage(error);
        throw new OAuthConnectError(`the authorization server did not authorize: ${why}`, { cause: error });
      }
      const tokens = await exchangeCode(service, issuer, checked, redirectUri, verifier, {
        ...(options.egress ? { egress: options.egress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      }).catch((error: unknown) => {
        throw new OAuthConnectError(`exchanging the authorization code failed: ${errorMessage(error)}`, { cause: error });
      });
      record = await options.vault.save(options.tool.name, service.name, tokens);
    });
  } catch (error) {
    if (error instanceof OAuthConnectError) throw error;
    throw new OAuthConnectError(errorMessage(error), { cause: error });
  } finally {
    await listener.close();
  }
  return { tool: options.tool.name, service: service.name, redirectUri, record: record! };
}

/** The issuer the response names (RFC 9207 `iss`) when it is on the authorization URL's origin, else that origin. */
function issuerOf(service: OAuthService, params: URLSearchParams): string {
  const iss = params.get('iss');
  if (iss === null) return service.authorizationUrl.origin;
  try {
    return new URL(iss).origin === service.authorizationUrl.origin ? iss : service.authorizationUrl.origin;
  } catch {
    return service.authorizationUrl.origin;
  }
}
