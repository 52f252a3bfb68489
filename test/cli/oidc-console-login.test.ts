/**
 * The console's browser sign-in end to end: `toolcap serve` with
 * `auth.oidc.console` and a real OpenID provider (oidc-provider, in
 * process, its development login and consent pages), driven by fetch as a
 * browser would be: the redirect to the provider with PKCE (S256), state and
 * nonce; the provider's login and consent forms; the callback, the code
 * exchange with the client secret from the environment, the ID token
 * checks; a console session mapped from the access token exactly as an API
 * bearer token is. And what must fail, each with a 4xx page and no session:
 * a forged state, no code, a provider error (the user aborts), a nonce or
 * PKCE challenge changed on the way, a replayed callback, a principal the
 * token mapping refuses.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveCli as serve } from './helpers.js';
import { startIssuer, type TestIssuer } from '../helpers/oidc.js';

const AUDIENCE = 'https://toolcap.test';
const CLIENT = 'toolcap-console';
const SECRET = 'console-secret-of-sufficient-length-0123456789';

/** Accounts at the provider (any login name signs in): alice is mapped to a principal (and granted atlas by `auth.principals`, which makes it a persona the runtime knows); the stranger's token names none. */
const ACCOUNTS = {
  alice: { toolcap_id: 'alice@example.org', toolcap_roles: ['caller'], toolcap_personas: 'atlas' },
  stranger: {},
};

let root: string;
let idp: TestIssuer;
let server: { url: string; stdout: () => string; stderr: () => string; stop: () => Promise<number> };

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-cli-oidc-console-'));
  const project = join(root, 'ws', 'proj');
  mkdirSync(project, { recursive: true });
  cpSync('examples/manifests/toolcap', join(project, 'toolcap'), { recursive: true });
  idp = await startIssuer({ audience: AUDIENCE, accounts: ACCOUNTS, webClients: [{ clientId: CLIENT, secret: SECRET, redirectUri: 'http://127.0.0.1/ui/login/callback' }] });
  const file = join(project, 'console.config.yaml');
  writeFileSync(
    file,
    `sources: [toolcap/]
store: { path: .toolcap/console.db }
auth:
  oidc:
    issuer: ${idp.issuer}
    audience: ${AUDIENCE}
    principalClaim: toolcap_id
    rolesClaim: toolcap_roles
    personasClaim: toolcap_personas
    console:
      clientId: ${CLIENT}
      clientSecret: { env: TOOLCAP_TEST_CONSOLE_SECRET }
      scope: openid tools
      resource: ${AUDIENCE}
  principals:
    alice@example.org: { personas: [atlas] }
`,
  );
  server = await serve(['--config', file], { ...(process.env as Record<string, string>), TOOLCAP_TEST_CONSOLE_SECRET: SECRET });
}, 20_000);

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  await idp?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A browser's cookies: by host name (as browsers do, ports share them) and path; Max-Age=0 deletes. */
class Browser {
  readonly #jar = new Map<string, { host: string; path: string; name: string; value: string }>();

  /** One request, cookies sent and kept, redirects not followed. */
  async go(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const u = new URL(url);
    const cookie = [...this.#jar.values()].filter((c) => c.host === u.hostname && u.pathname.startsWith(c.path)).map((c) => `${c.name}=${c.value}`).join('; ');
    const headers: Record<string, string> = cookie ? { cookie } : {};
    const res = await fetch(url, { method: init.method ?? 'GET', redirect: 'manual', headers, ...(init.form ? { body: new URLSearchParams(init.form) } : {}) });
    for (const set of res.headers.getSetCookie()) {
      const [pair, ...attrs] = set.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const key = `${u.hostname} ${path} ${name}`;
      if (attrs.some((a) => /^max-age=0$/i.test(a))) this.#jar.delete(key);
      else this.#jar.set(key, { host: u.hostname, path, name, value: pair!.slice(eq + 1) });
    }
    return res;
  }

  cookie(name: string): string | undefined {
    return [...this.#jar.values()].find((c) => c.name === name)?.value;
  }
}

const location = (res: Response, base: string) => new URL(res.headers.get('location')!, base).href;

/** Start a sign-in at the console: the provider's authorization URL it redirects to. */
async function start(browser: Browser, next = '/', home = server.url): Promise<URL> {
  const res = await browser.go(`${home}/ui/login/oidc?next=${encodeURIComponent(next)}`);
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

/**
 * At the provider: follow its redirects and fill in its login (as `login`)
 * and consent forms, until it sends the browser back to toolcap; that URL.
 */
async function atProvider(browser: Browser, authorizationUrl: string, login: string, options: { abort?: boolean; home?: string } = {}): Promise<string> {
  let url = authorizationUrl;
  for (let step = 0; step < 12; step++) {
    if (url.startsWith(options.home ?? server.url)) return url;
    const res = await browser.go(url);
    if (res.status >= 300 && res.status < 400) {
      url = location(res, url);
      continue;
    }
    const page = await res.text();
    expect(res.status, page).toBe(200);
    const action = new URL(/<form[^>]*action="([^"]+)"/.exec(page)![1]!, url).href;
    if (options.abort) {
      url = `${action}/abort`;
      continue;
    }
    const prompt = /name="prompt" value="(\w+)"/.exec(page)![1]!;
    const answer = await browser.go(action, { method: 'POST', form: prompt === 'login' ? { prompt, login, password: 'anything' } : { prompt } });
    expect(answer.status).toBeGreaterThanOrEqual(300);
    url = location(answer, action);
  }
  throw new Error(`the provider never sent the browser back (at ${url})`);
}

describe('browser sign-in to the console with the OpenID provider', () => {
  it('offers "Sign in with <issuer>" on the login page, the token form kept as a fallback', async () => {
    const page = await (await fetch(`${server.url}/ui/login?next=%2Fui%2Fapprovals`)).text();
    expect(page).toContain(`href="/ui/login/oidc?next=%2Fui%2Fapprovals">Sign in with ${idp.issuer}</a>`);
    expect(page).toContain('name="credential"');
  });

  it('redirects to the provider with PKCE S256, state and nonce, bound to an HttpOnly SameSite=Lax cookie', async () => {
    const res = await fetch(`${server.url}/ui/login/oidc`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const url = new URL(res.headers.get('location')!);
    expect(url.origin).toBe(idp.issuer);
    const p = url.searchParams;
    expect({ response_type: p.get('response_type'), client_id: p.get('client_id'), redirect_uri: p.get('redirect_uri'), scope: p.get('scope'), resource: p.get('resource'), code_challenge_method: p.get('code_challenge_method') }).toEqual({
      response_type: 'code', client_id: CLIENT, redirect_uri: `${server.url}/ui/login/callback`, scope: 'openid tools', resource: AUDIENCE, code_challenge_method: 'S256',
    });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(p.get(name)).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('toolcap_oidc='))!;
    expect(cookie).toMatch(/; Path=\/ui\/login; HttpOnly; SameSite=Lax; Max-Age=600$/);
  });

  it('signs alice in: a SameSite=Strict session as the principal her token maps to, on the page she was going to', async () => {
    const browser = new Browser();
    const authorization = await start(browser, '/ui/tools/notes.append');
    const callback = await atProvider(browser, authorization.href, 'alice');
    expect(new URL(callback).pathname).toBe('/ui/login/callback');
    const done = await browser.go(callback);
    const landing = await done.text();
    expect(done.status, landing).toBe(200);
    // a page that moves on by itself (a same-site navigation, which sends the Strict cookie), not a cross-site redirect chain
    expect(landing).toContain('<meta http-equiv="refresh" content="0;url=/ui/tools/notes.append">');
    expect(landing).toContain('Signed in as <strong>alice@example.org</strong>');
    const session = done.headers.getSetCookie().find((c) => c.startsWith('toolcap_session='))!;
    expect(session).toMatch(/HttpOnly; SameSite=Strict/);
    expect(browser.cookie('toolcap_oidc')).toBeUndefined();

    const catalog = await browser.go(`${server.url}/?persona=atlas`);
    const page = await catalog.text();
    expect(catalog.status, page).toBe(200);
    expect(page).toContain('Signed in as <strong>alice@example.org</strong> (caller)');
    expect(page).toContain('notes.append');
    // the caller role does not read the audit log: the API's role check, through the session
    expect((await browser.go(`${server.url}/ui/audit`)).status).toBe(403);
    // the callback URL is one use only
    const replay = await browser.go(callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('was already used');
  });

  it('keeps nothing on the server for a sign-in under way: 10,001 others started meanwhile (no credentials needed) do not push it out', async () => {
    const browser = new Browser();
    const authorization = await start(browser, '/ui/health');
    // the flood an anonymous client can send; pending sign-ins kept on the server (10,000 at most) lost the first
    let left = 10_001;
    const worker = async () => {
      while (left-- > 0) expect((await fetch(`${server.url}/ui/login/oidc`, { redirect: 'manual' })).status).toBe(303);
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    const done = await browser.go(await atProvider(browser, authorization.href, 'alice'));
    expect(done.status, await done.text()).toBe(200);
  }, 60_000);

  it('refuses a pending-sign-in cookie that was altered', async () => {
    const browser = new Browser();
    const authorization = await start(browser);
    const callback = await atProvider(browser, authorization.href, 'alice');
    const sealed = browser.cookie('toolcap_oidc')!;
    const flipped = `${sealed.slice(0, 20)}${sealed[20] === 'A' ? 'B' : 'A'}${sealed.slice(21)}`;
    const res = await fetch(callback, { headers: { cookie: `toolcap_oidc=${flipped}` } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('not started here');
  });

  it('sends a visit at another allowed name to the redirect URI\'s origin first (its cookie must be set there)', async () => {
    const other = server.url.replace('127.0.0.1', 'localhost');
    const res = await fetch(`${other}/ui/login/oidc?next=%2Fui%2Fhealth`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${server.url}/ui/login/oidc?next=%2Fui%2Fhealth`);
  });

  /** Each case: what the browser (or an attacker) does, the status and the message of the page it lands on. */
  const refusals: Array<[string, (browser: Browser) => Promise<string>, number, RegExp]> = [
    ['a forged state', async (b) => {
      const back = new URL(await atProvider(b, (await start(b)).href, 'alice'));
      back.searchParams.set('state', 'forged-state');
      return back.href;
    }, 400, /answer was refused: .*state/i],
    ['no code', async (b) => {
      const auth = await start(b);
      return `${server.url}/ui/login/callback?state=${auth.searchParams.get('state')}&iss=${encodeURIComponent(idp.issuer)}`;
    }, 400, /no authorization code/],
    ['the user aborting at the provider (error=access_denied)', async (b) => atProvider(b, (await start(b)).href, 'alice', { abort: true }), 403, /did not sign you in \(access_denied/],
    ['a nonce changed on the way to the provider', async (b) => {
      const auth = await start(b);
      auth.searchParams.set('nonce', 'another-nonce-entirely-0123456789abcdefghijkl');
      return atProvider(b, auth.href, 'alice');
    }, 400, /nonce/],
    ['a PKCE challenge changed on the way to the provider', async (b) => {
      const auth = await start(b);
      auth.searchParams.set('code_challenge', 'A'.repeat(43));
      return atProvider(b, auth.href, 'alice');
    }, 400, /refused the code \(invalid_grant/],
    // login CSRF: an attacker starts a sign-in and has the victim's browser finish it
    ['a callback in a browser that never started the sign-in', async (b) => atProvider(b, (await start(new Browser())).href, 'alice'), 400, /not started here/],
    ['an account the token mapping names no principal for', async (b) => atProvider(b, (await start(b)).href, 'stranger'), 403, /toolcap does not accept that sign-in: .*toolcap_id/],
  ];

  it.each(refusals)('refuses %s with a page, and no session', async (_name, arrange, status, message) => {
    const browser = new Browser();
    const callback = await arrange(browser);
    const res = await browser.go(callback);
    const page = await res.text();
    expect(res.status, page).toBe(status);
    expect(page).toMatch(message);
    expect(page).toContain('<h1>Sign-in failed</h1>');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('toolcap_session='))).toBe(false);
    expect(browser.cookie('toolcap_session')).toBeUndefined();
  });
});

describe('a browser session outlives its access token by the refresh token', () => {
  const TTL_SEC = 5;
  let shortIdp: TestIssuer;
  let shortServer: typeof server;

  beforeAll(async () => {
    shortIdp = await startIssuer({ audience: AUDIENCE, ttlSec: TTL_SEC, accounts: { bob: { roles: ['caller'] } }, webClients: [{ clientId: CLIENT, redirectUri: 'http://127.0.0.1/ui/login/callback' }] });
    const project = join(root, 'ws', 'proj');
    const file = join(project, 'short.config.yaml');
    writeFileSync(file, `sources: [toolcap/]\nstore: { path: .toolcap/short.db }\nauth:\n  oidc:\n    issuer: ${shortIdp.issuer}\n    audience: ${AUDIENCE}\n    clockToleranceSec: 0\n    console: { clientId: ${CLIENT}, scope: openid tools, resource: ${AUDIENCE} }\n`);
    shortServer = await serve(['--config', file]);
  }, 20_000);
  afterAll(async () => {
    if (shortServer) expect(await shortServer.stop()).toBe(0);
    await shortIdp?.close();
  });

  it('renews the expired access token (a public client: PKCE, no secret) and stays signed in as the same principal', async () => {
    const browser = new Browser();
    const home = shortServer.url;
    const callback = await atProvider(browser, (await start(browser, '/', home)).href, 'bob', { home });
    expect((await browser.go(callback)).status).toBe(200);
    expect(await (await browser.go(`${home}/`)).text()).toContain('Signed in as <strong>bob</strong> (caller)');
    // past the access token's lifetime (no clock tolerance): only a renewed token still authenticates
    await new Promise((r) => setTimeout(r, TTL_SEC * 1000 + 1500));
    const later = await browser.go(`${home}/`);
    expect(later.status).toBe(200);
    expect(await later.text()).toContain('Signed in as <strong>bob</strong> (caller)');
  }, 30_000);
});
