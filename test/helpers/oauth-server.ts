/**
 * A real OAuth 2.0 authorization server for the connect flow: `oidc-provider`
 * in this process on 127.0.0.1 and an ephemeral port, with native clients
 * (loopback redirect on any port, RFC 8252) for the authorization_code and
 * refresh_token grants: one per client authentication method. Its login
 * and consent are a minimal custom interaction that logs in `alice` and
 * grants what was asked, so a test "browser" (browse()) only follows
 * redirects, keeping cookies.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';
import { newSigningKey } from './oidc.js';

/** The secret of every confidential client. */
export const CLIENT_SECRET = 'oauth-test-client-secret-0123456789';

/** Client ids by token endpoint authentication method. */
export const CLIENTS = { post: 'tc-post', basic: 'tc-basic', none: 'tc-public' } as const;

export interface TestAuthServer {
  /** `http://127.0.0.1:<port>` */
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  /** Revoke a token (refresh or access) as the client that holds it. */
  revoke(token: string, clientId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startAuthServer(options: { accessTokenTtlSec?: number } = {}): Promise<TestAuthServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = (client_id: string, method: 'client_secret_post' | 'client_secret_basic' | 'none') => ({
    client_id,
    ...(method === 'none' ? {} : { client_secret: CLIENT_SECRET }),
    application_type: 'native' as const,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code' as const],
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: method,
  });
  const configuration: Configuration = {
    clients: [client(CLIENTS.post, 'client_secret_post'), client(CLIENTS.basic, 'client_secret_basic'), client(CLIENTS.none, 'none')],
    jwks: { keys: [await newSigningKey('oauth-test')] },
    cookies: { keys: ['oauth-test-cookie-key'] },
    ttl: { AccessToken: options.accessTokenTtlSec ?? 3600, AuthorizationCode: 60, Session: 3600, Grant: 3600, Interaction: 600, RefreshToken: 86_400, IdToken: 3600 },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, email: `${sub}@example.test` }) }),
    claims: { email: ['email'] },
    scopes: ['openid', 'email', 'offline_access'],
    issueRefreshToken: (_ctx, c) => c.grantTypeAllowed('refresh_token'),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false }, revocation: { enabled: true, allowedPolicy: () => true } },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      interact(provider, req, res).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
      return;
    }
    callback(req, res);
  });
  return {
    issuer,
    authorizationUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    userinfoUrl: `${issuer}/me`,
    async revoke(token, clientId) {
      const body = new URLSearchParams({ token, client_id: clientId, client_secret: CLIENT_SECRET });
      const res = await fetch(`${issuer}/token/revocation`, { method: 'POST', body });
      if (!res.ok) throw new Error(`revocation answered ${res.status}`);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Log `alice` in, then grant every scope and claim asked for. */
async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
  if (missing.missingOIDCScope) grant!.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant!.addOIDCClaims(missing.missingOIDCClaims);
  const grantId = await grant!.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * A browser that follows redirects (keeping cookies) from `url` until a
 * page answers; resolves to that page's URL and status.
 */
export async function browse(url: string, maxHops = 20): Promise<{ url: string; status: number; text: string }> {
  const cookies = new Map<string, string>();
  let current = url;
  for (let hop = 0; hop < maxHops; hop++) {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(current, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      if (eq > 0) cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      current = new URL(location, current).href;
      continue;
    }
    return { url: current, status: res.status, text: await res.text() };
  }
  throw new Error(`more than ${maxHops} redirects from ${url}`);
}
