/**
 * The whole OAuth flow against a real authorization server (oidc-provider,
 * in process): connect through the loopback redirect listener, call a tool
 * that reads the userinfo endpoint with the token its provider is handed,
 * refresh an expired token, refuse with the reconnect command once the
 * refresh token is revoked, and keep the token out of errors, audit and
 * traces. The store is the project's SQLite file.
 */
import { openSqlite } from '../../../src/store/sqlite-driver.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createToolcap, type Toolcap } from '../../../src/host.js';
import { connectOAuth, OAuthConnectError } from '../../../src/runtime/oauth/connect.js';
import type { TokenSet } from '../../../src/runtime/oauth/token-client.js';
import { CallError } from '../../../src/runtime/errors.js';
import { createApi } from '../../../src/server/app.js';
import { browse, CLIENT_SECRET, CLIENTS, startAuthServer, type TestAuthServer } from '../../helpers/oauth-server.js';
import { newKey, oauthProject, type OAuthProject, type ServiceFields } from './fixture.js';

let as: TestAuthServer;
const open: Array<{ toolcap: Toolcap; project: OAuthProject }> = [];

beforeAll(async () => {
  as = await startAuthServer();
});
afterEach(async () => {
  for (const { toolcap, project } of open.splice(0)) {
    await toolcap.close();
    delete process.env[project.keyEnv];
    project.cleanup();
  }
});
afterAll(async () => {
  await as.close();
});

async function setup(fields: Partial<ServiceFields>, options: { key?: boolean } = {}): Promise<{ toolcap: Toolcap; project: OAuthProject }> {
  const project = oauthProject(
    [
    {
      authorizationUrl: as.authorizationUrl,
      tokenUrl: as.tokenUrl,
      clientId: CLIENTS.post,
      clientSecret: CLIENT_SECRET,
      redirectUrl: 'http://127.0.0.1/callback',
      scopes: ['openid', 'email'],
      pkceType: 'S256',
      refreshToken: 'true',
      requestTokenContentType: 'application/x-www-form-urlencoded',
      ...fields,
    },
    ],
    { userinfoBase: as.issuer },
  );
  if (options.key !== false) process.env[project.keyEnv] = newKey();
  const toolcap = await createToolcap(project.config, { mcp: false, warn: () => undefined });
  open.push({ toolcap, project });
  return { toolcap, project };
}

/** Connect the tool, the test's browser following the printed URL through login and consent. */
async function connect(toolcap: Toolcap, name = 'me.profile'): Promise<{ landed: { status: number; text: string; url: string }; redirectUri: string }> {
  const tool = toolcap.registry.snapshot().tools.find((t) => t.name === name)!;
  let page: Promise<{ status: number; text: string; url: string }> | undefined;
  const result = await connectOAuth({ vault: toolcap.oauth, tool, timeoutMs: 20_000, onAuthorizationUrl: (url) => void (page = browse(url)) });
  return { landed: await page!, redirectUri: result.redirectUri };
}

/** The tokens as stored (opened with the project's key). */
async function storedTokens(toolcap: Toolcap): Promise<TokenSet & { revision: number }> {
  const row = (await toolcap.oauth.list('me.profile'))[0]!;
  return { ...(JSON.parse(toolcap.oauth.box().open(row.sealed, 'me.profile\u0000idp')) as TokenSet), revision: row.revision };
}

async function callError(toolcap: Toolcap, args: Record<string, unknown>): Promise<CallError> {
  const error = await toolcap.runtime.call('me.profile', args).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CallError);
  return error as CallError;
}

describe('oauth connect against oidc-provider', () => {
  it.each([
    ['client_secret_post (secret in the form body), PKCE S256', { clientId: CLIENTS.post }],
    ['client_secret_basic (requestTokenAuthHeader: basic), PKCE S256', { clientId: CLIENTS.basic, requestTokenAuthHeader: 'basic' }],
    ['a public client (no secret), PKCE S256', { clientId: CLIENTS.none, clientSecret: '' }],
  ])('connects with %s; the tool then reads userinfo with the token', async (_label, fields) => {
    const { toolcap, project } = await setup(fields);
    const { landed, redirectUri } = await connect(toolcap);
    expect(landed.status).toBe(200);
    expect(landed.text).toMatch(/toolcap is connected/);
    expect(redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    const r = await toolcap.runtime.call('me.profile', { userinfo: as.userinfoUrl });
    expect(r).toMatchObject({ status: 'ok', result: { sub: 'alice', email: 'alice@example.test', tokenType: 'bearer' } });

    // at rest: the row holds neither token
    const tokens = await storedTokens(toolcap);
    expect(tokens.refreshToken).toBeDefined();
    const db = openSqlite(project.db, { readonly: true });
    const raw = JSON.stringify(db.prepare('SELECT * FROM oauth_tokens').all());
    db.close();
    expect(raw).toContain('me.profile');
    expect(raw).not.toContain(tokens.accessToken);
    expect(raw).not.toContain(tokens.refreshToken!);
  });

  it('an http provider tool with one OAuth service sends the token as a bearer', async () => {
    const { toolcap } = await setup({});
    await connect(toolcap, 'me.userinfo');
    const r = await toolcap.runtime.call('me.userinfo', {});
    expect(r).toMatchObject({ status: 'ok', provider: 'idp-http', result: { sub: 'alice', email: 'alice@example.test' } });
    // the connection is per tool: me.profile is still not connected
    expect((await callError(toolcap, { userinfo: as.userinfoUrl })).code).toBe('OAUTH_NOT_CONNECTED');
  });

  it('fails the exchange when the server refuses the client (a wrong secret), storing nothing', async () => {
    const { toolcap } = await setup({ clientId: CLIENTS.post, clientSecret: 'not-the-secret' });
    await expect(connect(toolcap)).rejects.toThrow(/exchanging the authorization code failed: the token endpoint answered 401 invalid_client/);
    await expect(connect(toolcap)).rejects.toThrow(OAuthConnectError);
    expect(await toolcap.oauth.list()).toEqual([]);
  });

  it('refuses a call before it runs while the service is not connected, naming the command', async () => {
    const { toolcap } = await setup({});
    const e = await callError(toolcap, { userinfo: as.userinfoUrl });
    expect(e.code).toBe('OAUTH_NOT_CONNECTED');
    expect(e.status).toBe(412);
    expect(e.message).toContain('toolcap oauth connect me.profile --service idp');
    expect(e.extra.command).toBe('toolcap oauth connect me.profile --service idp');
    // nothing ran, so nothing was recorded as a call
    expect(await toolcap.store.listCalls()).toEqual([]);
    // over HTTP: 412 with the command in the problem body
    const app = createApi(toolcap.registry, { runtime: toolcap.runtime });
    const res = await app.request('/tools/me.profile/call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ arguments: { userinfo: as.userinfoUrl } }) });
    expect(res.status).toBe(412);
    expect(await res.json()).toMatchObject({ code: 'OAUTH_NOT_CONNECTED', command: 'toolcap oauth connect me.profile --service idp' });
  });

  it('refreshes an expired token before the call (the new tokens stored), and after revocation refuses with the reconnect command', async () => {
    const { toolcap } = await setup({});
    await connect(toolcap);
    const before = await storedTokens(toolcap);
    // time passes: the stored access token is past its expiry
    await toolcap.oauth.save('me.profile', 'idp', { ...before, expiresAt: new Date(Date.now() - 1000).toISOString() });
    const r = await toolcap.runtime.call('me.profile', { userinfo: as.userinfoUrl });
    expect(r).toMatchObject({ status: 'ok', result: { sub: 'alice' } });
    const after = await storedTokens(toolcap);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(Date.parse(after.expiresAt!)).toBeGreaterThan(Date.now());
    expect(after.revision).toBe(before.revision + 2);

    // the user revokes the grant at the provider; the next refresh is refused
    await as.revoke(after.refreshToken!, CLIENTS.post);
    await toolcap.oauth.save('me.profile', 'idp', { ...after, expiresAt: new Date(Date.now() - 1000).toISOString() });
    const e = await callError(toolcap, { userinfo: as.userinfoUrl });
    expect(e.code).toBe('OAUTH_REFRESH_FAILED');
    expect(e.message).toMatch(/revoked/);
    expect(e.extra.command).toBe('toolcap oauth connect me.profile --service idp');
    expect(e.message).not.toContain(after.refreshToken!);
  });

  it('keeps the access token out of the error, the audit log and the traces', async () => {
    const { toolcap, project } = await setup({});
    await connect(toolcap);
    const { accessToken } = await storedTokens(toolcap);
    const e = await callError(toolcap, { userinfo: as.userinfoUrl, leak: true });
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.message).toContain('upstream refused [REDACTED]');
    expect(e.message).not.toContain(accessToken);
    await toolcap.runtime.flush();
    const audit = JSON.stringify(await toolcap.store.listAudit({ limit: 1000 }));
    expect(audit).toContain('upstream refused');
    expect(audit).not.toContain(accessToken);
    await toolcap.close();
    const traces = join(project.dir, '.toolcap', 'traces.jsonl');
    expect(existsSync(traces)).toBe(true);
    const text = readFileSync(traces, 'utf8');
    expect(text).toContain('me.profile');
    expect(text).not.toContain(accessToken);
  });

  it('refuses to connect without a key, before anyone is sent to log in', async () => {
    const { toolcap, project } = await setup({}, { key: false });
    const tool = toolcap.registry.snapshot().tools.find((t) => t.name === 'me.profile')!;
    let printed = false;
    await expect(connectOAuth({ vault: toolcap.oauth, tool, onAuthorizationUrl: () => void (printed = true) })).rejects.toThrow(new RegExp(`${project.keyEnv} is not set`));
    expect(printed).toBe(false);
  });
});
