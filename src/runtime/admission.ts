/**
 * Admission of a call by an authenticated principal, before anything else
 * happens: may it call at all (`can(principal, 'call')`), is it within its
 * rate limit, and which persona does it act as (granted, known, matched
 * exactly). A call without a principal (a trusted in-process caller) is
 * admitted as it asks.
 * @module
 */
import type { ApprovalRule } from './approval-rules.js';
import { CallError } from './errors.js';
import { can, resolvePersona, type Principal } from './identity/principal.js';
import { CallRateLimiter, type RateLimitConfig } from './identity/rate-limit.js';

export interface AdmissionOptions {
  /** Per-principal call limits; absent: no limit. */
  rateLimit?: RateLimitConfig | undefined;
  /** The catalog's personas now (the serving snapshot's). */
  catalogPersonas: () => readonly string[];
  /** The approval rules: the personas they name are known too. */
  rules: readonly ApprovalRule[];
  /** Extra persona names (config). */
  personas?: readonly string[] | undefined;
}

/** The parts of a call's context admission reads and sets. */
interface Asking {
  principal?: Principal;
  persona?: string;
  caller?: string;
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
  readonly #o: AdmissionOptions;

  constructor(options: AdmissionOptions) {
    this.#limiter = options.rateLimit ? new CallRateLimiter(options.rateLimit) : undefined;
    this.#o = options;
  }

  /** Every persona there is: the catalog's, those the rules name, and the extra names. Sorted by code point. */
  knownPersonas(): string[] {
    const names = new Set<string>([...this.#o.catalogPersonas(), ...(this.#o.personas ?? [])]);
    for (const rule of this.#o.rules) for (const p of rule.personas ?? []) names.add(p);
    return [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The persona a request acts as ({@link personaFor}); without a principal, the one asked for. */
  resolvePersona(principal: Principal | undefined, requested: string | null | undefined): string | undefined {
    if (principal === undefined) return requested === null || requested === '' ? undefined : requested;
    return personaFor(principal, requested, this.knownPersonas());
  }

  /**
   * The context a call runs with. Without a principal, as given. With one:
   * FORBIDDEN unless it may call, RATE_LIMITED over its limit, its persona
   * resolved, and it as the caller (a `caller` name given is ignored).
   */
  async admit<C extends Asking>(context: C): Promise<C> {
    const { principal } = context;
    if (principal === undefined) return context;
    if (!can(principal, 'call')) throw new CallError('FORBIDDEN', `Principal "${principal.id}" may not call tools (roles: ${principal.roles.join(', ') || 'none'}).`);
    if (this.#limiter) {
      const d = await this.#limiter.consume(principal.id);
      if (!d.ok) {
        throw new CallError('RATE_LIMITED', `Principal "${principal.id}" made too many calls; retry in ${Math.ceil(d.retryAfterMs / 1000)} s.`, { retryAfterMs: d.retryAfterMs });
      }
    }
    const persona = personaFor(principal, context.persona, this.knownPersonas());
    const { persona: _asked, ...rest } = context;
    return { ...rest, caller: principal.id, ...(persona !== undefined ? { persona } : {}) } as C;
  }
}
