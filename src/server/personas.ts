/**
 * The persona a request acts as. The rule has one owner, identity's
 * `resolvePersona` (exact names, the principal's default when none is asked
 * for, 403 FORBIDDEN_PERSONA / 404 UNKNOWN_PERSONA naming the allowed
 * ones), reached through the runtime (which also knows the personas of
 * approval rules and config) or, for a catalog-only API, the same function
 * over the snapshot's personas. Without a principal nothing is resolved: the
 * library's trusted caller keeps today's behaviour.
 *
 * Catalog reads answer through the body cache, keyed by path and query, so
 * the resolved persona is written back into the query ({@link scopedQuery}):
 * two principals with different defaults never share an answer.
 * @module
 */
import type { Registry } from '../registry/registry.js';
import { personaFor } from '../runtime/admission.js';
import { ALL, type Principal } from '../runtime/identity/principal.js';
import type { Runtime } from '../runtime/runtime.js';
import { NO_SHARED } from '../query/filters.js';

/**
 * A persona no manifest can name (it holds a NUL): the view of a principal
 * that acts as no persona, which sees the shared tools only. Without it,
 * "no persona" would mean the operator's view of every tool.
 */
export const NO_PERSONA = '\u0000none';

/** The same resolution for a read, against the runtime's personas, or the snapshot's when the API has no runtime. */
function resolveFor(registry: Registry, runtime: Runtime | undefined, principal: Principal, requested: string | undefined): string | undefined {
  return runtime ? runtime.resolvePersona(principal, requested) : personaFor(principal, requested, registry.snapshot().personas);
}

/**
 * The query a catalog read is answered for, with the principal's personas
 * in it: every `persona` asked for is resolved (and refused if not granted),
 * and a request naming none gets the principal's default, or
 * {@link NO_PERSONA} (shared tools only) unless the principal is granted
 * every persona. Undefined without a principal: the request's own query.
 * `-shared` (the `/tools` filter token) passes through when `many`.
 * @example scopedQuery(registry, runtime, intern, new URLSearchParams(''), true) // persona=intern (its default)
 */
export function scopedQuery(
  registry: Registry,
  runtime: Runtime | undefined,
  principal: Principal | undefined,
  query: URLSearchParams,
  many: boolean,
): URLSearchParams | undefined {
  if (principal === undefined) return undefined;
  const asked = query.getAll('persona');
  const scoped = new URLSearchParams([...query].filter(([k]) => k !== 'persona'));
  // empty values are left for the parameter parser to refuse
  const named = asked.filter((p) => p !== '' && !(many && p === NO_SHARED));
  if (named.length > 0) {
    for (const p of asked) scoped.append('persona', p === '' || (many && p === NO_SHARED) ? p : (resolveFor(registry, runtime, principal, p) ?? p));
    return scoped;
  }
  const fallback = resolveFor(registry, runtime, principal, undefined);
  if (fallback !== undefined) scoped.append('persona', fallback);
  else if (!principal.personas.includes(ALL)) scoped.append('persona', NO_PERSONA);
  for (const p of asked) scoped.append('persona', p);
  return scoped;
}

/** A persona as a message shows it ({@link NO_PERSONA} reads "no persona"). */
export const shownPersona = (persona: string): string => (persona === NO_PERSONA ? 'no persona' : `persona "${persona}"`);
