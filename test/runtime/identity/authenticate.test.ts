/**
 * The Authenticator with API keys, against a real SQLite store; and the
 * header forms every credential shares. OIDC tokens: oidc.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey, type KeyGrant } from '../../../src/runtime/identity/api-keys.js';
import { Authenticator, type AuthOutcome } from '../../../src/runtime/identity/authenticate.js';
import { resolveAuthConfig } from '../../../src/runtime/identity/auth-config.js';
import { openSqliteStore } from '../../../src/store/sqlite.js';
import { StoreUnavailableError, type KeyStore, type Store } from '../../../src/store/types.js';

const CHEAP = { N: 1024, r: 8, p: 1, keyLength: 32 };
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

let dir: string;
let store: Store & KeyStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolcap-auth-'));
  store = await openSqliteStore(join(dir, 'toolcap.db'));
});

afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const codeOf = (o: AuthOutcome) => (o.ok ? 'OK' : o.code);

async function issue(over: Partial<KeyGrant> = {}) {
  return issueApiKey(store, { principal: 'ci-bot', roles: ['caller'], personas: ['Atlas'], defaultPersona: 'Atlas', ...over }, { now: new Date(T0), params: CHEAP });
}

/** An authenticator over the store with a clock the test moves. */
function withClock(start = T0) {
  const clock = { now: start };
  const touches: string[] = [];
  const keys = { getKey: (id: string) => store.getKey(id), touchKey: async (id: string, at: string) => (touches.push(at), store.touchKey(id, at)) };
  return { clock, touches, auth: new Authenticator({ keys, clock: () => clock.now }) };
}

describe('API keys', () => {
  it('authenticate as the principal with the grants the key was issued with', async () => {
    // a role this toolcap does not know (written by another version, or by hand) is ignored
    const { token, record } = await issueApiKey(
      { createKey: (r) => store.createKey({ ...r, roles: [...r.roles, 'superuser'] }) },
      { principal: 'ci-bot', roles: ['caller', 'approver'], personas: ['Atlas'], defaultPersona: 'Atlas', approves: { personas: ['Atlas'], tools: ['files.*'] } },
      { params: CHEAP },
    );
    expect((await store.getKey(record.id))?.roles).toEqual(['caller', 'approver', 'superuser']);
    const { auth } = withClock();
    expect(await auth.authenticate(`Bearer ${token}`)).toEqual({
      ok: true,
      principal: { id: 'ci-bot', roles: ['caller', 'approver'], personas: ['Atlas'], defaultPersona: 'Atlas', approves: { personas: ['Atlas'], tools: ['files.*'] }, via: 'api-key' },
    });
  });

  it.each([
    ['a lower-case scheme', (t: string) => `bearer ${t}`],
    ['extra spaces', (t: string) => `  Bearer   ${t}  `],
  ])('accept %s', async (_label, header) => {
    const { token } = await issue();
    expect(codeOf(await withClock().auth.authenticate(header(token)))).toBe('OK');
  });

  it('refuse a wrong secret and an unknown key alike, as INVALID_TOKEN', async () => {
    const { token } = await issue();
    const { auth } = withClock();
    const wrongSecret = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const unknownKey = token.replace(/^tcap_[0-9a-f]{16}/, 'tcap_ffffffffffffffff');
    const [a, b] = [await auth.authenticate(`Bearer ${wrongSecret}`), await auth.authenticate(`Bearer ${unknownKey}`)];
    expect(a).toEqual({ ok: false, code: 'INVALID_TOKEN', message: expect.any(String) });
    expect(b).toEqual(a);
    // a right secret after a wrong one still works (nothing wrong was cached)
    expect(codeOf(await auth.authenticate(`Bearer ${token}`))).toBe('OK');
  });

  it('refuse a revoked key as REVOKED, even one verified a moment before', async () => {
    const { token, record } = await issue();
    const { auth } = withClock();
    expect(codeOf(await auth.authenticate(`Bearer ${token}`))).toBe('OK');
    await store.revokeKey(record.id, new Date(T0 + 1000).toISOString());
    expect(codeOf(await auth.authenticate(`Bearer ${token}`))).toBe('REVOKED');
  });

  it('refuse an expired key as EXPIRED, from its expiry on', async () => {
    const { token } = await issue({ expiresAt: new Date(T0 + 60_000).toISOString() });
    const { auth, clock } = withClock();
    clock.now = T0 + 59_999;
    // and says when: an open event stream ends then
    expect(await auth.authenticate(`Bearer ${token}`)).toMatchObject({ ok: true, expiresAt: T0 + 60_000 });
    clock.now = T0 + 60_000;
    expect(codeOf(await auth.authenticate(`Bearer ${token}`))).toBe('EXPIRED');
  });

  it('write the last use at most once a minute', async () => {
    const { token, record } = await issue();
    const { auth, clock, touches } = withClock();
    for (const at of [0, 1000, 59_999, 60_000, 61_000, 130_000]) {
      clock.now = T0 + at;
      expect(codeOf(await auth.authenticate(`Bearer ${token}`))).toBe('OK');
    }
    expect(touches).toEqual([T0, T0 + 60_000, T0 + 130_000].map((t) => new Date(t).toISOString()));
    expect((await store.getKey(record.id))?.lastUsedAt).toBe(new Date(T0 + 130_000).toISOString());
    // another instance sees the stored last use and does not write again within the minute
    const second = withClock(T0 + 150_000);
    expect(codeOf(await second.auth.authenticate(`Bearer ${token}`))).toBe('OK');
    expect(second.touches).toEqual([]);
  });

  it('are refused when disabled or when there is no key store', async () => {
    const { token } = await issue();
    expect(codeOf(await new Authenticator({ keys: store, config: { apiKeys: { enabled: false } } }).authenticate(`Bearer ${token}`))).toBe('INVALID_TOKEN');
    expect(codeOf(await new Authenticator().authenticate(`Bearer ${token}`))).toBe('INVALID_TOKEN');
  });

  it('are UNAVAILABLE (not a 401) while the store is down', async () => {
    const { token } = await issue();
    const down = { getKey: () => Promise.reject(new StoreUnavailableError('fake outage')), touchKey: () => Promise.resolve() };
    expect(await new Authenticator({ keys: down }).authenticate(`Bearer ${token}`)).toMatchObject({ ok: false, code: 'UNAVAILABLE', message: expect.stringMatching(/fake outage/) });
  });
});

describe('the Authorization header', () => {
  const auth = new Authenticator({ keys: { getKey: async () => undefined, touchKey: async () => undefined } });

  it.each<[string, string | null | undefined, string]>([
    ['absent', undefined, 'UNAUTHENTICATED'],
    ['null', null, 'UNAUTHENTICATED'],
    ['empty', '', 'UNAUTHENTICATED'],
    ['blank', '   ', 'UNAUTHENTICATED'],
    ['Basic credentials', 'Basic dXNlcjpwYXNz', 'UNAUTHENTICATED'],
    ['Bearer without a token', 'Bearer', 'UNAUTHENTICATED'],
    ['Bearer and blanks', 'Bearer    ', 'UNAUTHENTICATED'],
    ['two tokens', 'Bearer a b', 'UNAUTHENTICATED'],
    ['a token without the scheme', 'tcap_0123456789abcdef_' + 'A'.repeat(43), 'UNAUTHENTICATED'],
    ['a malformed API key', 'Bearer tcap_nothex', 'INVALID_TOKEN'],
    ['neither key nor JWT', 'Bearer hello', 'INVALID_TOKEN'],
    ['a JWT with no issuer configured', 'Bearer aaa.bbb.ccc', 'INVALID_TOKEN'],
    ['control characters', 'Bearer \u0000\u0001', 'INVALID_TOKEN'],
    ['a very long value', `Bearer ${'x'.repeat(100_000)}`, 'INVALID_TOKEN'],
  ])('%s: %s', async (_label, header, code) => {
    expect(codeOf(await auth.authenticate(header))).toBe(code);
  });
});

describe('resolveAuthConfig', () => {
  it('fills in every default', () => {
    expect(resolveAuthConfig({ oidc: { issuer: 'https://id.example', audience: 'https://toolcap.example' } })).toEqual({
      apiKeys: { enabled: true, touchIntervalMs: 60_000 },
      oidc: {
        issuer: 'https://id.example',
        audience: 'https://toolcap.example',
        algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
        clockToleranceSec: 30,
        jwksTimeoutMs: 5000,
        principalClaim: 'sub',
        rolesClaim: 'roles',
        personasClaim: 'personas',
        defaultPersonaClaim: 'default_persona',
        defaultRoles: [],
      },
      principals: {},
      rateLimit: { points: 60, durationSec: 60, principals: {} },
    });
    expect(resolveAuthConfig().oidc).toBeUndefined();
  });
});
