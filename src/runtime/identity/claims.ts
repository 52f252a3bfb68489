/**
 * From a verified token's claims to a {@link Principal}: which claim names the
 * principal, its roles, personas and default persona (as configured), plus
 * the static grants configured for that principal id.
 * @module
 */
import type { ResolvedOidcConfig, StaticGrant } from './auth-config.js';
import { isRole, type Principal, type Role } from './principal.js';

/**
 * A claim's value: the key itself when present (`https://example.org/roles`
 * has dots), else a dotted path into nested objects (`realm_access.roles`).
 */
export function claimValue(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A list claim: an array of strings, or one string separated by spaces or commas (as `scope` is). Other values give []. */
export function claimList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((s) => s !== '');
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  return [];
}

const union = <T>(...lists: ReadonlyArray<readonly T[] | undefined>): T[] => [...new Set(lists.flatMap((l) => l ?? []))];

/**
 * The principal a token speaks for, or why it cannot be one (no usable
 * principal claim). Roles it does not know are ignored, never guessed at.
 */
export function principalFromClaims(
  claims: Readonly<Record<string, unknown>>,
  mapping: Pick<ResolvedOidcConfig, 'principalClaim' | 'rolesClaim' | 'personasClaim' | 'defaultPersonaClaim' | 'defaultRoles'>,
  grants: Readonly<Record<string, StaticGrant>>,
): Principal | { error: string } {
  const id = claimValue(claims, mapping.principalClaim);
  if (typeof id !== 'string' || id === '') return { error: `the token has no "${mapping.principalClaim}" claim naming the principal` };
  const grant = Object.hasOwn(grants, id) ? grants[id] : undefined;
  const claimed: Role[] = claimList(claimValue(claims, mapping.rolesClaim)).filter(isRole);
  const roles = union(claimed, grant?.roles);
  const claimedDefault = claimValue(claims, mapping.defaultPersonaClaim);
  const defaultPersona = typeof claimedDefault === 'string' && claimedDefault !== '' ? claimedDefault : grant?.defaultPersona;
  return {
    id,
    roles: roles.length ? roles : [...mapping.defaultRoles],
    personas: union(claimList(claimValue(claims, mapping.personasClaim)), grant?.personas),
    ...(defaultPersona !== undefined ? { defaultPersona } : {}),
    ...(grant?.approves ? { approves: grant.approves } : {}),
    via: 'oidc',
  };
}
