/**
 * A tool's OAuth services (Shinkai `oauth[]`, canonical `auth.oauth`) as the
 * connect flow and the token client use them: endpoints checked, the client
 * secret found, and the two Shinkai switches read as Shinkai reads them:
 *
 * - `requestTokenContentType`: the token request body is JSON unless it is
 *   `application/x-www-form-urlencoded` (Shinkai's default is JSON).
 * - `requestTokenAuthHeader: basic`: the client authenticates with
 *   `Authorization: Basic base64(id:secret)` (client_secret_basic); without
 *   it, `client_id` and `client_secret` go in the body (client_secret_post,
 *   or `client_id` only for a public client without a secret).
 *
 * The client secret: the environment variable
 * `TOOLCAP_OAUTH_<SERVICE>_CLIENT_SECRET` when set (the operator's), else the
 * manifest's `clientSecret`, where `${NAME}` is read from the environment.
 * @module
 */
import type { Tool } from '../../model/schema.js';

type ManifestOAuth = NonNullable<NonNullable<Tool['auth']>['oauth']>[number];

/** One OAuth service, ready to use. */
export interface OAuthService {
  /** The manifest's `name` (or `oauth<i>` when it has none). */
  name: string;
  authorizationUrl: URL;
  tokenUrl: URL;
  /** The manifest's redirect URL, as written. */
  redirectUrl: string | undefined;
  clientId: string;
  clientSecret: string | undefined;
  scopes: string[];
  /** PKCE method; undefined: no PKCE. */
  pkce: 'S256' | 'plain' | undefined;
  /** `refreshToken: "true"`: the service issues refresh tokens. */
  refresh: boolean;
  /** How the token request body is encoded. */
  tokenBody: 'json' | 'form';
  /** How the client authenticates at the token endpoint. */
  clientAuth: 'basic' | 'body';
}

/** A service the manifest describes in a way no flow can use (missing URL, unknown content type...). */
export class OAuthSetupError extends Error {
  override readonly name = 'OAuthSetupError' as const;
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** The name a service is stored and connected under. */
export function serviceName(entry: ManifestOAuth, index: number): string {
  const name = entry.name?.trim();
  return name !== undefined && name !== '' ? name : `oauth${index}`;
}

/** The names of a tool's OAuth services, in manifest order (empty: it uses no OAuth). */
export function oauthServiceNames(tool: Tool): string[] {
  return (tool.auth?.oauth ?? []).map(serviceName);
}

/** The environment variable that overrides a service's client secret. */
export function clientSecretEnv(service: string): string {
  return `TOOLCAP_OAUTH_${service.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_CLIENT_SECRET`;
}

/**
 * The service `name` of `tool` (the only one when `name` is absent).
 * Throws {@link OAuthSetupError} with what to fix.
 * @example resolveService(tool, 'github', process.env).tokenUrl.href
 */
export function resolveService(tool: Tool, name: string | undefined, env: Readonly<Record<string, string | undefined>>): OAuthService {
  const entries = tool.auth?.oauth ?? [];
  const names = entries.map(serviceName);
  if (entries.length === 0) throw new OAuthSetupError(`"${tool.name}" declares no OAuth service (auth.oauth / Shinkai oauth[]).`);
  let index = 0;
  if (name === undefined) {
    if (entries.length > 1) throw new OAuthSetupError(`"${tool.name}" has ${entries.length} OAuth services (${names.join(', ')}): name one with --service.`);
  } else {
    index = names.indexOf(name);
    if (index < 0) throw new OAuthSetupError(`"${tool.name}" has no OAuth service "${name}"; it has ${names.join(', ')}.`);
  }
  return readService(tool.name, entries[index]!, names[index]!, env);
}

function readService(tool: string, entry: ManifestOAuth, name: string, env: Readonly<Record<string, string | undefined>>): OAuthService {
  const where = `OAuth service "${name}" of "${tool}"`;
  const url = (key: 'authorizationUrl' | 'tokenUrl'): URL => {
    const value = entry[key];
    if (value === undefined || value.trim() === '') throw new OAuthSetupError(`${where} has no ${key}.`);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      throw new OAuthSetupError(`${where}: ${key} "${value}" is not a URL.`);
    }
    if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopback(parsed.hostname))) {
      throw new OAuthSetupError(`${where}: ${key} must be https (plain http only for 127.0.0.1, ::1 or localhost).`);
    }
    return parsed;
  };
  const clientId = entry.clientId?.trim();
  if (clientId === undefined || clientId === '') throw new OAuthSetupError(`${where} has no clientId.`);
  if (entry.responseType !== undefined && entry.responseType !== 'code') throw new OAuthSetupError(`${where}: responseType "${entry.responseType}" is not supported; only "code".`);
  const pkce = entry.pkceType === undefined || entry.pkceType === '' ? undefined : entry.pkceType;
  if (pkce !== undefined && pkce !== 'S256' && pkce !== 'plain') throw new OAuthSetupError(`${where}: pkceType "${pkce}" is neither "S256" nor "plain".`);
  const contentType = entry.requestTokenContentType?.trim().toLowerCase();
  if (contentType !== undefined && contentType !== '' && contentType !== FORM && contentType !== JSON_TYPE) {
    throw new OAuthSetupError(`${where}: requestTokenContentType "${entry.requestTokenContentType}" is not supported; use "${FORM}" or "${JSON_TYPE}".`);
  }
  const authHeader = entry.requestTokenAuthHeader?.trim().toLowerCase();
  if (authHeader !== undefined && authHeader !== '' && authHeader !== 'basic') throw new OAuthSetupError(`${where}: requestTokenAuthHeader "${entry.requestTokenAuthHeader}" is not supported; only "basic".`);
  return {
    name,
    authorizationUrl: url('authorizationUrl'),
    tokenUrl: url('tokenUrl'),
    redirectUrl: entry.redirectUrl,
    clientId,
    clientSecret: clientSecret(entry, name, env, where),
    scopes: entry.scopes ?? [],
    pkce,
    refresh: entry.refreshToken === true || entry.refreshToken === 'true',
    tokenBody: contentType === FORM ? 'form' : 'json',
    clientAuth: authHeader === 'basic' ? 'basic' : 'body',
  };
}

function clientSecret(entry: ManifestOAuth, name: string, env: Readonly<Record<string, string | undefined>>, where: string): string | undefined {
  const override = env[clientSecretEnv(name)];
  if (override !== undefined && override !== '') return override;
  const written = entry.clientSecret;
  if (written === undefined || written === '') return undefined;
  const ref = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(written.trim());
  if (!ref) return written;
  const value = env[ref[1]!];
  if (value === undefined || value === '') throw new OAuthSetupError(`${where}: clientSecret refers to \${${ref[1]}}, which is not set.`);
  return value;
}

/** Loopback host names: where plain http and a local redirect listener are fine. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}
