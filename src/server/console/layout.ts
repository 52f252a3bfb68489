/**
 * The page frame every console page shares: skip link, navigation with the
 * current page marked, who is signed in and a sign-out form, the one
 * stylesheet and the one script, and the headers a console answer carries
 * (a strict Content-Security-Policy: nothing but this origin's assets runs).
 * @module
 */
import type { Principal } from '../../runtime/identity/principal.js';
import { ASSETS } from './assets.js';
import { h, type Safe } from './html.js';

/** The console's navigation, in order. */
export const NAV = [
  { id: 'catalog', href: '/', label: 'Catalog' },
  { id: 'approvals', href: '/ui/approvals', label: 'Approvals' },
  { id: 'audit', href: '/ui/audit', label: 'Audit' },
  { id: 'health', href: '/ui/health', label: 'Health and sources' },
] as const;

export type NavId = (typeof NAV)[number]['id'] | 'login' | 'tool';

/** Headers on every console answer. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

export interface Frame {
  title: string;
  nav: NavId;
  /** Undefined: nobody signed in (the login page), or the trusted in-process caller. */
  principal?: Principal | undefined;
  /** The session's CSRF token, for the sign-out form. */
  csrf?: string;
  /** Whether signing out means anything (credentials are checked). */
  canSignOut?: boolean;
}

/** A whole page. */
export function layout(frame: Frame, body: Safe): Safe {
  const { principal } = frame;
  const who = principal
    ? h`<span class="who">Signed in as <strong>${principal.id}</strong> (${principal.roles.join(', ') || 'no roles'})${
        frame.canSignOut && frame.csrf ? h` <form method="post" action="/ui/logout"><input type="hidden" name="csrf" value="${frame.csrf}"><button type="submit">Sign out</button></form>` : ''
      }</span>`
    : '';
  const nav = frame.nav === 'login' ? '' : h`<nav aria-label="Console">${NAV.map((n) => h`<a href="${n.href}"${n.id === frame.nav ? h` aria-current="page"` : ''}>${n.label}</a> `)}</nav>`;
  return h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · toolcap</title><link rel="stylesheet" href="${ASSETS.css.path}"><link rel="icon" href="data:,"></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><strong>toolcap</strong>${nav}${who}</header>
<main id="main" tabindex="-1">${body}</main>
<script src="${ASSETS.js.path}" defer></script></body></html>`;
}

/** An HTML answer with the console's headers (and a session cookie, when one was opened). */
export function html(body: Safe, status = 200, setCookie?: string): Response {
  const headers = new Headers(CONSOLE_HEADERS);
  if (setCookie) headers.append('set-cookie', setCookie);
  return new Response(body.text, { status, headers });
}
