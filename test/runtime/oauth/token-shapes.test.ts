/**
 * What the token requests look like, per manifest (Shinkai's
 * requestTokenContentType / requestTokenAuthHeader / pkceType), observed on
 * a stand-in authorization server; and refreshes: once for concurrent
 * calls, compare-and-set across processes, refused when revoked. The
 * redirect listener ignores a callback whose state is not its own and
 * gives up after its timeout.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { connectOAuth, OAuthConnectError } from '../../../src/runtime/oauth/connect.js';
import { OAuthVault } from '../../../src/runtime/oauth/vault.js';
import { CallError } from '../../../src/runtime/errors.js';
import type { TokenSet } from '../../../src/runtime/oauth/token-client.js';
import type { OAuthTokenStore } from '../../../src/store/oauth-tokens.js';
import { openSqliteStore } from '../../../src/store/sqlite.js';
import type { Store } from '../../../src/store/types.js';
import { browse } from '../../helpers/oauth-server.js';
import { startStandIn, type StandIn } from '../../helpers/oauth-standin.js';
import { newKey, type ServiceFields } from './fixture.js';

const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const SECRET = 'standin-secret-0123456789';

async function world(fields: Partial<ServiceFields>, options: { clientSecret?: string | undefined } = {}) {
  const standIn = await startStandIn({ clientId: 'tc-client', ...('clientSecret' in options ? (options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}) : { clientSecret: SECRET }) });
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-oauth-shapes-'));
  dirs.push(dir);
  const store = await openSqliteStore(join(dir, 'toolcap.db'));
  closers.push(async () => {
    await store.close();
    await standIn.close();
  });
  const key = newKey();
  const tool = {
    name: 'svc.tool',
    auth: { oauth: [{ name: 'svc', authorizationUrl: standIn.authorizationUrl, tokenUrl: standIn.tokenUrl, clientId: 'tc-client', clientSecret: SECRET, redirectUrl: 'http://127.0.0.1/cb', refreshToken: 'true', ...fields }] },
  } as unknown as Tool;
  const vault = (s: Store & OAuthTokenStore = store) => new OAuthVault({ store: s, secretKey: key, env: {} });
  return { standIn, store, tool, vault, dir };
}

async function connectVia(standIn: StandIn, vault: OAuthVault, tool: Tool) {
  let page: Promise<unknown> | undefined;
  const result = await connectOAuth({ vault, tool, env: {}, timeoutMs: 10_000, onAuthorizationUrl: (url) => void (page = browse(url)) });
  await page;
  return result;
}

describe('token request shapes (stand-in server)', () => {
  it.each([
    ['no requestTokenContentType: a JSON body (Shinkai\'s default), credentials in it', {}, 'application/json', 'body'],
    ['application/json, credentials in the body', { requestTokenContentType: 'application/json' }, 'application/json', 'body'],
    ['form body, credentials in the body', { requestTokenContentType: 'application/x-www-form-urlencoded' }, 'application/x-www-form-urlencoded', 'body'],
    ['form body, requestTokenAuthHeader basic', { requestTokenContentType: 'application/x-www-form-urlencoded', requestTokenAuthHeader: 'basic' }, 'application/x-www-form-urlencoded', 'basic'],
    ['JSON body, requestTokenAuthHeader basic', { requestTokenAuthHeader: 'basic' }, 'application/json', 'basic'],
  ] as const)('%s', async (_label, fields, contentType, auth) => {
    const { standIn, tool, vault } = await world(fields);
    await connectVia(standIn, vault(), tool);
    const seen = standIn.requests[0]!;
    expect(seen.contentType).toContain(contentType);
    expect(seen.body).toMatchObject({ grant_type: 'authorization_code', redirect_uri: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/cb$/) });
    if (auth === 'basic') {
      expect(seen.authorization).toBe(`Basic ${Buffer.from(`tc-client:${SECRET}`).toString('base64')}`);
      expect(seen.body.client_secret).toBeUndefined();
    } else {
      expect(seen.authorization).toBeUndefined();
      expect(seen.body).toMatchObject({ client_id: 'tc-client', client_secret: SECRET });
    }
  });

  it.each([
    ['S256', 'S256'],
    ['plain', 'plain'],
    ['absent (no PKCE)', undefined],
  ] as const)('PKCE %s: the challenge sent matches the verifier exchanged', async (_label, pkceType) => {
    const { standIn, tool, vault } = await world(pkceType === undefined ? {} : { pkceType });
    await connectVia(standIn, vault(), tool);
    const { challenge, method } = standIn.challenges[0]!;
    const verifier = standIn.requests[0]!.body.code_verifier;
    if (pkceType === undefined) {
      expect(challenge).toBeNull();
      expect(verifier).toBeUndefined();
    } else {
      expect(method).toBe(pkceType);
      expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
      expect(challenge).toBe(pkceType === 'plain' ? verifier : createHash('sha256').update(verifier!).digest('base64url'));
    }
  });

  it('a public client (no secret) sends only its client_id', async () => {
    const { standIn, tool, vault } = await world({ clientSecret: '', pkceType: 'S256' }, { clientSecret: undefined });
    await connectVia(standIn, vault(), tool);
    expect(standIn.requests[0]!.body.client_id).toBe('tc-client');
    expect(standIn.requests[0]!.body.client_secret).toBeUndefined();
    expect(standIn.requests[0]!.authorization).toBeUndefined();
  });
});

describe('refresh (stand-in server)', () => {
  /** Connect, then make the stored access token expired. */
  async function expiredWorld() {
    const w = await world({ requestTokenContentType: 'application/x-www-form-urlencoded' });
    const v = w.vault();
    await connectVia(w.standIn, v, w.tool);
    const row = (await w.store.getOAuthToken('svc.tool', 'svc'))!;
    const tokens = JSON.parse(v.box().open(row.sealed, 'svc.tool\u0000svc')) as TokenSet;
    await v.save('svc.tool', 'svc', { ...tokens, expiresAt: new Date(Date.now() - 1000).toISOString() });
    return { ...w, first: tokens };
  }

  it('refreshes once for many concurrent calls, and they all get the new token', async () => {
    const { standIn, tool, vault } = await expiredWorld();
    const v = vault();
    const held = standIn.holdRefreshes(1);
    const calls = Array.from({ length: 5 }, () => v.accessFor(tool));
    await held.arrived; // the refresh is at the endpoint while all five calls wait
    held.release();
    const got = await Promise.all(calls);
    expect(standIn.requests.filter((r) => r.body.grant_type === 'refresh_token')).toHaveLength(1);
    const tokens = new Set(got.map((g) => g!.svc!.accessToken));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).toMatch(/^at-standin-2-/);
  });

  it('two processes refreshing at once: the loser of the compare-and-set uses the winner\'s tokens', async () => {
    const { standIn, tool, vault } = await expiredWorld();
    const held = standIn.holdRefreshes(2);
    const a = vault().accessFor(tool);
    const b = vault().accessFor(tool);
    await held.arrived; // both refreshes are at the endpoint: neither has stored its tokens yet
    held.release();
    const [ta, tb] = await Promise.all([a, b]);
    expect(standIn.requests.filter((r) => r.body.grant_type === 'refresh_token')).toHaveLength(2);
    expect(ta!.svc!.accessToken).toBe(tb!.svc!.accessToken);
  });

  it('a refused refresh (revoked) is OAUTH_REFRESH_FAILED with the reconnect command; an expired token without a refresh token is OAUTH_NOT_CONNECTED', async () => {
    const { standIn, tool, vault, first } = await expiredWorld();
    standIn.revokeRefresh();
    const e = await vault().accessFor(tool).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CallError);
    expect(e).toMatchObject({ code: 'OAUTH_REFRESH_FAILED', extra: { command: 'toolcap oauth connect svc.tool --service svc' } });
    expect((e as Error).message).toContain('revoked');

    const v = vault();
    await v.save('svc.tool', 'svc', { accessToken: String(first.accessToken), tokenType: 'bearer', issuer: standIn.origin, expiresAt: new Date(Date.now() - 1000).toISOString() });
    await expect(v.accessFor(tool)).rejects.toMatchObject({ code: 'OAUTH_NOT_CONNECTED', message: expect.stringMatching(/expired and there is no refresh token/) });
  });
});

describe('the store down', () => {
  it('fails the call closed with STORE_UNAVAILABLE', async () => {
    const { store, tool, vault } = await world({});
    const v = vault();
    await store.close();
    await expect(v.check(tool)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(v.accessFor(tool)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});

describe('the redirect listener', () => {
  it('answers a callback with another state 400 and keeps waiting for the real one', async () => {
    const { standIn, tool, vault } = await world({});
    let page: Promise<{ status: number }> | undefined;
    let forged: Promise<number> | undefined;
    await connectOAuth({
      vault: vault(),
      tool,
      env: {},
      timeoutMs: 10_000,
      onAuthorizationUrl: (url, redirectUri) => {
        forged = fetch(`${redirectUri}?code=attacker&state=not-yours`).then((r) => r.status);
        page = forged.then(() => browse(url));
      },
    });
    expect(await forged).toBe(400);
    expect((await page)!.status).toBe(200);
    expect(standIn.requests).toHaveLength(1);
  });

  it('gives up after its timeout with a clear message, storing nothing', async () => {
    const { store, tool, vault } = await world({});
    await expect(connectOAuth({ vault: vault(), tool, env: {}, timeoutMs: 100, onAuthorizationUrl: () => undefined })).rejects.toThrow(OAuthConnectError);
    await expect(connectOAuth({ vault: vault(), tool, env: {}, timeoutMs: 100, onAuthorizationUrl: () => undefined })).rejects.toThrow(/no authorization arrived at http:\/\/127\.0\.0\.1:\d+\/cb within 0 s/);
    expect(await store.listOAuthTokens()).toEqual([]);
  });

  it('passes on the authorization server\'s refusal (error=access_denied)', async () => {
    const { tool, vault } = await world({});
    await expect(
      connectOAuth({
        vault: vault(),
        tool,
        env: {},
        timeoutMs: 10_000,
        onAuthorizationUrl: (url, redirectUri) => void fetch(`${redirectUri}?error=access_denied&state=${new URL(url).searchParams.get('state')}`),
      }),
    ).rejects.toThrow(/did not authorize: access_denied/);
  });
});
