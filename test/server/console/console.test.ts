/**
 * The console in-process, behind the API's authentication: signing in
 * (the login form's double-submit token, a bad credential, `next` kept on
 * this origin), the session cookie's attributes, each page's action checked
 * with the principal's roles, CSRF on every post, persona scoping, the
 * Host guard, escaping and the console's security headers.
 */
import { MAX_STREAMS_PER_PRINCIPAL } from '../../../src/server/console/approvals-page.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h } from '../../../src/server/console/html.js';
import { safeNext } from '../../../src/server/console/login.js';
import { cookieValue } from '../../../src/server/console/session.js';
import { BASE } from '../helpers.js';
import { HOST, identityApi, PRINCIPALS, type IdentityApi } from '../identity-fixture.js';
import { consoleRequests } from './requests.js';

const INTERN = PRINCIPALS.intern;

let api: IdentityApi;

beforeAll(async () => {
  api = await identityApi({}, { console: { pollMs: 50 } });
});
afterAll(async () => api.close());

const { get, post } = consoleRequests(() => api);

/** Sign in through the form; the session cookie and the page's CSRF token. */
async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
  const form = await get('/ui/login');
  const loginCookie = cookieValue(form.headers.get('set-cookie') ?? '', 'toolcap_login')!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await post('/ui/login', { csrf, credential: token, next: '/ui/approvals' }, { cookie: `toolcap_login=${loginCookie}` });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/ui/approvals');
  const session = res.headers.getSetCookie().find((c) => c.startsWith('toolcap_session='))!;
  expect(session).toMatch(/HttpOnly/);
  expect(session).toMatch(/SameSite=Strict/);
  const cookie = session.split(';')[0]!;
  const page = await (await get('/', { cookie })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)![1]! };
}

describe('signing in', () => {
  it('sends a visitor without credentials to the login form, keeping where it was going', async () => {
    const res = await get('/ui/audit?tool=x');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/ui/login?next=${encodeURIComponent('/ui/audit?tool=x')}`);
  });

  it('signs in with a credential the API takes, into an HttpOnly SameSite=Strict session', async () => {
    const { cookie } = await signIn('tok-admin');
    const page = await get('/', { cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/Signed in as <strong>root<\/strong>/);
  });

  it.each([
    ['a bad credential', { credential: 'tok-nobody' }, 401, /Not signed in/],
    ['a form token that does not match its cookie', { credential: 'tok-admin', csrf: 'forged' }, 403, /out of date/],
    ['an issuer that cannot be reached', { credential: 'tok-down' }, 503, /cannot be checked/],
  ])('refuses %s', async (_what, fields, status, message) => {
    const form = await get('/ui/login');
    const token = cookieValue(form.headers.get('set-cookie') ?? '', 'toolcap_login')!;
    const res = await post('/ui/login', { csrf: token, ...fields }, { cookie: `toolcap_login=${token}` });
    expect(res.status).toBe(status);
    expect(await res.text()).toMatch(message);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('toolcap_session='))).toBe(false);
  });

  it.each([
    ['/ui/audit?x=1', '/ui/audit?x=1'],
    ['//evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example/', '/'],
    [undefined, '/'],
  ])('keeps next %s on this origin', (next, want) => expect(safeNext(next)).toBe(want));

  it.each([
    ['a character beyond Latin-1', '/ui/tools/caf\u00e9\u20ac', '/ui/tools/caf%C3%A9%E2%82%AC'],
    ['a NUL', '/ui/audit\u0000x', '/ui/audit%00x'],
  ])('signs in with a next holding %s, percent-encoded in Location (it was a 500 once the session was made)', async (_what, next, location) => {
    const form = await get('/ui/login');
    const token = cookieValue(form.headers.get('set-cookie') ?? '', 'toolcap_login')!;
    const res = await post('/ui/login', { csrf: token, credential: 'tok-admin', next }, { cookie: `toolcap_login=${token}` });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(location);
  });

  it('percent-encodes no lone surrogate into a path: it goes to /', () => expect(safeNext('/a\ud800b')).toBe('/'));

  it('signs out with the session token only', async () => {
    const { cookie, csrf } = await signIn('tok-admin');
    expect((await post('/ui/logout', { csrf: 'wrong' }, { cookie })).status).toBe(403);
    const out = await post('/ui/logout', { csrf }, { cookie });
    expect(out.status).toBe(303);
    expect((await get('/', { cookie })).status).toBe(303);
  });
});

describe('roles and personas', () => {
  it.each([
    ['intern', '/', 200],
    ['intern', '/ui/approvals', 200],
    ['intern', '/ui/audit', 403],
    ['intern', '/ui/health', 403],
    ['approver', '/ui/approvals', 200],
    ['approver', '/ui/audit', 403],
    ['admin', '/ui/audit', 200],
    ['admin', '/ui/health', 200],
  ] as const)('%s on %s: %i', async (who, path, status) => {
    // a bearer header works as well as a session (and opens one)
    const res = await get(path, { authorization: `Bearer tok-${who}` });
    expect(res.status).toBe(status);
  });

  it('shows a principal only the tools of its personas', async () => {
    const intern = await (await get('/', { authorization: 'Bearer tok-intern' })).text();
    const ops = await (await get('/', { authorization: 'Bearer tok-ops' })).text();
    expect(intern).not.toContain('ops.reverse');
    expect(ops).toContain('ops.reverse');
    expect((await get('/ui/tools/ops.reverse', { authorization: 'Bearer tok-intern' })).status).toBe(404);
  });
});

describe('deciding', () => {
  it('needs the session CSRF token, and the runtime keeps four eyes', async () => {
    const asked = await api.runtime.call('text.reverse', { text: 'abc' }, { principal: INTERN, persona: 'intern' });
    expect(asked.status).toBe('pending_approval');
    const id = (asked as { approval: { id: string } }).approval.id;
    const { cookie, csrf } = await signIn('tok-approver');
    const queue = await (await get('/ui/approvals', { cookie })).text();
    expect(queue).toContain(id);
    expect(queue).toContain('&quot;text&quot;: &quot;abc&quot;');

    const forged = await post(`/ui/approvals/${id}/deny`, { csrf: 'nope', note: 'x' }, { cookie });
    expect(forged.status).toBe(403);
    expect((await api.runtime.getApproval(id)).status).toBe('pending');

    const denied = await post(`/ui/approvals/${id}/deny`, { csrf, note: 'not today' }, { cookie });
    expect(denied.status).toBe(303);
    expect(decodeURIComponent(denied.headers.get('location')!)).toMatch(/done=Denied\+text\.reverse|done=Denied text\.reverse/);
    expect(await api.runtime.getApproval(id)).toMatchObject({ status: 'denied', decidedByPrincipal: 'reviewer', note: 'not today' });

    // a caller may read its own queue but not decide
    const intern = await signIn('tok-intern');
    expect((await post(`/ui/approvals/${id}/approve`, { csrf: intern.csrf }, { cookie: intern.cookie })).status).toBe(403);
  });

  it('streams an event when the queue changes', async () => {
    const controller = new AbortController();
    const res = await api.app.fetch(new Request(`${BASE}/ui/approvals/events`, { headers: { host: HOST, authorization: 'Bearer tok-admin' }, signal: controller.signal }));
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const read = async (until: RegExp) => {
      while (!until.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    };
    await read(/: waiting/);
    await api.runtime.call('text.reverse', { text: 'live' }, { principal: INTERN, persona: 'intern' });
    await read(/event: approvals/);
    controller.abort();
    await reader.cancel();
  });
});

describe('the event stream', () => {
  it('one principal holds at most MAX_STREAMS_PER_PRINCIPAL streams; closing one frees its place', async () => {
    const { cookie } = await signIn('tok-admin');
    const open = [];
    for (let i = 0; i < MAX_STREAMS_PER_PRINCIPAL; i++) {
      const controller = new AbortController();
      const res = await api.app.fetch(new Request(`${BASE}/ui/approvals/events`, { headers: { host: HOST, cookie }, signal: controller.signal }));
      expect(res.status).toBe(200);
      open.push({ controller, reader: res.body!.getReader() });
    }
    const refused = await get('/ui/approvals/events', { cookie });
    expect(refused.status).toBe(429);
    const first = open.shift()!;
    first.controller.abort();
    await first.reader.cancel();
    const again = await api.app.fetch(new Request(`${BASE}/ui/approvals/events`, { headers: { host: HOST, cookie } }));
    expect(again.status).toBe(200);
    await again.body!.cancel();
    for (const s of open) {
      s.controller.abort();
      await s.reader.cancel();
    }
  });

  it('ends when its session does', async () => {
    const { cookie, csrf } = await signIn('tok-admin');
    const res = await get('/ui/approvals/events', { cookie });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': waiting')) text += new TextDecoder().decode((await reader.read()).value);
    expect((await post('/ui/logout', { csrf }, { cookie })).status).toBe(303);
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
  });
});

describe('what every answer carries', () => {
  it('is behind the Host guard like every route', async () => {
    expect((await get('/', { host: 'evil.example', authorization: 'Bearer tok-admin' })).status).toBe(421);
    expect((await post('/ui/login', { credential: 'tok-admin' }, { origin: 'http://evil.example' })).status).toBe(403);
  });

  it('escapes what it shows and forbids scripts from anywhere else', async () => {
    expect(h`<p title="${'"><x'}">${'<script>alert(1)</script>'}</p>`.text).toBe('<p title="&quot;&gt;&lt;x">&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    const res = await get(`/?q=${encodeURIComponent('<script>alert(1)</script>')}`, { authorization: 'Bearer tok-admin' });
    const body = await res.text();
    expect(body).not.toContain('<script>alert');
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('refuses a form body too large before reading it, and names the OIDC issuer on the sign-in form', async () => {
    const big = await post('/ui/login', { credential: 'x'.repeat(100_000) });
    expect(big.status).toBe(413);
    expect(await (await get('/ui/login')).text()).toContain('https://issuer.example');
  });

  it('answers a bad filter with the located problem, not a crash', async () => {
    const res = await get('/?max_risk=extreme&mode=sideways', { authorization: 'Bearer tok-admin' });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/max_risk.*mode|mode.*max_risk/s);
  });
});
