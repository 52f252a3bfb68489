import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCRYPT,
  formatParams,
  generateApiKey,
  hashSecret,
  issueApiKey,
  parseApiKey,
  parseParams,
  verifySecret,
} from '../../../src/runtime/identity/api-keys.js';
import type { KeyRecord } from '../../../src/store/types.js';

const CHEAP = { N: 1024, r: 8, p: 1, keyLength: 32 };

describe('the key token', () => {
  it('is tcap_<16 hex>_<43 base64url>, random each time, and parses back', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.token).toMatch(/^tcap_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(a.token).not.toBe(b.token);
    expect(Buffer.from(a.secret, 'base64url')).toHaveLength(32);
    expect(parseApiKey(a.token)).toEqual({ keyId: a.keyId, secret: a.secret });
  });

  it('keeps underscores and dashes inside the secret', () => {
    const secret = `_-${'A'.repeat(39)}-_`;
    expect(parseApiKey(`tcap_0123456789abcdef_${secret}`)).toEqual({ keyId: '0123456789abcdef', secret });
  });

  const good = `tcap_0123456789abcdef_${'A'.repeat(43)}`;
  it.each<[string, unknown]>([
    ['empty', ''],
    ['not a string', 42],
    ['null', null],
    ['another prefix', good.replace('tcap_', 'tkey_')],
    ['an upper-case prefix', good.replace('tcap_', 'TCAP_')],
    ['a short key id', `tcap_0123456789abcde_${'A'.repeat(43)}`],
    ['an upper-case key id', `tcap_0123456789ABCDEF_${'A'.repeat(43)}`],
    ['a short secret', `tcap_0123456789abcdef_${'A'.repeat(42)}`],
    ['a long secret', `tcap_0123456789abcdef_${'A'.repeat(44)}`],
    ['padding', `tcap_0123456789abcdef_${'A'.repeat(42)}=`],
    ['standard base64', `tcap_0123456789abcdef_${'A'.repeat(42)}+`],
    ['a trailing newline', `${good}\n`],
    ['surrounding spaces', ` ${good} `],
    ['a missing separator', good.replace('f_', 'f')],
  ])('refuses %s without throwing', (_label, token) => {
    expect(parseApiKey(token)).toBeUndefined();
  });
});

describe('the secret hash', () => {
  it('verifies the right secret and refuses any other, with a new salt per hash', async () => {
    const { secret } = generateApiKey();
    const a = await hashSecret(secret, CHEAP);
    const b = await hashSecret(secret, CHEAP);
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
    expect(await verifySecret(secret, a)).toBe(true);
    expect(await verifySecret(secret, b)).toBe(true);
    expect(await verifySecret(`${secret.slice(0, -1)}B`, a)).toBe(false);
    expect(await verifySecret('', a)).toBe(false);
  });

  it('uses scrypt N=2^15, r=8, p=1, 32 bytes by default', async () => {
    expect(DEFAULT_SCRYPT).toEqual({ N: 32768, r: 8, p: 1, keyLength: 32 });
    const hashed = await hashSecret('s');
    expect(hashed.params).toBe('scrypt:N=32768,r=8,p=1,len=32');
    expect(Buffer.from(hashed.hash, 'base64url')).toHaveLength(32);
    expect(Buffer.from(hashed.salt, 'base64url')).toHaveLength(16);
    expect(await verifySecret('s', hashed)).toBe(true);
  });

  it.each([
    ['garbage', 'bcrypt$2b$10'],
    ['N not a power of two', 'scrypt:N=1000,r=8,p=1,len=32'],
    ['N too large (a memory bomb)', 'scrypt:N=4194304,r=8,p=1,len=32'],
    ['r zero', 'scrypt:N=1024,r=0,p=1,len=32'],
    ['a short hash length', 'scrypt:N=1024,r=8,p=1,len=8'],
  ])('refuses stored params that are %s', async (_label, params) => {
    expect(parseParams(params)).toBeUndefined();
    const hashed = await hashSecret('s', CHEAP);
    expect(await verifySecret('s', { ...hashed, params })).toBe(false);
  });

  it('refuses a stored hash of the wrong length', async () => {
    const hashed = await hashSecret('s', CHEAP);
    expect(await verifySecret('s', { ...hashed, hash: hashed.hash.slice(0, 20) })).toBe(false);
  });

  it('formats and parses params back', () => {
    expect(parseParams(formatParams(CHEAP))).toEqual(CHEAP);
  });
});

describe('issueApiKey', () => {
  it('stores the hash and grants, never the secret, and returns the token once', async () => {
    const stored: KeyRecord[] = [];
    const now = new Date('2026-01-01T00:00:00.000Z');
    const { token, record } = await issueApiKey(
      { createKey: async (r) => void stored.push(r) },
      { principal: 'ci-bot', roles: ['caller'], personas: ['Atlas'], defaultPersona: 'Atlas', expiresAt: '2027-01-01T00:00:00.000Z' },
      { now, params: CHEAP },
    );
    const parsed = parseApiKey(token)!;
    expect(stored).toEqual([record]);
    expect(record).toMatchObject({
      id: parsed.keyId, principal: 'ci-bot', roles: ['caller'], personas: ['Atlas'], defaultPersona: 'Atlas', approves: null,
      createdAt: now.toISOString(), lastUsedAt: null, expiresAt: '2027-01-01T00:00:00.000Z', revokedAt: null,
    });
    expect(JSON.stringify(record)).not.toContain(parsed.secret);
    expect(await verifySecret(parsed.secret, record)).toBe(true);
  });

  it('refuses an unknown role and a default persona that is not granted', async () => {
    const keys = { createKey: async () => undefined };
    await expect(issueApiKey(keys, { principal: 'x', roles: ['root' as 'admin'], personas: [] })).rejects.toThrow(/Unknown role root/);
    await expect(issueApiKey(keys, { principal: 'x', roles: ['caller'], personas: ['atlas'], defaultPersona: 'ops' })).rejects.toThrow(/not one of the granted personas/);
  });
});
