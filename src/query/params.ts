/**
 * Query parameters to a `ToolFilter`, collecting every problem instead of
 * stopping at the first, each naming its parameter (HTTP answers 400 with
 * the list).
 * @module
 */
import semver from 'semver';
import {
  MODES,
  RISK_LEVELS,
  SIDE_EFFECTS,
  SURFACE_DOMAINS,
  SURFACE_OPERATIONS,
  isMember,
  CAPABILITY_PATTERN,
} from '../model/vocabulary.js';
import { decodeCursor, NO_SHARED, type ToolFilter } from './filters.js';

/** One bad query parameter. */
export interface ParameterProblem {
  parameter: string;
  message: string;
}

export type ParseResult = { filter: ToolFilter } | { problems: ParameterProblem[] };

/** Largest page `limit` accepts. */
export const MAX_LIMIT = 1000;

/** Parameters `parseFilter` reads, snake_case as in the ATLAS `/tools` endpoint. `persona` may repeat; the rest may not. */
export const FILTER_PARAMETERS = [
  'persona',
  'provider',
  'version',
  'min_success_rate',
  'side_effects',
  'mode',
  'max_risk',
  'tag',
  'domain',
  'operation',
  'capability',
  'approval',
  'enabled',
  'limit',
  'cursor',
  'offset',
] as const;

export interface ParseOptions {
  /** Other parameters the caller handles itself (e.g. `q`); not reported as unknown. */
  allow?: readonly string[];
}

const CAPABILITY = new RegExp(CAPABILITY_PATTERN);
const CAPABILITY_PREFIX = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*\.\*$/;

/**
 * Read a `ToolFilter` from URL query parameters.
 *
 * @example
 * parseFilter(new URLSearchParams('persona=Atlas&persona=-shared&max_risk=medium'))
 * // { filter: { personas: ['Atlas', '-shared'], maxRisk: 'medium' } }
 * parseFilter(new URLSearchParams('max_risk=extreme'))
 * // { problems: [{ parameter: 'max_risk', message: '...' }] }
 */
export function parseFilter(params: URLSearchParams, options: ParseOptions = {}): ParseResult {
  const problems: ParameterProblem[] = [];
  const filter: ToolFilter = {};
  const known = new Set<string>([...FILTER_PARAMETERS, ...(options.allow ?? [])]);
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (!known.has(name)) problems.push({ parameter: name, message: `Unknown parameter "${name}". Known: ${FILTER_PARAMETERS.join(', ')}.` });
    else if (name !== 'persona' && (FILTER_PARAMETERS as readonly string[]).includes(name) && params.getAll(name).length > 1)
      problems.push({ parameter: name, message: `"${name}" may be given once.` });
  }
  const problem = (parameter: string, message: string) => problems.push({ parameter, message });
  const one = (name: string) => params.get(name) ?? undefined;
  const member = <T extends string>(name: string, order: readonly T[]): T | undefined => {
    const v = one(name);
    if (v === undefined) return undefined;
    if (isMember(order, v)) return v;
    problem(name, `"${v}" is not one of ${order.join(', ')}.`);
    return undefined;
  };
  const bool = (name: string): boolean | undefined => {
    const v = one(name);
    if (v === undefined) return undefined;
    if (v === 'true') return true;
    if (v === 'false') return false;
    problem(name, `"${v}" is not true or false.`);
    return undefined;
  };
  const integer = (name: string, min: number, max: number): number | undefined => {
    const v = one(name);
    if (v === undefined) return undefined;
    const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
    if (Number.isInteger(n) && n >= min && n <= max) return n;
    problem(name, `"${v}" is not a whole number from ${min} to ${max}.`);
    return undefined;
  };
  const text = (name: string): string | undefined => {
    const v = one(name);
    if (v === '') problem(name, `"${name}" is empty.`);
    return v === '' ? undefined : v;
  };

  const personas = params.getAll('persona');
  if (personas.some((p) => p === '')) problem('persona', 'A persona is empty.');
  else if (personas.length > 0) {
    filter.personas = personas;
    if (personas.every((p) => p === NO_SHARED)) problem('persona', `"${NO_SHARED}" needs at least one persona beside it.`);
  }
  const provider = text('provider');
  if (provider !== undefined) filter.provider = provider;
  const version = one('version');
  if (version !== undefined) {
    if (version.trim() !== '' && semver.validRange(version) !== null) filter.version = version;
    else problem('version', `"${version}" is not a semver range (e.g. >=1.2, ^2.0.0).`);
  }
  const rate = one('min_success_rate');
  if (rate !== undefined) {
    const n = rate.trim() === '' ? Number.NaN : Number(rate);
    if (n >= 0 && n <= 1) filter.minSuccessRate = n;
    else problem('min_success_rate', `"${rate}" is not a number from 0 to 1.`);
  }
  const sideEffects = member('side_effects', SIDE_EFFECTS);
  if (sideEffects !== undefined) filter.sideEffects = sideEffects;
  const mode = member('mode', MODES);
  if (mode !== undefined) filter.mode = mode;
  const maxRisk = member('max_risk', RISK_LEVELS);
  if (maxRisk !== undefined) filter.maxRisk = maxRisk;
  const tag = text('tag');
  if (tag !== undefined) filter.tag = tag;
  const domain = member('domain', SURFACE_DOMAINS);
  if (domain !== undefined) filter.domain = domain;
  const operation = member('operation', SURFACE_OPERATIONS);
  if (operation !== undefined) filter.operation = operation;
  const capability = one('capability');
  if (capability !== undefined) {
    if (CAPABILITY.test(capability) || CAPABILITY_PREFIX.test(capability)) filter.capability = capability;
    else problem('capability', `"${capability}" is not a capability name (a.b) or prefix (a.*).`);
  }
  const approval = bool('approval');
  if (approval !== undefined) filter.approval = approval;
  // "any" asks for enabled and disabled tools alike (see listingFilter)
  const enabled = one('enabled') === 'any' ? undefined : bool('enabled');
  if (enabled !== undefined) filter.enabled = enabled;
  const limit = integer('limit', 1, MAX_LIMIT);
  if (limit !== undefined) filter.limit = limit;
  const offset = integer('offset', 0, Number.MAX_SAFE_INTEGER);
  if (offset !== undefined) filter.offset = offset;
  const cursor = one('cursor');
  if (cursor !== undefined) {
    if (decodeCursor(cursor) !== undefined) filter.cursor = cursor;
    else problem('cursor', 'Not a cursor this registry returned; pass nextCursor from a previous page.');
  }
  if (cursor !== undefined && one('offset') !== undefined) problem('offset', '"offset" and "cursor" cannot be combined.');
  return problems.length > 0 ? { problems } : { filter };
}

/**
 * The filter of a catalog listing (`GET /tools`, `toolcap list`): enabled
 * tools only unless the request says `enabled=false` or `enabled=any`, so a
 * listing's `total` is what can be called (and what `serve` says it serves).
 * @example listingFilter({}, new URLSearchParams('')).enabled // true
 * listingFilter({}, new URLSearchParams('enabled=any')).enabled // undefined
 */
export function listingFilter(filter: ToolFilter, params: URLSearchParams): ToolFilter {
  return filter.enabled !== undefined || params.get('enabled') === 'any' ? filter : { ...filter, enabled: true };
}
