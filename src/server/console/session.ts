/**
 * Console sessions. A browser logs in once with what the API takes as a
 * bearer credential (an API key, or an access token of the configured OIDC
 * provider); the server keeps it, keyed by an unguessable session id sent
 * back as a cookie that scripts cannot read (`HttpOnly`) and other sites
 * cannot send (`SameSite=Strict`). Every request re-authenticates the kept
 * credential through the API's own `authenticate`, so a revoked key or an
 * expired token ends the session (unless the session can renew it: a
 * browser sign-in's refresh token) and roles are always today's. In local
 * mode (or without auth) a session is opened on the first visit.
 *
 * Every form carries the session's CSRF token, compared in constant time;
 * the login form, before there is a session, a token also set as a
 * short-lived cookie (double submit).
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthOutcome } from '../../runtime/identity/authenticate.js';
import type { Principal } from '../../runtime/identity/principal.js';
import type { ApiAuth } from '../auth.js';

/** The session cookie's name (over plain http; over TLS it is {@link cookieName}'s `__Host-toolcap_session`). */
export const SESSION_COOKIE = 'toolcap_session';
/** The login form's double-submit cookie (`__Host-toolcap_login` over TLS). */
export const LOGIN_COOKIE = 'toolcap_login';

/**
 * A cookie's name for a request: `__Host-<name>` when its cookies are
 * `Secure` (the console is served over TLS), else `<name>`. Browsers accept a
 * `__Host-` cookie only when it is Secure, for `Path=/` and without a
 * `Domain`, from this host itself: a sibling subdomain (`evil.example.org`
 * beside `toolcap.example.org`) or a plain-http page of the same name cannot
 * set or overwrite it (cookie tossing: planting a session of its own, or
 * the double-submit token of the login form). A secure request reads only the
 * prefixed name, so a tossed plain one is never taken. Over plain http on
 * localhost the plain name stays (browsers refuse `__Host-` without Secure).
 * @example cookieName('toolcap_session', true) // '__Host-toolcap_session'
 */
export function cookieName(name: string, secure: boolean): string {
  return secure ? `__Host-${name}` : name;
}

interface Session {
  /** The Authorization header value to authenticate with; undefined: the request's own (local mode). */
  authorization: string | undefined;
  /** Whose it is (the principal's id; '' without auth), so one principal's sessions are capped apart from others'. */
  readonly owner: string;
  readonly csrf: string;
  expiresAt: number;
  /** When the session ends however busy it is (its absolute lifetime). */
  readonly endsAt: number;
  /** Gets a fresh access token when the kept one has expired (a browser sign-in's refresh token). */
  readonly renew?: Renew;
  /** A renewal under way, shared by the requests that wait for it. */
  renewing?: Promise<string | undefined> | undefined;
}

/** A fresh access token, or undefined when none can be had (the session then ends). */
export type Renew = () => Promise<string | undefined>;

/** Who a console request is: a principal (undefined without auth: the trusted in-process caller) and the session's CSRF token. */
export interface ConsoleUser {
  readonly principal: Principal | undefined;
  readonly csrf: string;
  /** Set-Cookie value of a session opened by this request, if one was. */
  readonly setCookie?: string;
}

export interface SessionOptions {
  /** Idle lifetime. @default 8 hours */
  idleMs?: number;
  /**
   * Absolute lifetime, however busy the session is: a browser sign-in renews
   * its access token by the refresh token, so without it a session could
   * outlive every credential check the provider makes only at sign-in (its
   * login, its MFA). @default 24 hours
   */
  maxAgeMs?: number;
  /** Sessions kept at most (the oldest goes first). @default 10000 */
  max?: number;
  /** Sessions one principal may hold at most (its own oldest goes first), so no principal can push out others'. @default 20 */
  maxPerPrincipal?: number;
  /** @default Date.now */
  clock?: () => number;
  /** Set every cookie `Secure`, even on a plain-http request: browsers reach the console over HTTPS at a proxy that ends TLS. @default false (Secure over https only) */
  secure?: boolean;
}

const token = () => randomBytes(32).toString('base64url');

/** Constant-time string equality. */
export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || a.length !== b.length || a === '') return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** One cookie's value from a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A Set-Cookie value: HttpOnly, SameSite=Strict, Path=/, Secure over HTTPS; `maxAge` 0 deletes. */
export function cookie(name: string, value: string, secure: boolean, maxAgeSec?: number): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}${maxAgeSec !== undefined ? `; Max-Age=${maxAgeSec}` : ''}`;
}

/** The sessions of one console, in memory (a restart logs everyone out). */
export class Sessions {
  readonly #auth: ApiAuth | undefined;
  readonly #sessions = new Map<string, Session>();
  readonly #idleMs: number;
  readonly #maxAgeMs: number;
  readonly #max: number;
  readonly #maxPerPrincipal: number;
  readonly #clock: () => number;
  readonly #secure: boolean;

  constructor(auth: ApiAuth | undefined, options: SessionOptions = {}) {
    this.#auth = auth;
    this.#idleMs = options.idleMs ?? 8 * 3600 * 1000;
    this.#maxAgeMs = options.maxAgeMs ?? 24 * 3600 * 1000;
    this.#max = options.max ?? 10_000;
    this.#maxPerPrincipal = options.maxPerPrincipal ?? 20;
    this.#clock = options.clock ?? Date.now;
    this.#secure = options.secure ?? false;
  }

  /** Whether a cookie set in answer to this request is `Secure`: over https, or always when the console is known to be served over HTTPS. */
  secure(request: Request): boolean {
    return this.#secure || isHttps(request);
  }

  /** The name a cookie is set and read under for this request ({@link cookieName}: `__Host-` when Secure). */
  cookieName(name: string, request: Request): string {
    return cookieName(name, this.secure(request));
  }

  /** This request's session id: the cookie of the name its security says, never the other. */
  sessionId(request: Request): string | undefined {
    return cookieValue(request.headers.get('cookie') ?? undefined, this.cookieName(SESSION_COOKIE, request));
  }

  /** The Set-Cookie value of session `id` (`''` with `maxAgeSec` 0 deletes it). */
  #sessionCookie(request: Request, id: string, maxAgeSec?: number): string {
    return cookie(this.cookieName(SESSION_COOKIE, request), id, this.secure(request), maxAgeSec);
  }

  /**
   * Who is asking: the session's principal, re-authenticated; else, with no
   * session, whoever the request itself authenticates as. Local mode (no
   * Authorization header) opens a session, so its forms have a token; a
   * bearer header does not (it is answered for this request only, and
   * cannot post forms: only `login` opens sessions for credentials). A
   * failed authentication is returned as is: the console shows the login page.
   */
  async user(request: Request): Promise<{ ok: true; user: ConsoleUser } | (AuthOutcome & { ok: false })> {
    const id = this.sessionId(request);
    const session = id === undefined ? undefined : this.#live(id);
    if (session && id !== undefined) {
      const outcome = await this.#authenticateSession(request, session);
      if (!outcome.ok) {
        // a refused credential ends the session; one that cannot be checked now (503) may be fine: the session stays
        // (deleting it signed everyone out at a store or issuer hiccup, and lost a browser sign-in's refresh token)
        if (outcome.code !== 'UNAVAILABLE') this.#sessions.delete(id);
        return outcome;
      }
      session.expiresAt = this.#clock() + this.#idleMs;
      return { ok: true, user: { principal: outcome.principal, csrf: session.csrf } };
    }
    const authorization = request.headers.get('authorization') ?? undefined;
    const outcome = await this.#authenticate(request, authorization);
    if (!outcome.ok) return outcome;
    // a bearer request is answered as itself: no session, and no form token (an empty one never matches)
    if (authorization !== undefined) return { ok: true, user: { principal: outcome.principal, csrf: '' } };
    const opened = this.#open(undefined, outcome.principal?.id ?? '');
    return { ok: true, user: { principal: outcome.principal, csrf: opened.csrf, setCookie: this.#sessionCookie(request, opened.id) } };
  }

  /** Whether the request still authenticates (its session's credential, else its own), opening no session. */
  async check(request: Request): Promise<boolean> {
    const id = this.sessionId(request);
    const session = id === undefined ? undefined : this.#live(id);
    const outcome = session ? await this.#authenticateSession(request, session) : await this.#authenticate(request, request.headers.get('authorization') ?? undefined);
    return outcome.ok;
  }

  /** Log in with a credential: a session when it authenticates, else the refusal. */
  async login(request: Request, credential: string, renew?: Renew): Promise<{ ok: true; setCookie: string; principal: Principal | undefined } | (AuthOutcome & { ok: false })> {
    const authorization = `Bearer ${credential.trim()}`;
    const outcome = await this.#authenticate(request, authorization);
    if (!outcome.ok) return outcome;
    const opened = this.#open(authorization, outcome.principal?.id ?? '', renew);
    return { ok: true, principal: outcome.principal, setCookie: this.#sessionCookie(request, opened.id) };
  }

  /** End the request's session; the Set-Cookie that deletes the cookie. */
  logout(request: Request): string {
    const id = this.sessionId(request);
    if (id !== undefined) this.#sessions.delete(id);
    return this.#sessionCookie(request, '', 0);
  }

  async #authenticate(request: Request, authorization: string | undefined): Promise<AuthOutcome | { ok: true; principal: undefined }> {
    if (!this.#auth) return { ok: true, principal: undefined };
    const headers = new Headers(authorization === undefined ? {} : { authorization });
    return this.#auth.authenticate(new Request(request.url, { headers }));
  }

  /** The session's credential, renewed once when it has expired and the session can renew it. */
  async #authenticateSession(request: Request, session: Session): Promise<AuthOutcome | { ok: true; principal: undefined }> {
    const outcome = await this.#authenticate(request, session.authorization);
    if (outcome.ok || outcome.code !== 'EXPIRED' || !session.renew) return outcome;
    session.renewing ??= session.renew().catch(() => undefined).finally(() => (session.renewing = undefined));
    const fresh = await session.renewing;
    if (fresh === undefined) return outcome;
    session.authorization = `Bearer ${fresh}`;
    return this.#authenticate(request, session.authorization);
  }

  #live(id: string): Session | undefined {
    const session = this.#sessions.get(id);
    const now = this.#clock();
    if (session && (session.expiresAt <= now || session.endsAt <= now)) {
      this.#sessions.delete(id);
      return undefined;
    }
    return session;
  }

  #open(authorization: string | undefined, owner: string, renew?: Renew): { id: string; csrf: string } {
    // a credential's principal loses its own oldest sessions first, so it cannot push out others'
    // (local mode has one principal and no credential: only the global cap applies)
    if (authorization !== undefined) {
      const own = [...this.#sessions].filter(([, s]) => s.owner === owner).map(([id]) => id);
      for (let i = 0; i <= own.length - this.#maxPerPrincipal; i++) this.#sessions.delete(own[i] as string);
    }
    while (this.#sessions.size >= this.#max) this.#sessions.delete(this.#sessions.keys().next().value as string);
    const id = token();
    const csrf = token();
    const now = this.#clock();
    this.#sessions.set(id, { authorization, owner, csrf, expiresAt: now + this.#idleMs, endsAt: now + this.#maxAgeMs, ...(renew ? { renew } : {}) });
    return { id, csrf };
  }
}

/** A fresh login-form token. */
export const loginToken = token;

/** Whether the request came over HTTPS (the cookie is then `Secure`). */
export const isHttps = (request: Request): boolean => new URL(request.url).protocol === 'https:';
