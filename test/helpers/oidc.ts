/**
 * A real OpenID provider for tests: `oidc-provider`, in this process, on
 * 127.0.0.1 and an ephemeral port. Its clients use the client_credentials
 * grant; with a resource indicator it issues JWT access tokens (RFC 9068,
 * `typ: at+jwt`) signed by its own RSA key, whose `sub` is the client id and
 * which carry the claims given for that client. So tests verify real signed
 * tokens against a real JWKS.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type ClientMetadata, type Configuration } from 'oidc-provider';

export interface TestIssuerOptions {
  /** The resource indicator (and token audience) asked for by default. @default 'https://toolcap.test' */
  audience?: string;
  /** Access token lifetime in seconds. @default 300 */
  ttlSec?: number;
  /** Client ids and the extra claims their tokens carry (roles, personas...). */
  clients?: Record<string, Record<string, unknown>>;
  /** Sign with this private JWK instead of a new key (two issuers sharing a key). */
  signingKey?: JWK;
  /**
   * Clients of the authorization code flow (a browser sign-in): registered
   * as native apps, so a loopback redirect URI matches on any port (RFC 8252
   * 7.3); with a secret, confidential (client_secret_basic). Their presence
   * turns on the provider's development login and consent pages, where any
   * login name signs in as that account. They get refresh tokens.
   */
  webClients?: Array<{ clientId: string; redirectUri: string; secret?: string }>;
  /** The host name in the issuer URL (it listens on 127.0.0.1 either way): `localhost` makes it another site than a toolcap at 127.0.0.1. @default '127.0.0.1' */
  host?: string;
  /** Extra claims of the access tokens of an account (a login name at the sign-in page). */
  accounts?: Record<string, Record<string, unknown>>;
}

export interface TestIssuer {
  /** `http://127.0.0.1:<port>` */
  issuer: string;
  audience: string;
  jwksUri: string;
  /** The private signing key (with its `kid`), to share or to imitate. */
  signingKey: JWK;
  /** A JWT access token for a client, from the token endpoint (for another resource when given). */
  token(clientId: string, options?: { resource?: string }): Promise<string>;
  close(): Promise<void>;
}

/** The secret of every test client. */
const SECRET = 'test-client-secret-of-sufficient-length';

export async function newSigningKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

/** Start a provider; close it in afterAll. */
export async function startIssuer(options: TestIssuerOptions = {}): Promise<TestIssuer> {
  const audience = options.audience ?? 'https://toolcap.test';
  const clients = options.clients ?? { 'ci-bot': { roles: ['caller'], personas: ['atlas'] } };
  const signingKey = options.signingKey ?? (await newSigningKey(`test-${Math.random().toString(16).slice(2, 10)}`));

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;

  const web = options.webClients ?? [];
  const configuration: Configuration = {
    clients: [
      ...Object.keys(clients).map((client_id) => ({
        client_id,
        client_secret: SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_post',
      }) as ClientMetadata),
      ...web.map((w) => ({
        client_id: w.clientId,
        ...(w.secret !== undefined ? { client_secret: w.secret, token_endpoint_auth_method: 'client_secret_basic' } : { token_endpoint_auth_method: 'none' }),
        application_type: 'native',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [w.redirectUri],
      }) as ClientMetadata),
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: ['test-cookie-key'] },
    ttl: { ClientCredentials: () => options.ttlSec ?? 300 },
    features: {
      devInteractions: { enabled: web.length > 0 },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        // any resource asked for is a resource server with JWT access tokens for that audience
        getResourceServerInfo: (_ctx, resource) => ({
          audience: resource,
          scope: 'tools',
          accessTokenTTL: options.ttlSec ?? 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    // a browser client gets a refresh token without asking for offline_access
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    extraTokenClaims: (_ctx, token) => {
      if ('accountId' in token && typeof token.accountId === 'string') return options.accounts?.[token.accountId];
      return 'clientId' in token && typeof token.clientId === 'string' ? clients[token.clientId] : undefined;
    },
  };
  const provider = new Provider(issuer, configuration);
  server.on('request', provider.callback());

  return {
    issuer,
    audience,
    jwksUri: `${issuer}/jwks`,
    signingKey,
    async token(clientId, tokenOptions = {}) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: SECRET, resource: tokenOptions.resource ?? audience });
      const res = await fetch(`${issuer}/token`, { method: 'POST', body });
      const json = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!res.ok || typeof json.access_token !== 'string') throw new Error(`token endpoint answered ${res.status}: ${json.error ?? ''} ${json.error_description ?? ''}`);
      return json.access_token;
    },
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // keep-alive connections of fetch would hold close() open
        server.closeAllConnections();
      });
    },
  };
}
