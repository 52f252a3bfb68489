/**
 * API keys: the token format, the slow hash the store keeps instead of the
 * secret, and issuing a key.
 *
 * A key is `tcap_<keyId>_<secret>`: `keyId` is 16 hex characters (8 random
 * bytes), public, the store's primary key; `secret` is 32 random bytes in
 * base64url (43 characters). The token is shown once, when issued; the store
 * keeps only `scrypt(secret, salt)` with a random 16-byte salt per key and the
 * parameters used, so a stolen database does not yield working keys and the
 * cost can be raised later without invalidating old keys.
 * @module
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { KeyRecord, KeyStore } from '../../store/types.js';
import { isRole, type ApproverGrants, type Role } from './principal.js';

/** The prefix of every toolcap API key (so secret scanners and people recognise one). */
export const API_KEY_PREFIX = 'tcap_';

const TOKEN = /^tcap_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/**
 * scrypt cost: N (CPU/memory cost, a power of two), r (block size), p
 * (parallelism), and the hash length in bytes. Memory used is 128·N·r bytes.
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keyLength: number;
}

/**
 * N = 2^15, r = 8, p = 1, 32 bytes: 32 MiB and tens of milliseconds a hash,
 * the interactive-login cost RFC 7914 and OWASP suggest.
 */
export const DEFAULT_SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 } as const satisfies ScryptParams;

/** The hash of a secret as the store keeps it (`hash` and `salt` base64url, `params` as {@link formatParams} writes them). */
export interface HashedSecret {
  hash: string;
  salt: string;
  params: string;
}

/** The parts of a key token. */
export interface ParsedApiKey {
  keyId: string;
  secret: string;
}

/** A fresh key: the token to hand over once, and its parts. */
export function generateApiKey(): ParsedApiKey & { token: string } {
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { token: `${API_KEY_PREFIX}${keyId}_${secret}`, keyId, secret };
}

/**
 * The parts of a key token, or undefined when it is not one (any other
 * shape, length or alphabet). Never throws.
 * @example parseApiKey('tcap_0123456789abcdef_' + 'A'.repeat(43)) // { keyId: '0123456789abcdef', secret: 'AAA…' }
 */
export function parseApiKey(token: unknown): ParsedApiKey | undefined {
  if (typeof token !== 'string') return undefined;
  const m = TOKEN.exec(token);
  return m ? { keyId: m[1]!, secret: m[2]! } : undefined;
}

/** `scrypt:N=32768,r=8,p=1,len=32` */
export function formatParams(p: ScryptParams): string {
  return `scrypt:N=${p.N},r=${p.r},p=${p.p},len=${p.keyLength}`;
}

/**
 * The parameters of a stored hash, or undefined when they are malformed or
 * out of bounds (a tampered row must not make a login allocate gigabytes).
 */
export function parseParams(text: string): ScryptParams | undefined {
  const m = /^scrypt:N=(\d{1,8}),r=(\d{1,2}),p=(\d{1,2}),len=(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const [N, r, p, keyLength] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  const powerOfTwo = N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16 || keyLength < 16 || keyLength > 64) return undefined;
  return { N, r, p, keyLength };
}

function scrypt(secret: string, salt: Buffer, p: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: p.N, r: p.r, p: p.p, maxmem: 256 * p.N * p.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(secret, salt, p.keyLength, options, (err, derived) => (err ? reject(err) : resolve(derived)));
  });
}

/** Hash a secret with a new random salt. */
export async function hashSecret(secret: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<HashedSecret> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, params);
  return { hash: hash.toString('base64url'), salt: salt.toString('base64url'), params: formatParams(params) };
}

/** Whether `secret` hashes to the stored hash (compared in constant time). False for malformed stored values. */
export async function verifySecret(secret: string, stored: HashedSecret): Promise<boolean> {
  const params = parseParams(stored.params);
  if (!params) return false;
  const expected = Buffer.from(stored.hash, 'base64url');
  if (expected.length !== params.keyLength) return false;
  const actual = await scrypt(secret, Buffer.from(stored.salt, 'base64url'), params);
  return timingSafeEqual(actual, expected);
}

/** What a new key grants. */
export interface KeyGrant {
  principal: string;
  roles: readonly Role[];
  personas: readonly string[];
  defaultPersona?: string;
  approves?: ApproverGrants;
  /** ISO time after which the key is refused; absent: it does not expire. */
  expiresAt?: string;
}

/**
 * Issue a key: store its hash and grants, and return the token (shown once;
 * it cannot be recovered) with the stored record.
 * @example const { token } = await issueApiKey(store, { principal: 'ci-bot', roles: ['caller'], personas: ['Atlas'] });
 */
export async function issueApiKey(
  keys: Pick<KeyStore, 'createKey'>,
  grant: KeyGrant,
  options: { now?: Date; params?: ScryptParams } = {},
): Promise<{ token: string; record: KeyRecord }> {
  const unknown = grant.roles.filter((r) => !isRole(r));
  if (unknown.length) throw new TypeError(`Unknown role ${unknown.join(', ')}: a key may have the roles caller, approver, admin.`);
  if (grant.defaultPersona !== undefined && !grant.personas.includes(grant.defaultPersona) && !grant.personas.includes('*')) {
    throw new TypeError(`The default persona "${grant.defaultPersona}" is not one of the granted personas (${grant.personas.join(', ') || 'none'}).`);
  }
  const { token, keyId, secret } = generateApiKey();
  const record: KeyRecord = {
    id: keyId,
    principal: grant.principal,
    roles: [...grant.roles],
    personas: [...grant.personas],
    defaultPersona: grant.defaultPersona ?? null,
    approves: grant.approves ? { personas: [...grant.approves.personas], tools: [...grant.approves.tools] } : null,
    ...(await hashSecret(secret, options.params)),
    createdAt: (options.now ?? new Date()).toISOString(),
    lastUsedAt: null,
    expiresAt: grant.expiresAt ?? null,
    revokedAt: null,
  };
  await keys.createKey(record);
  return { token, record };
}
