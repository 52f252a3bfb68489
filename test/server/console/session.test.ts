/**
 * Console sessions under load from one principal: a bearer request never
 * opens a session, and a principal's logins push out only its own oldest
 * sessions, never another principal's (red-team finding: 10,000 cookieless
 * bearer requests signed an admin out).
 */
import { describe, expect, it } from 'vitest';
import type { AuthOutcome } from '../../../src/runtime/identity/authenticate.js';
import type { ApiAuth } from '../../../src/server/auth.js';
import { cookieValue, SESSION_COOKIE, Sessions } from '../../../src/server/console/session.js';

/** Bearer `<id>` is principal `<id>`; anything else is refused. */
const auth: ApiAuth = {
  authenticate: async (request): Promise<AuthOutcome> => {
    const m = /^Bearer (\w+)$/.exec(request.headers.get('authorization') ?? '');
    return m ? ({ ok: true, principal: { id: m[1]!, roles: ['caller'], personas: ['*'] } } as unknown as AuthOutcome) : ({ ok: false, code: 'UNAUTHENTICATED', message: 'no' } as unknown as AuthOutcome);
  },
};

const req = (headers: Record<string, string> = {}) => new Request('http://127.0.0.1/ui/', { headers });
const sessionOf = (setCookie: string) => cookieValue(setCookie.split(';')[0], SESSION_COOKIE)!;

describe('console sessions', () => {
  it('a cookieless bearer request is answered as itself, opens no session and gets no usable form token', async () => {
    const sessions = new Sessions(auth, { max: 3 });
    const admin = await sessions.login(req(), 'admin');
    if (!admin.ok) throw new Error('login failed');
    for (let i = 0; i < 50; i++) {
      const r = await sessions.user(req({ authorization: 'Bearer mallory' }));
      expect(r.ok && r.user.principal?.id).toBe('mallory');
      expect(r.ok && r.user.setCookie).toBeUndefined();
      expect(r.ok && r.user.csrf).toBe('');
    }
    const still = await sessions.user(req({ cookie: `${SESSION_COOKIE}=${sessionOf(admin.setCookie)}` }));
    expect(still.ok && still.user.principal?.id).toBe('admin');
  });

  it("one principal's logins evict its own oldest sessions, not another principal's", async () => {
    const sessions = new Sessions(auth, { maxPerPrincipal: 3 });
    const admin = await sessions.login(req(), 'admin');
    if (!admin.ok) throw new Error('login failed');
    const mallory: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await sessions.login(req(), 'mallory');
      if (r.ok) mallory.push(sessionOf(r.setCookie));
    }
    const alive = async (id: string) => (await sessions.user(req({ cookie: `${SESSION_COOKIE}=${id}` }))).ok;
    expect(await alive(sessionOf(admin.setCookie))).toBe(true);
    expect(await Promise.all(mallory.map(alive))).toEqual([false, false, false, false, false, false, false, true, true, true]);
  });

  it('a session in use still ends at its absolute lifetime (24 hours), however recently it was used', async () => {
    let now = 0;
    const hour = 3600 * 1000;
    const sessions = new Sessions(auth, { clock: () => now });
    const admin = await sessions.login(req(), 'admin');
    if (!admin.ok) throw new Error('login failed');
    const cookie = { cookie: `${SESSION_COOKIE}=${sessionOf(admin.setCookie)}` };
    // used every 7 hours: never idle for the 8 the idle limit allows
    for (const at of [7, 14, 21, 23.9]) {
      now = at * hour;
      const r = await sessions.user(req(cookie));
      expect(r.ok && r.user.principal?.id).toBe('admin');
    }
    now = 24 * hour;
    expect((await sessions.user(req(cookie))).ok).toBe(false);
    // and stays ended
    now = 24.1 * hour;
    expect((await sessions.user(req(cookie))).ok).toBe(false);
  });

  it('a credential that cannot be checked for a moment (503) keeps the session; a refused one ends it', async () => {
    let answer: 'ok' | 'down' | 'revoked' = 'ok';
    const flaky: ApiAuth = {
      authenticate: async (request): Promise<AuthOutcome> => {
        if (request.headers.get('authorization') !== 'Bearer key') return { ok: false, code: 'UNAUTHENTICATED', message: 'no' };
        if (answer === 'ok') return { ok: true, principal: { id: 'admin', roles: ['admin'], personas: ['*'], via: 'api-key' } };
        return { ok: false, code: answer === 'down' ? 'UNAVAILABLE' : 'REVOKED', message: answer };
      },
    };
    const sessions = new Sessions(flaky);
    const opened = await sessions.login(req(), 'key');
    if (!opened.ok) throw new Error('login failed');
    const cookie = { cookie: `${SESSION_COOKIE}=${sessionOf(opened.setCookie)}` };
    answer = 'down';
    expect(await sessions.user(req(cookie))).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
    answer = 'ok';
    expect((await sessions.user(req(cookie))).ok).toBe(true);
    answer = 'revoked';
    expect(await sessions.user(req(cookie))).toMatchObject({ ok: false, code: 'REVOKED' });
    answer = 'ok';
    expect(await sessions.user(req(cookie))).toMatchObject({ ok: false, code: 'UNAUTHENTICATED' });
  });
});
