/**
 * Who is calling, and what they may do: the {@link Principal}, its roles, the
 * actions each role allows, the persona a principal may act as, and whether
 * it may decide a given approval. Pure functions over plain data; how a
 * principal is authenticated is `authenticate.ts`.
 * @module
 */

/** Every role, least to most powerful (the order in which they are shown). */
export const ROLES = ['caller', 'approver', 'admin'] as const;

/**
 * - `caller`: lists, searches and calls tools within its granted personas;
 *   sees only the approvals it asked for.
 * - `approver`: decides approvals for the personas and tools it is granted.
 * - `admin`: everything, including the audit log, keys and health detail.
 */
export type Role = (typeof ROLES)[number];

/** Every action a role can allow, in the order they are documented. */
export const ACTIONS = [
  'list',
  'search',
  'call',
  'approvals.read.own',
  'approvals.read.all',
  'approvals.decide',
  'audit.read',
  'keys.manage',
  'health.detail',
  'metrics.read',
  'tools.write',
  'workflows.work',
] as const;

export type Action = (typeof ACTIONS)[number];

/** How a principal proved who it is. */
export type AuthMethod = 'api-key' | 'oidc' | 'local';

/** The personas and tools an approver may decide; `*` stands for all. */
export interface ApproverGrants {
  personas: readonly string[];
  /** Tool names, `*`, or a namespace prefix such as `github.*`. */
  tools: readonly string[];
}

/** An authenticated caller. */
export interface Principal {
  /** Stable id: the key's principal, or the token's principal claim. */
  id: string;
  roles: readonly Role[];
  /** Personas it may act as; `*` grants every persona. */
  personas: readonly string[];
  /** The persona used when a request names none. */
  defaultPersona?: string;
  /** For approvers: what they may decide. */
  approves?: ApproverGrants;
  via: AuthMethod;
}

/** The wildcard of persona and tool grants. */
export const ALL = '*';

const CALLER: readonly Action[] = ['list', 'search', 'call', 'approvals.read.own'];
// an approver reviews tools without calling them, and reads every approval it could decide
const APPROVER: readonly Action[] = ['list', 'search', 'approvals.read.own', 'approvals.read.all', 'approvals.decide'];

/** The actions each role allows: the one table of permissions. */
export const ROLE_ACTIONS: Readonly<Record<Role, ReadonlySet<Action>>> = {
  caller: new Set(CALLER),
  approver: new Set(APPROVER),
  admin: new Set(ACTIONS),
};

/** Whether `value` names a role (for roles read from a key or a token). */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/**
 * Whether any of the principal's roles allows `action`.
 * @example can({ id: 'ci', roles: ['caller'], personas: ['atlas'], via: 'api-key' }, 'call') // true
 */
export function can(principal: Pick<Principal, 'roles'>, action: Action): boolean {
  return principal.roles.some((role) => ROLE_ACTIONS[role]?.has(action) === true);
}

/** The persona a request resolves to (null: no persona, shared tools only), or why it may not use the one it asked for. */
export type PersonaResolution =
  | { persona: string | null }
  | {
      /** `FORBIDDEN_PERSONA` (403): it exists but is not granted; `UNKNOWN_PERSONA` (404): no such persona. */
      error: 'FORBIDDEN_PERSONA' | 'UNKNOWN_PERSONA';
      /** The known personas this principal may use, sorted. */
      allowed: string[];
    };

/** The known personas the principal is granted, sorted by code point. */
export function allowedPersonas(principal: Pick<Principal, 'personas'>, known: Iterable<string>): string[] {
  const all = principal.personas.includes(ALL);
  return [...new Set(known)].filter((p) => all || principal.personas.includes(p)).sort(byCodePoint);
}

/**
 * The persona a principal acts as for a request.
 *
 * - No persona asked for (undefined, null or ''): the principal's default,
 *   or none when it has no default.
 * - Names are compared exactly, never case-folded or trimmed: `Intern` and
 *   `intern ` are not `intern`, so a grant cannot be stretched by spelling.
 * - A persona that is not known is UNKNOWN_PERSONA (checked first); a known
 *   one not granted is FORBIDDEN_PERSONA. Both list what it may use.
 * @example resolvePersona(p, 'atlas', ['atlas', 'ops']) // { persona: 'atlas' } when granted
 */
export function resolvePersona(
  principal: Pick<Principal, 'personas' | 'defaultPersona'>,
  requested: string | null | undefined,
  known: Iterable<string>,
): PersonaResolution {
  const knownSet = new Set(known);
  const wanted = requested === undefined || requested === null || requested === '' ? principal.defaultPersona : requested;
  if (wanted === undefined) return { persona: null };
  const allowed = allowedPersonas(principal, knownSet);
  if (!knownSet.has(wanted)) return { error: 'UNKNOWN_PERSONA', allowed };
  if (!allowed.includes(wanted)) return { error: 'FORBIDDEN_PERSONA', allowed };
  return { persona: wanted };
}

/** The parts of an approval a decision is judged by. */
export interface ApprovalSubject {
  tool: string;
  persona: string | null;
  /** The authenticated principal that asked, when known. */
  requestedByPrincipal?: string | undefined;
}

/** Why a principal may not decide an approval. */
export type DecisionRefusal = 'FORBIDDEN' | 'SELF_APPROVAL';

/**
 * Whether a principal may decide an approval: an admin may decide any, an
 * approver those within its grants, and nobody the one it asked for itself
 * (four eyes). An approval without a persona needs a `*` persona grant.
 */
export function mayDecide(principal: Principal, approval: ApprovalSubject): { ok: true } | { ok: false; reason: DecisionRefusal } {
  if (approval.requestedByPrincipal !== undefined && approval.requestedByPrincipal === principal.id) return { ok: false, reason: 'SELF_APPROVAL' };
  if (principal.roles.includes('admin')) return { ok: true };
  if (!can(principal, 'approvals.decide') || principal.approves === undefined) return { ok: false, reason: 'FORBIDDEN' };
  const { personas, tools } = principal.approves;
  const personaOk = personas.includes(ALL) || (approval.persona !== null && personas.includes(approval.persona));
  return personaOk && toolGranted(tools, approval.tool) ? { ok: true } : { ok: false, reason: 'FORBIDDEN' };
}

/** A tool matches `*`, its exact name, or a namespace prefix `ns.*` (which covers `ns.a` and `ns.a.b`). */
export function toolGranted(grants: readonly string[], tool: string): boolean {
  return grants.some((g) => g === ALL || g === tool || (g.endsWith('.*') && tool.startsWith(g.slice(0, -1))));
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What a principal is granted, as one comparable string (the order of grants
 * aside): two requests under the same id but different grants (a second key
 * of that principal, an OIDC token whose claims lost a persona) differ here.
 * @example grantsKey(a) === grantsKey(b) // same id, same roles, personas and approver grants
 */
export function grantsKey(principal: Principal): string {
  const sorted = (list: readonly string[] | undefined) => (list === undefined ? null : [...list].sort());
  return JSON.stringify([
    principal.id,
    principal.via,
    sorted(principal.roles),
    sorted(principal.personas),
    principal.defaultPersona ?? null,
    sorted(principal.approves?.personas),
    sorted(principal.approves?.tools),
  ]);
}
