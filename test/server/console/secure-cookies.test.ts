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
 *
 * Served over TLS, the session and login cookies are also named with the
 * `__Host-` prefix: browsers take such a cookie only from this host itself,
 * Secure, for `Path=/` and without `Domain`, so a sibling subdomain cannot
 * set or overwrite it (plant its own session, or the login form's
 * double-submit token), and the console then reads only the prefixed name.
 * Over plain http (localhost) the plain names stay.
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

/** The login form's cookie, and the session cookie of signing in with it (the proxy forwards plain http); `prefix` is what their names start with. */
async function signIn(api: IdentityApi, origin: string, prefix = ''): Promise<{ login: string; session: string; id: string }> {
  const form = await api.app.fetch(new Request(`${BASE}/ui/login`, { headers: { host: HOST } }));
  const login = form.headers.getSetCookie().find((c) => c.startsWith(`${prefix}toolcap_login=`))!;
  expect(login, 'the login cookie').toBeDefined();
  const token = cookieValue(login.split(';')[0], `${prefix}toolcap_login`)!;
  const res = await api.app.fetch(
    new Request(`${BASE}/ui/login`, {
      method: 'POST',
      body: new URLSearchParams({ csrf: token, credential: 'tok-admin', next: '/' }),
      headers: { host: HOST, origin, cookie: `${prefix}toolcap_login=${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    }),
  );
  expect(res.status).toBe(303);
  const session = res.headers.getSetCookie().find((c) => c.startsWith(`${prefix}toolcap_session=`))!;
  expect(session, 'the session cookie').toBeDefined();
  return { login, session, id: cookieValue(session.split(';')[0], `${prefix}toolcap_session`)! };
}

/** The status of the console's home page with this Cookie header. */
const home = async (api: IdentityApi, cookie: string) => (await api.app.fetch(new Request(`${BASE}/`, { headers: { host: HOST, cookie } }))).status;

describe('console cookies behind a proxy that ends TLS', () => {
  it.each([
    ['every allowed origin is https', () => httpsOrigins],
    ['the browser sign-in comes back to an https redirect URI', () => httpsCallback],
  ])('are Secure when %s', async (_why, api) => {
    const { login, session } = await signIn(api(), PUBLIC, '__Host-');
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

describe('console cookies over TLS are __Host- cookies', () => {
  it.each([
    ['every allowed origin is https', () => httpsOrigins],
    ['the browser sign-in comes back to an https redirect URI', () => httpsCallback],
  ])('named __Host-, Secure, Path=/ and no Domain, when %s', async (_why, api) => {
    const { login, session } = await signIn(api(), PUBLIC, '__Host-');
    for (const c of [login, session]) {
      expect(c).toMatch(/^__Host-toolcap_(login|session)=/);
      expect(c).toMatch(/; Path=\/(;|$)/);
      expect(c).toMatch(/; Secure/);
      expect(c).not.toMatch(/Domain=/i);
    }
  });

  it('only the __Host- name is read: the same id under the plain name (a sibling subdomain can set that one) is no session', async () => {
    const { id } = await signIn(httpsOrigins, PUBLIC, '__Host-');
    expect(await home(httpsOrigins, `__Host-toolcap_session=${id}`)).toBe(200);
    expect(await home(httpsOrigins, `toolcap_session=${id}`)).not.toBe(200);
  });

  it('a login token under the plain name does not pass the double-submit check', async () => {
    const form = await httpsOrigins.app.fetch(new Request(`${BASE}/ui/login`, { headers: { host: HOST } }));
    const token = cookieValue(form.headers.getSetCookie().find((c) => c.startsWith('__Host-toolcap_login='))!.split(';')[0], '__Host-toolcap_login')!;
    // the planted token: the attacker's own, set for the parent domain under the plain name
    const res = await httpsOrigins.app.fetch(
      new Request(`${BASE}/ui/login`, {
        method: 'POST',
        body: new URLSearchParams({ csrf: 'planted', credential: 'tok-admin', next: '/' }),
        headers: { host: HOST, origin: PUBLIC, cookie: `toolcap_login=planted; __Host-toolcap_login=${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(res.status).toBe(403);
  });

  it('over plain http the plain names stay, and are read', async () => {
    const { login, session, id } = await signIn(plain, ORIGIN);
    expect(login).toMatch(/^toolcap_login=/);
    expect(session).toMatch(/^toolcap_session=/);
    expect(await home(plain, `toolcap_session=${id}`)).toBe(200);
  });
});
