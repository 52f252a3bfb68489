/**
 * OIDC bearer tokens against a real provider (oidc-provider, in process): a
 * real token authenticates and maps to a principal; every way a token can be
 * wrong fails with its code.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, decodeProtectedHeader, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Authenticator, type AuthOutcome } from '../../../src/runtime/identity/authenticate.js';
import type { AuthConfig } from '../../../src/runtime/identity/auth-config.js';
import { newSigningKey, startIssuer, type TestIssuer } from '../../helpers/oidc.js';

const CLIENTS = {
  'ci-bot': { roles: ['caller'], personas: ['atlas'], default_persona: 'atlas' },
  'review-bot': { roles: 'approver caller', personas: 'atlas,ops' },
  'stranger': { roles: ['superuser'] },
};

let main: TestIssuer;
let other: TestIssuer;

beforeAll(async () => {
  main = await startIssuer({ clients: CLIENTS, ttlSec: 300 });
  // another issuer holding the same signing key: only the issuer check tells its tokens apart
  other = await startIssuer({ clients: CLIENTS, signingKey: main.signingKey });
});

afterAll(async () => {
  await main.close();
  await other.close();
});

function authenticator(oidc: Partial<NonNullable<AuthConfig['oidc']>> = {}, extra: Omit<AuthConfig, 'oidc'> = {}, clock?: () => number): Authenticator {
  return new Authenticator({ config: { ...extra, oidc: { issuer: main.issuer, audience: main.audience, ...oidc } }, ...(clock ? { clock } : {}) });
}

const bearer = (token: string) => `Bearer ${token}`;
const codeOf = (o: AuthOutcome) => (o.ok ? 'OK' : o.code);

/** The token with its payload changed and its signature kept. */
function tamper(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  change(payload);
  return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
}

/** The token's claims signed anew with another key, under the given kid. */
async function resign(token: string, kid: string, alg = 'RS256'): Promise<string> {
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  const key = alg === 'HS256' ? new TextEncoder().encode('a shared secret nobody should accept, 32+ bytes') : await importJWK(await newSigningKey(kid), 'RS256');
  return new SignJWT(payload).setProtectedHeader({ alg, kid, typ: 'at+jwt' }).sign(key);
}

describe('OIDC access tokens from a real provider', () => {
  it('authenticates a token, mapping claims to a principal (jwks discovered from the issuer)', async () => {
    const token = await main.token('ci-bot');
    const outcome = await authenticator().authenticate(bearer(token));
    // expiresAt: when it stops authenticating by itself, exp plus the clock tolerance (30 s by default), for an open event stream to end then
    const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number };
    expect(outcome).toEqual({ ok: true, principal: { id: 'ci-bot', roles: ['caller'], personas: ['atlas'], defaultPersona: 'atlas', via: 'oidc' }, expiresAt: (exp + 30) * 1000 });
  });

  it('reads roles and personas given as separated strings, and adds static grants by principal id', async () => {
    const auth = authenticator({ jwksUri: main.jwksUri }, { principals: { 'review-bot': { roles: ['approver'], personas: ['intern'], approves: { personas: ['atlas'], tools: ['files.*'] } } } });
    const outcome = await auth.authenticate(bearer(await main.token('review-bot')));
    expect(outcome).toEqual({
      ok: true,
      principal: { id: 'review-bot', roles: ['approver', 'caller'], personas: ['atlas', 'ops', 'intern'], approves: { personas: ['atlas'], tools: ['files.*'] }, via: 'oidc' },
      expiresAt: expect.any(Number),
    });
  });

  it('ignores roles it does not know, falling back to defaultRoles', async () => {
    const token = await main.token('stranger');
    expect(await authenticator().authenticate(bearer(token))).toMatchObject({ ok: true, principal: { id: 'stranger', roles: [] } });
    expect(await authenticator({ defaultRoles: ['caller'] }).authenticate(bearer(token))).toMatchObject({ ok: true, principal: { roles: ['caller'] } });
  });

  it('maps another principal claim, and refuses a token without it', async () => {
    const token = await main.token('ci-bot');
    expect(await authenticator({ principalClaim: 'client_id' }).authenticate(bearer(token))).toMatchObject({ ok: true, principal: { id: 'ci-bot' } });
    expect(await authenticator({ principalClaim: 'email' }).authenticate(bearer(token))).toMatchObject({ ok: false, code: 'INVALID_TOKEN', message: expect.stringMatching(/email/) });
  });

  it('accepts a token within the clock tolerance after expiry, and refuses it as EXPIRED beyond', async () => {
    const token = await main.token('ci-bot');
    const now = Date.now();
    expect(codeOf(await authenticator({}, {}, () => now + 310_000).authenticate(bearer(token)))).toBe('OK');
    expect(codeOf(await authenticator({}, {}, () => now + 340_000).authenticate(bearer(token)))).toBe('EXPIRED');
    expect(codeOf(await authenticator({ clockToleranceSec: 0 }, {}, () => now + 310_000).authenticate(bearer(token)))).toBe('EXPIRED');
  });

  it.each<[string, () => Promise<string>, Partial<NonNullable<AuthConfig['oidc']>>]>([
    ['a token for another audience', () => main.token('ci-bot', { resource: 'https://elsewhere.test' }), {}],
    ['a token when toolcap expects another audience', () => main.token('ci-bot'), { audience: 'https://toolcap.other' }],
    ['a token from another issuer (same signing key)', () => other.token('ci-bot'), {}],
    ['a tampered payload (sub changed to admin)', async () => tamper(await main.token('ci-bot'), (p) => (p.sub = 'admin')), {}],
    ['a tampered payload (roles widened)', async () => tamper(await main.token('ci-bot'), (p) => (p.roles = ['admin'])), {}],
    ['a token signed by a different key under the issuer kid', async () => {
      const token = await main.token('ci-bot');
      return resign(token, decodeProtectedHeader(token).kid!);
    }, {}],
    ['a token signed by a different key under an unknown kid', async () => resign(await main.token('ci-bot'), 'not-a-known-kid'), {}],
    ['an HS256 token (algorithm confusion)', async () => resign(await main.token('ci-bot'), main.signingKey.kid!, 'HS256'), {}],
    ['an unsigned token (alg none)', async () => {
      const [, p] = (await main.token('ci-bot')).split('.');
      return `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${p}.`;
    }, {}],
    ['a JWT-shaped string of garbage', async () => 'abc.def.ghi', {}],
  ])('refuses %s as INVALID_TOKEN', async (_label, make, oidc) => {
    const outcome = await authenticator(oidc).authenticate(bearer(await make()));
    expect(codeOf(outcome)).toBe('INVALID_TOKEN');
  });

  it('refuses tokens when no issuer is configured', async () => {
    const auth = new Authenticator({ config: {} });
    expect(codeOf(await auth.authenticate(bearer(await main.token('ci-bot'))))).toBe('INVALID_TOKEN');
  });

  it('is UNAVAILABLE (not a 401) while the issuer cannot be reached, and recovers once it can', async () => {
    const down = createServer((_req, res) => res.writeHead(503).end());
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const port = (down.address() as AddressInfo).port;
    try {
      const auth = authenticator({ issuer: `http://127.0.0.1:${port}`, jwksTimeoutMs: 2000 });
      const outcome = await auth.authenticate(bearer(await main.token('ci-bot')));
      expect(outcome).toMatchObject({ ok: false, code: 'UNAVAILABLE', message: expect.stringMatching(/discovery/) });
    } finally {
      await new Promise<void>((resolve) => {
        down.close(() => resolve());
        down.closeAllConnections();
      });
    }
  });
});
