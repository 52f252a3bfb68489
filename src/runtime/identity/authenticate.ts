/**
 * Who sent a request: from an `Authorization` header value to a
 * {@link Principal}, or a typed failure. Two kinds of bearer token:
 *
 * - API keys (`tcap_<keyId>_<secret>`), looked up in the store: the secret
 *   must match the stored scrypt hash, then the key must be neither revoked
 *   nor expired. Last use is written at most once per `touchIntervalMs`.
 * - OIDC access tokens (JWTs), verified with `jose` against the issuer's
 *   JWKS: signature, issuer, audience, expiry (with clock tolerance); claims
 *   are mapped to a principal as configured (`claims.ts`).
 *
 * Bad input never throws: it is a failure with a code. An unreachable store
 * or JWKS is `UNAVAILABLE` (fail closed; a server answers 503, not 401).
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { errorMessage } from '../../model/errors.js';
import type { KeyRecord, KeyStore } from '../../store/types.js';
import { API_KEY_PREFIX, parseApiKey, verifySecret } from './api-keys.js';
import { resolveAuthConfig, type AuthConfig, type ResolvedAuthConfig, type ResolvedOidcConfig } from './auth-config.js';
import { principalFromClaims } from './claims.js';
import { isRole, type Principal } from './principal.js';

/** Why a request is not authenticated, from least to most specific. */
export const AUTH_FAILURES = ['UNAUTHENTICATED', 'INVALID_TOKEN', 'EXPIRED', 'REVOKED', 'UNAVAILABLE'] as const;

/**
 * - `UNAUTHENTICATED`: no bearer credentials (401).
 * - `INVALID_TOKEN`: malformed, unknown, wrongly signed, or for another issuer or audience (401).
 * - `EXPIRED`, `REVOKED`: a real credential no longer valid (401).
 * - `UNAVAILABLE`: the key store or the issuer's JWKS cannot be reached (503).
 */
export type AuthFailureCode = (typeof AUTH_FAILURES)[number];

/**
 * A principal, or why there is none. `expiresAt` (ms since the epoch), when
 * known, is when the credential stops authenticating by itself (an API
 * key's expiry; a token's `exp` plus the clock tolerance): whoever holds on
 * to it past a request (an open event stream) checks it again by then.
 */
export type AuthOutcome = { ok: true; principal: Principal; expiresAt?: number } | { ok: false; code: AuthFailureCode; message: string };

export interface AuthenticatorOptions {
  /** The `auth` configuration section (defaults filled in here). */
  config?: AuthConfig;
  /** Where API keys are kept; absent: API keys are refused. */
  keys?: Pick<KeyStore, 'getKey' | 'touchKey'>;
  /** Milliseconds since the epoch. @default Date.now */
  clock?: () => number;
}

const fail = (code: AuthFailureCode, message: string): AuthOutcome => ({ ok: false, code, message });

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** jose error codes that mean the token is bad, not that the issuer is unreachable. */
const BAD_TOKEN = new Set([
  'ERR_JWT_CLAIM_VALIDATION_FAILED', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'ERR_JWS_INVALID', 'ERR_JWT_INVALID',
  'ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS', 'ERR_JOSE_ALG_NOT_ALLOWED', 'ERR_JOSE_NOT_SUPPORTED', 'ERR_JWK_INVALID',
]);

/** Most verified secrets remembered (so a busy key skips scrypt); the oldest is forgotten first. */
const VERIFIED_CACHE_SIZE = 10_000;

/**
 * Authenticates requests.
 * @example
 * const auth = new Authenticator({ config: { oidc: { issuer, audience: 'https://toolcap.example' } }, keys: store });
 * const outcome = await auth.authenticate(request.headers.get('authorization'));
 * if (!outcome.ok) return problem(outcome.code === 'UNAVAILABLE' ? 503 : 401, outcome);
 */
export class Authenticator {
  readonly config: ResolvedAuthConfig;
  readonly #keys: Pick<KeyStore, 'getKey' | 'touchKey'> | undefined;
  readonly #clock: () => number;
  /** keyId → the stored hash it was verified against and a fast digest of the secret that matched. */
  readonly #verified = new Map<string, { hash: string; digest: Buffer }>();
  /** keyId → when this process last wrote its use. */
  readonly #touched = new Map<string, number>();
  #jwks: Promise<JWTVerifyGetKey> | undefined;

  constructor(options: AuthenticatorOptions = {}) {
    this.config = resolveAuthConfig(options.config);
    this.#keys = options.keys;
    this.#clock = options.clock ?? Date.now;
  }

  /** The principal of an `Authorization` header value (`Bearer <token>`), or why there is none. Never throws. */
  async authenticate(header: string | null | undefined): Promise<AuthOutcome> {
    if (typeof header !== 'string' || header.trim() === '') return fail('UNAUTHENTICATED', 'No credentials: send "Authorization: Bearer <API key or access token>".');
    const m = /^\s*Bearer +(\S+)\s*$/i.exec(header);
    if (!m) return fail('UNAUTHENTICATED', 'The Authorization header is not "Bearer <token>".');
    const token = m[1]!;
    try {
      if (token.startsWith(API_KEY_PREFIX)) return await this.#apiKey(token);
      if (JWT_SHAPE.test(token)) return await this.#jwt(token);
      return fail('INVALID_TOKEN', 'The bearer token is neither a toolcap API key nor a JWT.');
    } catch (err) {
      // store or network trouble: the credential may be fine, so this is not a 401
      return fail('UNAVAILABLE', `Credentials cannot be checked right now: ${errorMessage(err)}`);
    }
  }

  async #apiKey(token: string): Promise<AuthOutcome> {
    if (!this.config.apiKeys.enabled || !this.#keys) return fail('INVALID_TOKEN', 'API keys are not accepted here.');
    const parsed = parseApiKey(token);
    if (!parsed) return fail('INVALID_TOKEN', 'The API key is malformed (expected tcap_<16 hex>_<43 base64url>).');
    const record = await this.#keys.getKey(parsed.keyId);
    // one answer for an unknown key and a wrong secret, so neither can be probed
    if (!record || !(await this.#secretMatches(record, parsed.secret))) return fail('INVALID_TOKEN', 'Unknown API key or wrong secret.');
    const now = this.#clock();
    if (record.revokedAt !== null) return fail('REVOKED', `API key ${record.id} was revoked at ${record.revokedAt}.`);
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) return fail('EXPIRED', `API key ${record.id} expired at ${record.expiresAt}.`);
    await this.#touch(record, now);
    return {
      ok: true,
      principal: {
        id: record.principal,
        roles: record.roles.filter(isRole),
        personas: [...record.personas],
        ...(record.defaultPersona !== null ? { defaultPersona: record.defaultPersona } : {}),
        ...(record.approves !== null ? { approves: record.approves } : {}),
        via: 'api-key',
      },
      ...(record.expiresAt !== null ? { expiresAt: Date.parse(record.expiresAt) } : {}),
    };
  }

  async #secretMatches(record: KeyRecord, secret: string): Promise<boolean> {
    const digest = createHash('sha256').update(secret).digest();
    const known = this.#verified.get(record.id);
    if (known && known.hash === record.hash) return timingSafeEqual(known.digest, digest);
    if (!(await verifySecret(secret, record))) return false;
    this.#verified.delete(record.id);
    this.#verified.set(record.id, { hash: record.hash, digest });
    if (this.#verified.size > VERIFIED_CACHE_SIZE) this.#verified.delete(this.#verified.keys().next().value!);
    return true;
  }

  async #touch(record: KeyRecord, now: number): Promise<void> {
    const last = Math.max(this.#touched.get(record.id) ?? -Infinity, record.lastUsedAt === null ? -Infinity : Date.parse(record.lastUsedAt));
    if (now - last < this.config.apiKeys.touchIntervalMs) return;
    this.#touched.set(record.id, now);
    await this.#keys?.touchKey(record.id, new Date(now).toISOString());
  }

  async #jwt(token: string): Promise<AuthOutcome> {
    const oidc = this.config.oidc;
    if (!oidc) return fail('INVALID_TOKEN', 'Access tokens are not accepted here (no OIDC issuer is configured).');
    const jwks = await this.#keySet(oidc);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: oidc.issuer,
        audience: oidc.audience,
        algorithms: oidc.algorithms,
        clockTolerance: oidc.clockToleranceSec,
        currentDate: new Date(this.#clock()),
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (code === 'ERR_JWT_EXPIRED') return fail('EXPIRED', 'The access token has expired.');
      if (typeof code === 'string' && BAD_TOKEN.has(code)) return fail('INVALID_TOKEN', `The access token was refused: ${errorMessage(err)}`);
      throw err;
    }
    const principal = principalFromClaims(payload, oidc, this.config.principals);
    if ('error' in principal) return fail('INVALID_TOKEN', `The access token was refused: ${principal.error}.`);
    // exp is required above; jose refuses the token once exp + tolerance has passed
    return { ok: true, principal, expiresAt: ((payload['exp'] as number) + oidc.clockToleranceSec) * 1000 };
  }

  /** The issuer's key set, made once (discovering its address first when not configured); a failed discovery is retried next time. */
  #keySet(oidc: ResolvedOidcConfig): Promise<JWTVerifyGetKey> {
    this.#jwks ??= (async () => {
      const uri = oidc.jwksUri ?? (await discoverJwksUri(oidc.issuer, oidc.jwksTimeoutMs));
      return createRemoteJWKSet(new URL(uri), { timeoutDuration: oidc.jwksTimeoutMs });
    })();
    return this.#jwks.catch((err: unknown) => {
      this.#jwks = undefined;
      throw err;
    });
  }
}

/** The `jwks_uri` of an issuer, from its OpenID discovery document (whose `issuer` must be the one configured). */
export async function discoverJwksUri(issuer: string, timeoutMs: number): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`OpenID discovery at ${url} answered ${res.status}`);
  const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (doc.issuer !== issuer) throw new Error(`OpenID discovery at ${url} names the issuer ${JSON.stringify(doc.issuer)}, not ${JSON.stringify(issuer)}`);
  if (typeof doc.jwks_uri !== 'string') throw new Error(`OpenID discovery at ${url} has no jwks_uri`);
  return doc.jwks_uri;
}
