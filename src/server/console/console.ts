/**
 * The web console, mounted at `/` beside the API: the catalog at `/`, the
 * other pages under `/ui/`. It sits behind the same Host/Origin guard as
 * every route (app.ts puts it first) and the same authentication and roles:
 * a session ({@link Sessions}) re-authenticates its credential through the
 * API's `authenticate` on every request, and each page checks the action
 * its API twin checks (`list`, `search`, `approvals.read.own`,
 * `approvals.decide`, `audit.read`, `health.detail`). Every form posts its
 * session's CSRF token.
 *
 * Pages call the service functions the JSON API calls (query/views.ts,
 * the runtime's approvals, the store's audit), so both answer the same.
 * @module
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { can, type Action } from '../../runtime/identity/principal.js';
import { repeatedParameters, singleQueryParameters, type ApiContext } from '../context.js';
import { ROUTES } from '../route-table.js';
import { ASSETS } from './assets.js';
import { approvalsEvents, approvalsPage, decide } from './approvals-page.js';
import { auditPage } from './audit-page.js';
import { CATALOG_PARAMS, catalogPage } from './catalog-page.js';
import { healthPage } from './health-page.js';
import { ChangeHistory } from './history.js';
import { h } from './html.js';
import { html, layout, type NavId } from './layout.js';
import { loginPage, loginSubmit } from './login.js';
import { OidcLogin } from './oidc-login.js';
import type { ConsoleOptions } from './options.js';
import type { PageEnv, PageResult } from './page.js';
import { Sessions, sameToken, type ConsoleUser } from './session.js';
import { toolPage } from './tool-page.js';

export type { ConsoleOptions } from './options.js';

type Page = (env: PageEnv) => Promise<PageResult> | PageResult;

/** Largest form body, bytes. */
const FORM_LIMIT = 64 * 1024;

/**
 * The query parameters each page reads one value of: those its API twin takes once (the route table's, through
 * the same {@link singleQueryParameters}), and the page's own. Given twice, the page is a 400 naming them, as the
 * API answers 400 BAD_PARAMETER: `URLSearchParams.get` reads the first value, so `?status=pending&status=denied`
 * showed the pending queue while whatever read the URL in front (a proxy's rule, a log, a reviewer) saw `denied`.
 */
const ONCE = {
  // the form's filters as /tools and /search take them (persona repeats there, and here)
  catalog: CATALOG_PARAMS.filter((k) => [...singleQueryParameters(ROUTES.listTools), ...singleQueryParameters(ROUTES.search)].includes(k)),
  tool: singleQueryParameters(ROUTES.getTool),
  approvals: [...singleQueryParameters(ROUTES.listApprovals), 'fragment'],
  audit: [...singleQueryParameters(ROUTES.audit), 'principal', 'outcome', 'from', 'to'],
} as const;

/** The console as a Hono app, to be mounted at `/`. */
export function consoleRoutes(ctx: ApiContext, options: ConsoleOptions): Hono {
  const app = new Hono({ strict: false });
  // TLS may end at a proxy in front, so toolcap sees http: an https redirect URI, or only https origins allowed
  // (a form from any other is refused), say browsers use HTTPS, and a cookie without Secure would also go out over plain http
  const origins = ctx.options.allowedOrigins;
  const httpsOnly = options.oidcLogin?.redirectUri.startsWith('https:') === true || (origins !== undefined && origins.length > 0 && origins.every((o) => /^https:\/\//i.test(o.trim())));
  const sessions = new Sessions(ctx.options.auth, { secure: httpsOnly, ...options.sessions });
  const history = new ChangeHistory(ctx.registry);
  const signIn = options.signIn ?? ctx.options.auth !== undefined;

  for (const a of Object.values(ASSETS)) {
    app.get(a.path, () => new Response(a.body, { headers: { 'content-type': a.type, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' } }));
  }

  // a console form is a few fields: a larger body is refused before it is read
  app.post('/ui/*', bodyLimit({ maxSize: FORM_LIMIT, onError: () => refuse(413, 'The form is too large.') }));
  const issuer = ctx.options.auth?.resourceMetadata?.authorizationServers[0];
  const oidc = options.oidcLogin && ctx.options.auth ? new OidcLogin(options.oidcLogin, sessions) : undefined;
  const choices = { issuer: oidc?.issuer ?? issuer, browserLogin: oidc !== undefined };
  app.get('/ui/login', (c) => loginPage(c, sessions, choices));
  app.post('/ui/login', (c) => loginSubmit(c, sessions, choices));
  if (oidc) {
    app.get('/ui/login/oidc', (c) => oidc.start(c));
    app.get('/ui/login/callback', (c) => oidc.callback(c));
  }
  app.post('/ui/logout', async (c) => {
    const form = await c.req.parseBody();
    const who = await sessions.user(c.req.raw);
    if (!who.ok || !sameToken(String(form['csrf'] ?? ''), who.user.csrf)) return refuse(403, 'The form is out of date; reload the page and try again.');
    return new Response(null, { status: 303, headers: { location: '/ui/login', 'set-cookie': sessions.logout(c.req.raw) } });
  });

  /** A page behind a session and an action; `post` pages check the CSRF token first; a parameter of `once` given twice is a 400. */
  const page = (nav: NavId, action: Action, handler: Page, post = false, once: readonly string[] = []) => async (c: Context) => {
    const url = new URL(c.req.url);
    const who = await sessions.user(c.req.raw);
    if (!who.ok) {
      if (who.code === 'UNAVAILABLE') return refuse(503, `Credentials cannot be checked now: ${who.message}`);
      if (post) return refuse(401, 'Your session has ended; sign in again.');
      return new Response(null, { status: 303, headers: { location: `/ui/login?next=${encodeURIComponent(url.pathname + url.search)}` } });
    }
    const { user } = who;
    const frame = { nav, principal: user.principal, csrf: user.csrf, canSignOut: signIn };
    if (user.principal && !can(user.principal, action)) {
      return html(layout({ ...frame, title: 'Not allowed' }, h`<h1>Not allowed</h1><p>"${user.principal.id}" (roles: ${user.principal.roles.join(', ') || 'none'}) may not ${action}.</p>`), 403, user.setCookie);
    }
    const repeated = repeatedParameters(url.searchParams, once);
    if (repeated.length > 0) {
      return html(layout({ ...frame, title: 'Bad request' }, h`<h1>Bad request</h1><p class="diag" role="alert">${repeated.map((p) => `${p.parameter}: ${p.message}`).join(' ')} The page did not pick one of the values.</p><p><a href="/">Back to the console</a></p>`), 400, user.setCookie);
    }
    if (post) {
      const form = await c.req.parseBody();
      if (!sameToken(String(form['csrf'] ?? ''), user.csrf)) return refuse(403, 'The form is out of date (CSRF token mismatch); reload the page and try again.');
    }
    const stillSignedIn = () => sessions.check(c.req.raw);
    const result = await handler({ ctx, options, history, user, url, c, stillSignedIn });
    if (result instanceof Response) {
      if (user.setCookie) result.headers.append('set-cookie', user.setCookie);
      return result;
    }
    return html(layout({ ...frame, title: result.title }, result.body), result.status ?? 200, user.setCookie);
  };

  app.get('/', page('catalog', 'list', catalogPage, false, ONCE.catalog));
  app.get('/ui', (c) => c.redirect('/', 303));
  app.get('/ui/tools/:name', page('tool', 'list', toolPage, false, ONCE.tool));
  app.get('/ui/approvals', page('approvals', 'approvals.read.own', approvalsPage, false, ONCE.approvals));
  app.get('/ui/approvals/events', page('approvals', 'approvals.read.own', approvalsEvents));
  app.post('/ui/approvals/:id/:decision{approve|deny}', page('approvals', 'approvals.decide', decide, true));
  app.get('/ui/audit', page('audit', 'audit.read', auditPage, false, ONCE.audit));
  app.get('/ui/health', page('health', 'health.detail', healthPage));
  return app;
}

/** A short refusal page. */
function refuse(status: number, message: string): Response {
  return html(layout({ title: 'Refused', nav: 'login' }, h`<h1>Refused</h1><p class="error">${message}</p><p><a href="/">Back to the console</a></p>`), status);
}
