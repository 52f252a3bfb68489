/**
 * Signing in: a form that takes what the API takes as a bearer credential,
 * an API key (`toolcap keys create`) or an access token from the configured
 * OIDC provider, pasted (the fallback for a headless setup); and, when the
 * console has a client at that provider, a "Sign in with <issuer>" link
 * to the browser sign-in (oidc-login.ts). The form carries a token also set as a short-lived
 * `HttpOnly`, `SameSite=Strict` cookie; a post whose two do not match is
 * refused (login CSRF). `next` only ever leads back into the console.
 * @module
 */
import type { Context } from 'hono';
import { h } from './html.js';
import { html, layout } from './layout.js';
import { cookie, cookieValue, LOGIN_COOKIE, loginToken, sameToken, type Sessions } from './session.js';

/** A `next` that stays on this origin and in the console: a path, never `//host` or a URL. */
export function safeNext(next: string | undefined): string {
  if (next === undefined || !/^\/(?![/\\])[^\s]*$/.test(next)) return '/';
  // it becomes a Location header, which holds bytes: a character beyond ASCII or a control one threw there (a 500
  // after the session was made), so they go percent-encoded, as Hono's redirect does; a lone surrogate is no path
  try {
    return next.replace(/[^\x20-\x7e]+/g, encodeURIComponent);
  } catch {
    return '/';
  }
}

/** What the login page offers besides the form: the issuer of accepted access tokens, and whether its browser sign-in is configured. */
export interface LoginChoices {
  issuer?: string | undefined;
  browserLogin?: boolean;
}

function form(c: Context, sessions: Sessions, next: string, choices: LoginChoices, message?: string, status = 200): Response {
  const token = loginToken();
  const { issuer } = choices;
  const browser = choices.browserLogin && issuer !== undefined
    ? h`<p><a class="button" href="/ui/login/oidc?next=${encodeURIComponent(next)}">Sign in with ${issuer}</a></p><p class="muted">Or, without a browser sign-in:</p>`
    : '';
  const body = h`<div class="login"><h1>Sign in to toolcap</h1>
${message ? h`<p class="error" role="alert">${message}</p>` : ''}
${browser}<form method="post" action="/ui/login">
<input type="hidden" name="csrf" value="${token}"><input type="hidden" name="next" value="${next}">
<label for="credential">API key or access token</label>
<input id="credential" name="credential" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button></form>
<p class="muted">Use an API key (<code>toolcap keys create</code>)${issuer ? h` or an access token issued by <code>${issuer}</code>` : ''}; the console keeps it on the server, never in the page.</p></div>`;
  return html(layout({ title: 'Sign in', nav: 'login' }, body), status, cookie(sessions.cookieName(LOGIN_COOKIE, c.req.raw), token, sessions.secure(c.req.raw), 600));
}

/** `GET /ui/login`: the form (or, already signed in, where `next` leads). */
export async function loginPage(c: Context, sessions: Sessions, choices: LoginChoices = {}): Promise<Response> {
  const next = safeNext(c.req.query('next'));
  const who = await sessions.user(c.req.raw);
  if (who.ok && who.user.principal !== undefined && sessions.sessionId(c.req.raw) !== undefined) return c.redirect(next, 303);
  return form(c, sessions, next, choices);
}

/** `POST /ui/login`: check the form token, authenticate the credential, open a session. */
export async function loginSubmit(c: Context, sessions: Sessions, choices: LoginChoices = {}): Promise<Response> {
  const body = await c.req.parseBody();
  const next = safeNext(typeof body['next'] === 'string' ? body['next'] : undefined);
  if (!sameToken(typeof body['csrf'] === 'string' ? body['csrf'] : undefined, cookieValue(c.req.header('cookie'), sessions.cookieName(LOGIN_COOKIE, c.req.raw)))) {
    return form(c, sessions, next, choices, 'The sign-in form was out of date; try again.', 403);
  }
  const credential = typeof body['credential'] === 'string' ? body['credential'].trim() : '';
  if (credential === '' || /\s/.test(credential)) return form(c, sessions, next, choices, 'Paste an API key or an access token.', 400);
  const outcome = await sessions.login(c.req.raw, credential);
  if (!outcome.ok) return form(c, sessions, next, choices, outcome.code === 'UNAVAILABLE' ? `Credentials cannot be checked now: ${outcome.message}` : `Not signed in: ${outcome.message}`, outcome.code === 'UNAVAILABLE' ? 503 : 401);
  const headers = new Headers({ location: next });
  headers.append('set-cookie', outcome.setCookie);
  headers.append('set-cookie', cookie(sessions.cookieName(LOGIN_COOKIE, c.req.raw), '', sessions.secure(c.req.raw), 0));
  return new Response(null, { status: 303, headers });
}
