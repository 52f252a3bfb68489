/**
 * Admission of a call by an authenticated principal, before anything else
 * happens: may it call at all (`can(principal, 'call')`), is it within its
 * rate limit, and which persona does it act as (granted, known, matched
 * exactly). A call without a principal (a trusted in-process caller) is
 * admitted as it asks.
 * @module
 */
import { CallError } from './errors.js';
import { can, resolvePersona, type Principal } from './identity/principal.js';
import { CallRateLimiter, type RateLimitConfig } from './identity/rate-limit.js';

export interface AdmissionOptions {
  /** Per-principal call limits; absent: no limit. */
  rateLimit?: RateLimitConfig | undefined;
  /** Every persona there is (catalog, rules, config), read at each call. */
  knownPersonas: () => string[];
}

/**
 * The persona a principal acts as, through identity's one rule
 * (`resolvePersona`): undefined for none (shared tools only). Throws
 * FORBIDDEN_PERSONA or UNKNOWN_PERSONA with the personas it may use.
 * @example personaFor(principal, 'Intern', ['intern']) // throws UNKNOWN_PERSONA: names match exactly
 */
export function personaFor(principal: Principal, requested: string | null | undefined, known: Iterable<string>): string | undefined {
  const r = resolvePersona(principal, requested, known);
  if ('persona' in r) return r.persona ?? undefined;
  const may = r.allowed.length > 0 ? `it may use ${r.allowed.map((p) => `"${p}"`).join(', ')}` : 'it may use none';
  const message =
    r.error === 'UNKNOWN_PERSONA'
      ? `There is no persona "${String(requested ?? principal.defaultPersona)}"; ${may}.`
      : `Principal "${principal.id}" may not act as persona "${String(requested ?? principal.defaultPersona)}"; ${may}.`;
  throw new CallError(r.error, message, { allowed: r.allowed });
}

/**
 * Admits calls.
 * @example const persona = await admission.admit(principal, 'atlas');
 */
export class Admission {
  readonly #limiter: CallRateLimiter | undefined;
  readonly #known: () => string[];

  constructor(options: AdmissionOptions) {
    this.#limiter = options.rateLimit ? new CallRateLimiter(options.rateLimit) : undefined;
    this.#known = options.knownPersonas;
  }

  /** The persona the call runs as; throws FORBIDDEN, RATE_LIMITED, FORBIDDEN_PERSONA or UNKNOWN_PERSONA. */
  async admit(principal: Principal, requested: string | undefined): Promise<string | undefined> {
    if (!can(principal, 'call')) throw new CallError('FORBIDDEN', `Principal "${principal.id}" may not call tools (roles: ${principal.roles.join(', ') || 'none'}).`);
    if (this.#limiter) {
      const d = await this.#limiter.consume(principal.id);
      if (!d.ok) {
        throw new CallError('RATE_LIMITED', `Principal "${principal.id}" made too many calls; retry in ${Math.ceil(d.retryAfterMs / 1000)} s.`, { retryAfterMs: d.retryAfterMs });
      }
    }
    return personaFor(principal, requested, this.#known());
  }
}
