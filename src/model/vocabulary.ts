/**
 * Closed vocabularies of the canonical model, each defined once with its order.
 *
 * Every ordered vocabulary lists its values so that moving right is an
 * escalation: more effect, more risk, less reversibility, more cost, more
 * automatic repetition (RETRY_CLASSES: never < guarded < safe). For all but
 * retry classes that is also "more restrictive to allow"; for retry classes
 * the cautious end is the left one.
 * @module
 */

/**
 * ATLAS side-effect categories, least to most severe. Ordered by blast radius
 * outside the agent process: `compute` stays inside our infrastructure, reads
 * leave the trust boundary, `network` is open-ended I/O, `filesystem` and
 * `database` may mutate durable local state, `write` mutates remote state and
 * `system` is privileged.
 */
export const SIDE_EFFECTS = [
  'none',
  'compute',
  'read_external_service',
  'network',
  'filesystem',
  'database',
  'write',
  'system',
] as const;
export type SideEffect = (typeof SIDE_EFFECTS)[number];

/** Risk levels, least to most severe. */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** Whether a tool reads, writes, or does both. `mixed` is treated as write for safety. */
export const MODES = ['read', 'mixed', 'write'] as const;
export type Mode = (typeof MODES)[number];

/** How far an effect can be undone, from fully to not at all. */
export const REVERSIBILITY = ['full', 'partial', 'none'] as const;
export type Reversibility = (typeof REVERSIBILITY)[number];

/**
 * Retry classes, from the most cautious to the most permissive:
 * `never` (no automatic retry), `guarded` (only with an idempotency key or a
 * failure that provably happened before the side effect), `safe` (retry freely).
 * Moving right is an escalation: more automatic repetition of effects.
 */
export const RETRY_CLASSES = ['never', 'guarded', 'safe'] as const;
export type RetryClass = (typeof RETRY_CLASSES)[number];

/** Cost lanes, cheapest first. */
export const COST_LANES = ['free', 'low', 'medium', 'high'] as const;
export type CostLane = (typeof COST_LANES)[number];

/** Authentication kinds. */
export const AUTH_TYPES = ['none', 'api_key', 'oauth2', 'bearer', 'basic', 'other'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

/** Xena `surface.domains`. */
export const SURFACE_DOMAINS = [
  'coding',
  'research',
  'communication',
  'tasks',
  'workflow',
  'memory',
  'project_management',
  'observability',
  'integration',
] as const;
export type SurfaceDomain = (typeof SURFACE_DOMAINS)[number];

/** Xena `surface.operations`. */
export const SURFACE_OPERATIONS = [
  'probe',
  'list',
  'read',
  'start',
  'stop',
  'restart',
  'execute',
  'analyze',
  'classify',
  'reply',
  'comment',
  'verify',
  'write',
  'search',
] as const;
export type SurfaceOperation = (typeof SURFACE_OPERATIONS)[number];

/** Xena `surface.taskRoles`. */
export const TASK_ROLES = ['source', 'controller', 'observer'] as const;
export type TaskRole = (typeof TASK_ROLES)[number];

/** Pylot `audit_status`. */
export const AUDIT_STATUSES = ['experimental', 'trusted'] as const;
export type AuditStatus = (typeof AUDIT_STATUSES)[number];

/** Index of `value` in an ordered vocabulary; -1 when it is not a member. */
export function rank<T extends string>(order: readonly T[], value: T | undefined): number {
  return value === undefined ? -1 : order.indexOf(value);
}

/**
 * The value further right (the more severe claim) of two values of one ordered
 * vocabulary; undefined loses. For RETRY_CLASSES that is the more permissive one.
 */
export function mostRestrictive<T extends string>(order: readonly T[], a: T | undefined, b: T | undefined): T | undefined {
  return rank(order, a) >= rank(order, b) ? a : b;
}

/** Type guard: is `value` a member of the vocabulary? */
export function isMember<T extends string>(order: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (order as readonly string[]).includes(value);
}

/** Tool names: lowercase letters, digits, `_`, `.`, `-`; starting with a letter, digit or `_`. */
export const TOOL_NAME_PATTERN = '^[a-z0-9_][a-z0-9_.-]*$';

/**
 * The MCP gateway's own tools (src/mcp). Catalog names are usually dotted and
 * these are not, but the name pattern allows them: a catalog tool named so
 * would be listed beside the gateway's and never reached, so none may be.
 */
export const GATEWAY_TOOLS = { search: 'toolcap_search_tools', call: 'toolcap_call_tool', approvalStatus: 'toolcap_approval_status' } as const;
/**
 * Capability names: lowercase segments joined by dots. The recommended form
 * has at least two (`tasks.probe`, verb/object); a single segment (ATLAS's
 * `web_search`) is accepted with a warning.
 */
export const CAPABILITY_PATTERN = '^[a-z][a-z0-9_-]*(\\.[a-z0-9_*-]+)*$';
