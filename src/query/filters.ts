/**
 * Filters over completed canonical tools: the one semantics behind the
 * library's `filterTools` and the HTTP `/tools` query (ATLAS discovery
 * filters plus the capability fields of the canonical model).
 *
 * Every filter narrows; absent filters do not. Ordered filters
 * (`sideEffects`, `maxRisk`) mean "at most this severe", using the orders of
 * `model/vocabulary.ts`. A tool silent on a filtered field does not match
 * (completed tools are never silent on effects or approval).
 * @module
 */
import semver from 'semver';
import type { Tool } from '../model/schema.js';
import { compareToolOrder, toolKey } from '../model/tool-key.js';
import {
  RISK_LEVELS,
  SIDE_EFFECTS,
  rank,
  type Mode,
  type RiskLevel,
  type SideEffect,
  type SurfaceDomain,
  type SurfaceOperation,
} from '../model/vocabulary.js';

/** The persona token that removes shared (unscoped) tools from a persona query (ATLAS `persona=-shared`). */
export const NO_SHARED = '-shared';

/** What `filterTools` can narrow by. Every field is optional; all given fields must hold. */
export interface ToolFilter {
  /**
   * Personas whose tools to include. Shared tools (no `scope.personas`) are
   * always included unless the list contains `-shared`. A persona's own
   * version of a tool shadows the shared tool of the same name.
   */
  personas?: string[];
  /** A provider name the tool lists (`providers[].name`). */
  provider?: string;
  /** A semver range (`>=1.2`, `^2`); tools without a valid semver version never match. */
  version?: string;
  /** Minimum observed success rate, 0..1. Tools without health data pass, flagged `health: 'unknown'`. */
  minSuccessRate?: number;
  /** At most this side-effect severity. */
  sideEffects?: SideEffect;
  /** Exactly this mode. */
  mode?: Mode;
  /** At most this risk level. */
  maxRisk?: RiskLevel;
  /** A tag the tool has. */
  tag?: string;
  /** A Xena surface domain the tool has. */
  domain?: SurfaceDomain;
  /** A Xena surface operation the tool has. */
  operation?: SurfaceOperation;
  /** A capability, exact (`tasks.probe`) or a prefix ending in `.*` (`tasks.*`). */
  capability?: string;
  /** Whether each call needs human approval. */
  approval?: boolean;
  /** Enabled (true) or disabled (false) tools only. @default any */
  enabled?: boolean;
  /** Page size. @default no limit */
  limit?: number;
  /** Skip this many matches. Not together with `cursor`. */
  offset?: number;
  /** Continue after the page that returned this `nextCursor`. */
  cursor?: string;
}

/** Observed health of a tool, by name. `undefined`: no data. */
export type HealthLookup = (name: string) => { successRate?: number } | undefined;

export interface FilterOptions {
  /** Where observed success rates come from. Without it every tool's health is unknown. */
  health?: HealthLookup;
  /** The input is already in `compareToolOrder` order (a snapshot's `ordered`): skip the sort. */
  presorted?: boolean;
}

/** A tool as given to `filterTools`: a completed tool, or a catalog entry holding one. */
export type ToolInput = Tool | { key: string; value: Tool };

export interface FilteredTool {
  /** Name, or `name@persona,...` for a persona-scoped tool (the merge key). */
  key: string;
  tool: Tool;
  /** The observed success rate, or `unknown` when the lookup had no rate for the tool. */
  health: { successRate: number } | 'unknown';
}

export interface FilterResult {
  tools: FilteredTool[];
  /** Matches before pagination. */
  total: number;
  /** Present when more matches follow this page. */
  nextCursor?: string;
}

const isShared = (tool: Tool): boolean => (tool.scope?.personas?.length ?? 0) === 0;

/** An opaque cursor: the position (name, key) of the last tool of a page. */
export function encodeCursor(item: { key: string; tool: Tool }): string {
  return Buffer.from(JSON.stringify([item.tool.name, item.key]), 'utf8').toString('base64url');
}

/** The position a cursor stands for, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): { name: string; key: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') return { name: value[0], key: value[1] };
  } catch {
    // not base64 JSON: fall through
  }
  return undefined;
}

function capabilityMatches(wanted: string, capabilities: readonly string[] | undefined): boolean {
  if (!capabilities) return false;
  if (wanted.endsWith('.*')) {
    const prefix = wanted.slice(0, -2);
    return capabilities.some((c) => c === prefix || c.startsWith(`${prefix}.`));
  }
  return capabilities.includes(wanted);
}

function atMost<T extends string>(order: readonly T[], value: T | undefined, limit: T): boolean {
  const r = rank(order, value);
  return r >= 0 && r <= rank(order, limit);
}

/** Does one tool pass every field filter (persona, health and paging aside)? */
export function matchesFilter(tool: Tool, f: ToolFilter): boolean {
  if (f.provider !== undefined && !tool.providers?.some((p) => p.name === f.provider)) return false;
  if (f.version !== undefined) {
    const v = tool.version === undefined ? null : semver.valid(tool.version);
    if (v === null || !semver.satisfies(v, f.version)) return false;
  }
  const e = tool.effects;
  if (f.sideEffects !== undefined && !atMost(SIDE_EFFECTS, e?.sideEffects, f.sideEffects)) return false;
  if (f.mode !== undefined && e?.mode !== f.mode) return false;
  if (f.maxRisk !== undefined && !atMost(RISK_LEVELS, e?.risk, f.maxRisk)) return false;
  if (f.tag !== undefined && !tool.tags?.includes(f.tag)) return false;
  if (f.domain !== undefined && !tool.surface?.domains?.includes(f.domain)) return false;
  if (f.operation !== undefined && !tool.surface?.operations?.includes(f.operation)) return false;
  if (f.capability !== undefined && !capabilityMatches(f.capability, tool.capabilities)) return false;
  // silence on approval reads as "required", as complete() derives for writes
  if (f.approval !== undefined && (tool.approval?.required ?? true) !== f.approval) return false;
  if (f.enabled !== undefined && (tool.enabled !== false) !== f.enabled) return false;
  return true;
}

/** Persona scoping: shared tools (unless `-shared`) plus tools of the listed personas, a persona's version shadowing the shared one. */
function byPersona(items: FilteredTool[], personas: readonly string[]): FilteredTool[] {
  const wanted = personas.filter((p) => p !== NO_SHARED);
  const withShared = !personas.includes(NO_SHARED);
  const scopedNames = new Set<string>();
  const kept: FilteredTool[] = [];
  for (const item of items) {
    if (isShared(item.tool)) {
      if (withShared) kept.push(item);
    } else if (item.tool.scope?.personas?.some((p) => wanted.includes(p))) {
      kept.push(item);
      scopedNames.add(item.tool.name);
    }
  }
  return kept.filter((item) => !isShared(item.tool) || !scopedNames.has(item.tool.name));
}

/**
 * Filter, order (by name, then key) and page completed tools.
 *
 * @example
 * const { tools, nextCursor } = filterTools(catalog.tools, { personas: ['Atlas'], maxRisk: 'medium', limit: 20 });
 */
export function filterTools(tools: readonly ToolInput[], filter: ToolFilter, options: FilterOptions = {}): FilterResult {
  let items: FilteredTool[] = [];
  for (const input of tools) {
    const tool = 'value' in input && 'key' in input ? input.value : (input as Tool);
    const key = 'value' in input && 'key' in input ? input.key : toolKey(tool);
    if (!matchesFilter(tool, filter)) continue;
    const rate = options.health?.(tool.name)?.successRate;
    const health = typeof rate === 'number' && Number.isFinite(rate) ? { successRate: rate } : ('unknown' as const);
    // tools without data pass: an unmeasured tool is not a failing one
    if (filter.minSuccessRate !== undefined && health !== 'unknown' && health.successRate < filter.minSuccessRate) continue;
    items.push({ key, tool, health });
  }
  if (filter.personas !== undefined && filter.personas.length > 0) items = byPersona(items, filter.personas);
  if (!options.presorted) items.sort(compareToolOrder);
  return paginate(items, filter);
}

/** One page of ordered matches, after `limit`, `offset` or `cursor`. */
export function paginate(items: FilteredTool[], filter: ToolFilter): FilterResult {
  let start = Math.max(0, filter.offset ?? 0);
  if (filter.cursor !== undefined) {
    const at = decodeCursor(filter.cursor);
    // an unknown cursor starts over rather than failing: parseFilter rejects malformed ones
    if (at !== undefined) {
      const probe = { key: at.key, tool: { name: at.name } as Tool };
      const i = items.findIndex((item) => compareToolOrder(item, probe) > 0);
      start = i < 0 ? items.length : i;
    }
  }
  const end = filter.limit === undefined ? items.length : Math.min(items.length, start + Math.max(0, filter.limit));
  const page = items.slice(start, end);
  const last = page[page.length - 1];
  const result: FilterResult = { tools: page, total: items.length };
  if (end < items.length && last !== undefined) result.nextCursor = encodeCursor(last);
  return result;
}
