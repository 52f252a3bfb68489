/**
 * `auth.oidc.console`: the web console's client at the OIDC provider, for
 * its browser sign-in (authorization code + PKCE, server/console/oidc-login.ts).
 * A client id; a client secret only as `{ env: NAME }` (the config never
 * holds a secret); the redirect URI when the bound server URL is not the one
 * browsers use (a wildcard bind, a reverse proxy); the scopes; and an
 * RFC 8707 resource indicator so the access token is for toolcap's audience.
 *
 * @example
 * auth:
 *   oidc:
 *     issuer: https://login.example.org/realms/main
 *     audience: https://toolcap.example.org
 *     console:
 *       clientId: toolcap-console
 *       clientSecret: { env: TOOLCAP_CONSOLE_SECRET }
 *       redirectUri: https://toolcap.example.org/ui/login/callback
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { OidcLoginOptions } from '../../server/console/oidc-login.js';
import type { ObjectReader } from '../../source/reader.js';
import type { ConfigReading } from '../reading.js';

/** `auth.oidc.console`, read. */
export interface ConsoleLoginConfig {
  clientId: string;
  /** The environment variable holding the client secret (absent: a public client). */
  clientSecretEnv?: string;
  /** @default `<server URL>/ui/login/callback` */
  redirectUri?: string;
  /** @default 'openid' */
  scope?: string;
  resource?: string;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const CALLBACK_PATH = '/ui/login/callback';

/** The schema of `auth.oidc.console`. */
export const ConsoleLoginSchema = Type.Object(
  {
    clientId: Type.String({ minLength: 1, description: 'The console\'s client id at the provider.' }),
    clientSecret: Type.Optional(Type.Object({ env: Type.String({ pattern: ENV_NAME.source }) }, { additionalProperties: false, description: 'A confidential client\'s secret, as { env: NAME } (never written in the config).' })),
    redirectUri: Type.Optional(Type.String({ pattern: `^https?://\\S+${CALLBACK_PATH}$`, description: `Default: the server's URL + ${CALLBACK_PATH}.` })),
    scope: Type.Optional(Type.String({ minLength: 1, description: 'Default: openid.' })),
    resource: Type.Optional(Type.String({ minLength: 1, description: 'RFC 8707 resource indicator asked for (the access token\'s audience).' })),
  },
  { additionalProperties: false, description: 'Browser sign-in to the web console (authorization code flow with PKCE).' },
);

/** Read `auth.oidc.console` (optional). */
export function readConsoleLogin(reading: ConfigReading, oidcReader: ObjectReader): ConsoleLoginConfig | undefined {
  const r = oidcReader.object('console');
  if (!r) return undefined;
  const clientId = r.string('clientId');
  if (!r.has('clientId')) reading.report('MISSING_FIELD', 'auth.oidc.console needs "clientId": the console\'s client id at the provider.', r.pointer, { hint: 'Register a client with the redirect URI <server URL>/ui/login/callback and write clientId: toolcap-console.' });
  const login: Partial<ConsoleLoginConfig> = {};
  const raw = r.raw('clientSecret');
  if (raw !== undefined) {
    const env = raw !== null && typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 1 ? (raw as Record<string, unknown>)['env'] : undefined;
    if (typeof env === 'string' && ENV_NAME.test(env)) login.clientSecretEnv = env;
    else reading.report('INVALID_VALUE', 'auth.oidc.console.clientSecret is { env: NAME }: the config never holds a secret.', r.at('clientSecret'), { hint: 'Write clientSecret: { env: TOOLCAP_CONSOLE_SECRET } and set that variable where toolcap runs.' });
  }
  const redirectUri = r.string('redirectUri');
  if (redirectUri !== undefined) {
    if (/^https?:\/\/\S+$/.test(redirectUri) && new URL(redirectUri).pathname === CALLBACK_PATH && new URL(redirectUri).search === '') login.redirectUri = redirectUri;
    else reading.report('INVALID_VALUE', `auth.oidc.console.redirectUri must be an http(s) URL ending in ${CALLBACK_PATH}.`, r.at('redirectUri'), { hint: `Write the URL browsers reach this toolcap at, e.g. https://toolcap.example.org${CALLBACK_PATH}.` });
  }
  for (const key of ['scope', 'resource'] as const) {
    const v = r.string(key);
    if (v !== undefined && v.trim() !== '') login[key] = v;
    else if (v !== undefined) reading.report('INVALID_VALUE', `auth.oidc.console.${key} must not be empty.`, r.at(key), {});
  }
  r.rest({ where: 'auth.oidc.console (known: clientId, clientSecret, redirectUri, scope, resource)' });
  return clientId !== undefined && clientId.trim() !== '' ? { ...login, clientId } : undefined;
}

/**
 * The console's sign-in options for a running server: the secret read from
 * `env`, the redirect URI as configured or `<serverUrl>/ui/login/callback`.
 * A missing secret, or a wildcard bind with no redirect URI (no URL a
 * browser could come back to), leaves browser sign-in off, with a warning.
 */
export function consoleLoginOptions(login: ConsoleLoginConfig, issuer: string, serverUrl: string, env: Readonly<Record<string, string | undefined>>): { options?: OidcLoginOptions; warning?: string } {
  const secret = login.clientSecretEnv !== undefined ? env[login.clientSecretEnv] : undefined;
  if (login.clientSecretEnv !== undefined && !secret) return { warning: `console: ${login.clientSecretEnv} is not set; browser sign-in with ${issuer} is off (the login form still takes tokens)` };
  const host = new URL(serverUrl).hostname.replace(/^\[|\]$/g, '');
  if (login.redirectUri === undefined && (host === '0.0.0.0' || host === '::')) {
    return { warning: `console: listening on every address, so no redirect URI can be derived; set auth.oidc.console.redirectUri for browser sign-in with ${issuer}` };
  }
  return {
    options: {
      issuer,
      clientId: login.clientId,
      redirectUri: login.redirectUri ?? `${serverUrl}${CALLBACK_PATH}`,
      ...(secret ? { clientSecret: secret } : {}),
      ...(login.scope !== undefined ? { scope: login.scope } : {}),
      ...(login.resource !== undefined ? { resource: login.resource } : {}),
    },
  };
}
