/**
 * A console session lives only as long as its credential: one opened with
 * an API key through the sign-in form ends on the first request after the
 * key is revoked or expires (pages, forms and the approvals event stream),
 * and one opened by a browser sign-in ends when its access token expired
 * and the refresh fails. With the real Authenticator: API keys in the
 * SQLite store, tokens of a real OpenID provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, type KeyGrant } from '../../../src/runtime/identity/api-keys.js';
import { Authenticator } from '../../../src/runtime/identity/authenticate.js';
import type { ApiAuth } from '../../../src/server/auth.js';
import { cookieValue, SESSION_COOKIE, Sessions } from '../../../src/server/console/session.js';
import type { KeyStore } from '../../../src/store/types.js';
import { startIssuer, type TestIssuer } from '../../helpers/oidc.js';
import { cleanFolders } from '../helpers.js';
import { identityApi, type IdentityApi } from '../identity-fixture.js';
import { consoleRequests } from './requests.js';

const CHEAP = { N: 1024, r: 8, p: 1, keyLength: 32 };
const ADMIN: KeyGrant = { principal: 'root', roles: ['admin'], personas: ['*'] };

let api: IdentityApi;
let store: IdentityApi['store'] & KeyStore;
beforeAll(async () => {
  let authenticator: Authenticator | undefined;
  api = await identityApi({}, { auth: { authenticate: (request) => authenticator!.authenticate(request.headers.get('authorization')) }, console: { pollMs: 50 } });
  store = api.store as typeof store;
  authenticator = new Authenticator({ keys: store });
});
afterAll(async () => {
  await api.close();
  cleanFolders();
});

const { get, post } = consoleRequests(() => api);

async function signIn(credential: string): Promise<{ cookie: string; csrf: string }> {
  const form = await get('/ui/login');
  const loginCookie = cookieValue(form.headers.get('set-cookie') ?? '', 'toolcap_login')!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await post('/ui/login', { csrf, credential, next: '/' }, { cookie: `toolcap_login=${loginCookie}` });
  expect(res.status).toBe(303);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('toolcap_session='))!.split(';')[0]!;
  const page = await get('/', { cookie });
  expect(page.status).toBe(200);
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(await page.text())![1]! };
}

describe('a console session opened with an API key', () => {
  it('ends on the first request after the key is revoked: pages, forms and the event stream', async () => {
    const { token, record } = await issueApiKey(store, ADMIN, { params: CHEAP });
    const { cookie, csrf } = await signIn(token);
    const events = await get('/ui/approvals/events', { cookie });
    const reader = events.body!.getReader();
    let text = '';
    while (!text.includes(': waiting')) text += new TextDecoder().decode((await reader.read()).value);

    await store.revokeKey(record.id, new Date().toISOString());
    // the stream ends at its next look (every 50 ms here)
    for (;;) if ((await reader.read()).done) break;
    const page = await get('/ui/audit', { cookie });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe(`/ui/login?next=${encodeURIComponent('/ui/audit')}`);
    expect((await post('/ui/logout', { csrf }, { cookie })).status).toBe(403);
    // and stays ended: the session is gone, not only refused once
    expect((await get('/', { cookie })).status).toBe(303);
  });

  it('ends once the key expires', async () => {
    const { token } = await issueApiKey(store, { ...ADMIN, expiresAt: new Date(Date.now() + 1500).toISOString() }, { params: CHEAP });
    const { cookie } = await signIn(token);
    await new Promise((r) => setTimeout(r, 1600));
    expect((await get('/', { cookie })).status).toBe(303);
  });
});

describe('a browser sign-in whose access token expires', () => {
  const TTL_SEC = 2;
  let issuer: TestIssuer;
  let auth: ApiAuth;
  beforeAll(async () => {
    issuer = await startIssuer({ ttlSec: TTL_SEC, clients: { alice: { roles: ['caller'], personas: ['ops'] } } });
    const authenticator = new Authenticator({ config: { oidc: { issuer: issuer.issuer, audience: issuer.audience, clockToleranceSec: 0 } } });
    auth = { authenticate: (request) => authenticator.authenticate(request.headers.get('authorization')) };
  });
  afterAll(async () => issuer.close());

  const req = (cookie?: string) => new Request('http://127.0.0.1/ui/', { headers: cookie ? { cookie } : {} });

  it.each([
    ['the provider refuses the refresh', () => Promise.reject(new Error('invalid_grant'))],
    ['there is no new token', () => Promise.resolve(undefined)],
  ])('ends when %s, and stays ended', async (_what, renew) => {
    const sessions = new Sessions(auth);
    let renewals = 0;
    const opened = await sessions.login(req(), await issuer.token('alice'), () => {
      renewals++;
      return renew();
    });
    if (!opened.ok) throw new Error('login failed');
    const cookie = `${SESSION_COOKIE}=${cookieValue(opened.setCookie.split(';')[0], SESSION_COOKIE)!}`;
    expect((await sessions.user(req(cookie))).ok).toBe(true);
    await new Promise((r) => setTimeout(r, TTL_SEC * 1000 + 1100));
    expect(await sessions.user(req(cookie))).toMatchObject({ ok: false, code: 'EXPIRED' });
    expect(renewals).toBe(1);
    // the session is gone: no second renewal is even tried
    expect(await sessions.user(req(cookie))).toMatchObject({ ok: false, code: 'UNAUTHENTICATED' });
    expect(renewals).toBe(1);
  }, 10_000);
});
