/**
 * The console's browser sign-in in-process, for what needs no provider:
 * the link only when a client is configured, a provider that cannot be
 * reached (a 502 page, not a crash), the redirect URI's origin taken from
 * the configuration and never from the request's Host, and callbacks with
 * no pending sign-in. The whole flow against a real provider is in
 * test/cli/oidc-console-login.test.ts and, in Chromium, oidc-login.browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../helpers.js';
import { HOST, identityApi, type IdentityApi } from '../identity-fixture.js';
import { landing } from '../../../src/server/console/oidc-login.js';

/** A port nothing listens on (discard). */
const DOWN = 'http://127.0.0.1:9';

let withClient: IdentityApi;
let without: IdentityApi;

beforeAll(async () => {
  withClient = await identityApi({}, { console: { oidcLogin: { issuer: DOWN, clientId: 'toolcap-console', redirectUri: `${BASE}/ui/login/callback`, timeoutMs: 2000 } } });
  without = await identityApi({}, { console: {} });
});
afterAll(async () => {
  await withClient.close();
  await without.close();
});

const get = (api: IdentityApi, path: string, headers: Record<string, string> = {}) => api.app.fetch(new Request(`${BASE}${path}`, { headers: { host: HOST, ...headers } }));

describe('browser sign-in without a provider to talk to', () => {
  it('offers the link only with a client configured', async () => {
    expect(await (await get(withClient, '/ui/login?next=%2Fui%2Faudit')).text()).toContain(`href="/ui/login/oidc?next=%2Fui%2Faudit">Sign in with ${DOWN}</a>`);
    expect(await (await get(without, '/ui/login')).text()).not.toContain('/ui/login/oidc');
    expect((await get(without, '/ui/login/oidc')).status).toBe(404);
  });

  it('answers a provider it cannot reach with a 502 page and no pending cookie', async () => {
    const res = await get(withClient, '/ui/login/oidc');
    expect(res.status).toBe(502);
    expect(await res.text()).toMatch(/<h1>Sign-in failed<\/h1>.*cannot be reached/s);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it.each([
    ['no cookie', {}],
    ['a cookie naming no pending sign-in', { cookie: 'toolcap_oidc=made-up' }],
    ['an error from the provider but no pending sign-in', { cookie: 'toolcap_oidc=x' }, '?error=access_denied&state=s'],
  ])('refuses a callback with %s: 400, the pending cookie cleared', async (_name, headers, query = '?code=c&state=s') => {
    const res = await get(withClient, `/ui/login/callback${query}`, headers);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('was not started here');
    expect(res.headers.getSetCookie()).toEqual(['toolcap_oidc=; Path=/ui/login; HttpOnly; SameSite=Lax; Max-Age=0']);
  });
});

describe('the redirect URI comes from the configuration', () => {
  let proxied: IdentityApi;
  beforeAll(async () => {
    proxied = await identityApi({}, { console: { oidcLogin: { issuer: DOWN, clientId: 'c', redirectUri: 'https://console.example/ui/login/callback' } } });
  });
  afterAll(async () => proxied.close());

  it('sends a sign-in started at another origin to the redirect URI\'s origin first', async () => {
    const res = await get(proxied, '/ui/login/oidc?next=%2F%2Fevil.example');
    expect(res.status).toBe(303);
    // next is cleaned before it travels; the Host header names nothing here
    expect(res.headers.get('location')).toBe('https://console.example/ui/login/oidc?next=%2F');
  });
});

describe('the page a browser sign-in lands on', () => {
  it.each(["/ui/x$'y", '/ui/x$`y', '/ui/x$&y', '/ui/x$$y'])('refreshes to %s exactly, the page once (a replacement pattern in next is not expanded)', async (next) => {
    const text = await landing(next, 'alice').text();
    expect(text.match(/<h1>Signed in<\/h1>/g)).toHaveLength(1);
    expect(text.match(/http-equiv="refresh"/g)).toHaveLength(1);
    // the refresh goes where the page's own link goes (both escaped by the same template)
    const href = /<a href="([^"]*)">Continue<\/a>/.exec(text)?.[1];
    expect(href).toBeDefined();
    expect(text).toContain(`content="0;url=${href}"`);
  });
});
