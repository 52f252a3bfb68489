/**
 * The console's cookies behind a reverse proxy that ends TLS (docs/config.md,
 * `server`: "terminate TLS there"): browsers speak HTTPS to the proxy, toolcap
 * sees plain http, so the request's own scheme cannot say whether a cookie
 * should be `Secure`. Without it, the session cookie went out with every
 * plain-http request to that host (a typed `toolcap.example.org`, a network
 * that rewrites a page), while the OIDC pending cookie of the same sign-in
 * was `Secure` (it follows the https redirect URI). The console knows it is
 * served over HTTPS when its browser sign-in comes back to an https redirect
 * URI or when every allowed origin is https (a form from any other origin
 * is refused anyway): then every cookie it sets is `Secure`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieValue } from '../../../src/server/console/session.js';
import { BASE } from '../helpers.js';
import { HOST, identityApi, ORIGIN, type IdentityApi } from '../identity-fixture.js';

const PUBLIC = `https://${HOST}`;

let httpsOrigins: IdentityApi;
let httpsCallback: IdentityApi;
let plain: IdentityApi;

beforeAll(async () => {
  httpsOrigins = await identityApi({}, { allowedOrigins: [PUBLIC], console: {} });
  httpsCallback = await identityApi({}, { allowedOrigins: [ORIGIN, PUBLIC], console: { oidcLogin: { issuer: 'http://127.0.0.1:9', clientId: 'toolcap-console', redirectUri: `${PUBLIC}/ui/login/callback` } } });
  plain = await identityApi({}, { allowedOrigins: [ORIGIN, PUBLIC], console: {} });
});
afterAll(async () => {
  await httpsOrigins.close();
  await httpsCallback.close();
  await plain.close();
});

/** The login form's cookie, and the session cookie of signing in with it (the proxy forwards plain http). */
async function signIn(api: IdentityApi, origin: string): Promise<{ login: string; session: string }> {
  const form = await api.app.fetch(new Request(`${BASE}/ui/login`, { headers: { host: HOST } }));
  const login = form.headers.getSetCookie().find((c) => c.startsWith('toolcap_login='))!;
  const token = cookieValue(login.split(';')[0], 'toolcap_login')!;
  const res = await api.app.fetch(
    new Request(`${BASE}/ui/login`, {
      method: 'POST',
      body: new URLSearchParams({ csrf: token, credential: 'tok-admin', next: '/' }),
      headers: { host: HOST, origin, cookie: `toolcap_login=${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    }),
  );
  expect(res.status).toBe(303);
  return { login, session: res.headers.getSetCookie().find((c) => c.startsWith('toolcap_session='))! };
}

describe('console cookies behind a proxy that ends TLS', () => {
  it.each([
    ['every allowed origin is https', () => httpsOrigins],
    ['the browser sign-in comes back to an https redirect URI', () => httpsCallback],
  ])('are Secure when %s', async (_why, api) => {
    const { login, session } = await signIn(api(), PUBLIC);
    expect(login).toMatch(/; Secure/);
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
  });

  it('stay without Secure for a console also served over plain http (a browser would drop them there)', async () => {
    const { login, session } = await signIn(plain, ORIGIN);
    expect(login).not.toMatch(/Secure/);
    expect(session).not.toMatch(/Secure/);
  });
});
