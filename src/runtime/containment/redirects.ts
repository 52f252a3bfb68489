/**
 * What to do with a redirect, so a credential goes only to the origin it
 * was configured for: same origin, follow with credentials; another origin
 * (scheme, host or port differ; an https -> http downgrade included),
 * follow without them or refuse, as configured; a target the egress policy
 * refuses, or that is not http(s), refuse.
 * @module
 */
import type { EgressGuard } from './egress.js';

/** How redirects to another origin are treated. @default 'drop-credentials' */
export type CrossOriginRedirects = 'drop-credentials' | 'refuse';

/** What to do with one redirect hop. */
export type RedirectDecision =
  | { action: 'follow-with-credentials' }
  | { action: 'follow-without-credentials' }
  | { action: 'refuse'; reason: string };

/** Options of {@link redirectDecision}. */
export interface RedirectPolicy {
  crossOrigin?: CrossOriginRedirects;
  /** When given, a target it refuses by name is refused. */
  egress?: EgressGuard;
}

/** Headers that carry credentials and never cross origins. */
export const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie'];

/** True when both URLs have the same scheme, host and port. */
export function sameOrigin(a: string | URL, b: string | URL): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * Decide one redirect hop. `to` may be relative (a `Location` header); it is
 * resolved against `from`.
 * @example redirectDecision('https://a.test/x', 'https://b.test/y', {}) // { action: 'follow-without-credentials' }
 */
export function redirectDecision(from: string | URL, to: string | URL, policy: RedirectPolicy = {}): RedirectDecision {
  let target: URL;
  try {
    target = new URL(to, from);
  } catch {
    return { action: 'refuse', reason: `redirect to an invalid URL: ${String(to)}` };
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return { action: 'refuse', reason: `redirect to a ${target.protocol} URL` };
  if (target.username !== '' || target.password !== '') return { action: 'refuse', reason: 'redirect to a URL with credentials in it' };
  const egress = policy.egress?.check(target);
  if (egress && !egress.allowed) return { action: 'refuse', reason: `redirect refused by egress policy: ${egress.reason}` };
  if (sameOrigin(from, target)) return { action: 'follow-with-credentials' };
  if ((policy.crossOrigin ?? 'drop-credentials') === 'refuse') return { action: 'refuse', reason: `redirect to another origin (${target.origin})` };
  return { action: 'follow-without-credentials' };
}

/**
 * A copy of `headers` without the credential headers and the `extra` ones
 * (e.g. the http provider's `auth.name` header such as `x-api-key`).
 */
export function withoutCredentials(headers: Record<string, string>, extra: readonly string[] = []): Record<string, string> {
  const drop = new Set([...CREDENTIAL_HEADERS, ...extra.map((h) => h.toLowerCase())]);
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !drop.has(k.toLowerCase())));
}
