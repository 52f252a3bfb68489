/**
 * What the service answers, independent of the transport: the HTTP API and
 * the CLI (`list`, `search`) call these functions on one snapshot, so a
 * filter or a ranking means the same everywhere. (The MCP gateway answers
 * `tools/list` from `Snapshot.callableTools`: every tool the client may
 * call, with no query to filter or rank by.)
 *
 * A tool in a response is a {@link ToolView}: the merged canonical tool plus
 * what a planner needs at a glance without reading the whole manifest (its
 * normalized capability tags, every auth scope it declares, and a health
 * summary).
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { Tool } from '../model/schema.js';
import { shareDefs, type DefsTable } from '../model/schema-defs.js';
import { toolKey } from '../model/tool-key.js';
import type { AgentView, ToolScope } from './agent-view.js';
import { encodeCursor, filterTools, matchesFilter, NO_SHARED, type ToolFilter } from './filters.js';
import { filterIndex, successRates } from './filter-index.js';
import { explain, type Explanation } from './explain.js';
import { DEFAULT_RANK_WEIGHTS, rankTools, type Intent, type Penalty, type RankWeights } from './rank.js';
import type { Snapshot } from '../registry/snapshot.js';
import { NO_HEALTH, type HealthSource, type HealthSummary } from '../model/health.js';

export { NO_HEALTH };
export type { HealthSource, HealthSummary };

const UNKNOWN: HealthSummary = Object.freeze({ status: 'unknown' });

/** A tool as served: the canonical tool plus the planner's at-a-glance fields. */
export interface ToolView {
  /** `name`, or `name@persona,…` for a persona-scoped tool: unique within a snapshot. */
  key: string;
  name: string;
  /** Personas the tool is scoped to; empty for a shared tool. */
  personas: readonly string[];
  /** The tool's capabilities, lowercased, trimmed, deduplicated and sorted. */
  capabilities: string[];
  /** Every scope the tool declares: `auth.scopes` and each OAuth service's scopes, deduplicated, in order. */
  authScopes: string[];
  health: HealthSummary;
  /** The merged, completed canonical tool (derived values listed in `derived`). */
  tool: Tool;
}

/** Capabilities as tags: lowercase, trimmed, each once, sorted. */
export function normalizedCapabilities(tool: Tool): string[] {
  const out = new Set<string>();
  for (const c of tool.capabilities ?? []) {
    const tag = c.trim().toLowerCase();
    if (tag !== '') out.add(tag);
  }
  return [...out].sort();
}

/** Every scope a tool declares, in declaration order, each once. */
export function authScopes(tool: Tool): string[] {
  const out = new Set<string>(tool.auth?.scopes ?? []);
  for (const service of tool.auth?.oauth ?? []) for (const s of service.scopes ?? []) out.add(s);
  return [...out];
}

const EMPTY: readonly string[] = Object.freeze([]);


/** The served view of one tool. */
export function toolView(tool: Tool, health: HealthSource = NO_HEALTH, key = toolKey(tool)): ToolView {
  return {
    key,
    name: tool.name,
    personas: tool.scope?.personas ?? EMPTY,
    capabilities: normalizedCapabilities(tool),
    authScopes: authScopes(tool),
    health: health.lookup(tool.name) ?? UNKNOWN,
    tool,
  };
}

/** A page of `/tools`. */
export interface ToolsPage {
  /** The snapshot answered from. */
  version: number;
  etag: string;
  /** Matches before paging. */
  total: number;
  /** Pass as `cursor` for the next page; absent on the last page. */
  nextCursor?: string;
  tools: ToolView[];
  /**
   * Schema definitions two or more listed tools share, written once: a
   * `#/$defs/<name>` reference in a tool's schema that the schema does not
   * define itself points here (docs/model.md, "Shared schema definitions").
   */
  $defs?: DefsTable;
}

/**
 * `GET /tools`: filter, order by name (then key) and page the snapshot's
 * tools as the filter says. The HTTP API and `toolcap list` pass it through
 * `listingFilter` first, so their default is enabled tools only. Filters are
 * answered from the snapshot's indexes (`filter-index.ts`), so a filter never
 * seen before costs its answer, not a scan. Schema definitions two or more
 * tools on the page share are written once, as the page's `$defs`.
 */
export function listTools(snapshot: Snapshot, filter: ToolFilter, health: HealthSource = NO_HEALTH, agent?: AgentView): ToolsPage {
  const page = pageOf(snapshot, filter, health, agent);
  const shared = shareDefs(page.entries.map((entry) => entry.value));
  return {
    version: snapshot.version,
    etag: snapshot.etag,
    total: page.total,
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    tools: page.entries.map((entry, i) => toolView(shared.tools[i]!, health, entry.key)),
    ...(shared.$defs !== undefined ? { $defs: shared.$defs } : {}),
  };
}

/** One page of `/tools` before it is shaped: the entries of `snapshot.ordered` on it, the total and the next cursor. */
export interface PageEntries {
  total: number;
  nextCursor?: string;
  entries: Array<{ readonly key: string; readonly value: Tool }>;
}

/** The matches of a `/tools` filter, paged by `limit` and `offset` or `cursor`, from the snapshot's indexes. */
export function pageOf(snapshot: Snapshot, filter: ToolFilter, health: HealthSource = NO_HEALTH, agent?: AgentView): PageEntries {
  const index = filterIndex(snapshot);
  const { limit: _limit, offset: _offset, cursor: _cursor, ...fields } = filter;
  // tools without data pass: an unmeasured tool is not a failing one (as filterTools)
  const bits = index.matchBits(fields, fields.minSuccessRate === undefined ? undefined : successRates(snapshot, health));
  if (agent !== undefined) {
    // the agent's view is asked of each match, after the persona rule (as listTools always did)
    for (let i = 0; i < snapshot.ordered.length; i++) {
      if (((bits[i >>> 5] as number) & (1 << (i & 31))) !== 0 && !agent.allows(index.tool(i))) bits[i >>> 5] = (bits[i >>> 5] as number) & ~(1 << (i & 31));
    }
  }
  const page = index.pageOfBits(bits, { start: filter.offset ?? 0, ...(filter.cursor !== undefined ? { cursor: filter.cursor } : {}), ...(filter.limit !== undefined ? { limit: filter.limit } : {}) });
  const entries = page.positions.map((i) => snapshot.ordered[i] as { key: string; value: Tool });
  const last = page.start + entries.length < page.total ? entries[entries.length - 1] : undefined;
  return { total: page.total, entries, ...(last !== undefined ? { nextCursor: encodeCursor({ key: last.key, tool: last.value }) } : {}) };
}

/**
 * Every tool a `/tools` filter lets through (paging aside), in `/tools`
 * order, from the same indexes `listTools` pages, for callers that count
 * over it (the console's counts by mode and risk).
 */
export function matchingTools(snapshot: Snapshot, filter: ToolFilter, health: HealthSource = NO_HEALTH, agent?: AgentView): ReadonlyArray<{ key: string; tool: Tool }> {
  const { limit: _limit, offset: _offset, cursor: _cursor, ...fields } = filter;
  return pageOf(snapshot, { ...fields, limit: Number.MAX_SAFE_INTEGER }, health, agent).entries.map((entry) => ({ key: entry.key, tool: entry.value }));
}

/** `GET /tools/{name}`: one tool as a persona sees it, with where it came from; undefined when the persona cannot see it. */
export function getTool(snapshot: Snapshot, name: string, persona?: string, health: HealthSource = NO_HEALTH): (ToolView & { provenance: unknown[] }) | undefined {
  const tool = snapshot.tool(name, persona);
  if (!tool) return undefined;
  const key = toolKey(tool);
  return { ...toolView(tool, health, key), provenance: [...(snapshot.provenance(key) ?? [])] };
}

/** What `/search` and `toolcap search` take. */
export interface SearchRequest {
  query: string;
  /** Field filters (and personas) candidates must pass; paging fields are ignored. */
  filter?: ToolFilter;
  /** Candidates returned. @default 10 */
  limit?: number;
  /** Multiplies the risk penalty. @default 1 */
  taskRisk?: number;
  /** Override the intent read from the query. */
  intent?: Intent;
  /** Penalty weights. @default DEFAULT_RANK_WEIGHTS (or the configured ones) */
  weights?: Partial<RankWeights>;
  /** Rank only the tools this agent's view holds (query/agent-view.ts). */
  agent?: ToolScope;
}

export interface SearchResult extends Explanation {
  version: number;
  etag: string;
  /** Each candidate's tool view, in ranking order (parallel to `candidates`). */
  tools: ToolView[];
}

/**
 * Rank the tools a filter lets through for a task in words. One persona
 * (the common case) ranks over that persona's view, whose index is built
 * once per snapshot; several personas, or `-shared`, rank over every
 * enabled tool with the persona rule as a filter.
 */
export function searchTools(snapshot: Snapshot, request: SearchRequest, health: HealthSource = NO_HEALTH): SearchResult {
  const { personas, limit: _limit, offset: _offset, cursor: _cursor, ...fields } = request.filter ?? {};
  let tools: readonly Tool[];
  let allowed: Set<Tool> | undefined;
  const single = personas?.length === 1 && personas[0] !== NO_SHARED ? personas[0] : undefined;
  if (personas === undefined || personas.length === 0) tools = snapshot.toolsFor();
  else if (single !== undefined) tools = snapshot.toolsFor(single);
  else {
    tools = snapshot.toolsFor();
    allowed = new Set(filterTools(snapshot.tools, { personas, enabled: true }).tools.map((t) => t.tool));
  }
  const minRate = fields.minSuccessRate;
  const agent = request.agent;
  const where = (tool: Tool) => {
    if (allowed && !allowed.has(tool)) return false;
    if (agent !== undefined && !agent.allows(tool)) return false;
    if (!matchesFilter(tool, fields)) return false;
    const rate = minRate === undefined ? undefined : health.lookup(tool.name)?.successRate;
    return rate === undefined || minRate === undefined || rate >= minRate;
  };
  const ranking = rankTools(request.query, tools, {
    where,
    limit: request.limit ?? 10,
    weights: { ...DEFAULT_RANK_WEIGHTS, ...request.weights },
    ...(request.taskRisk !== undefined ? { taskRisk: request.taskRisk } : {}),
    ...(request.intent !== undefined ? { intent: request.intent } : {}),
  });
  const views = ranking.candidates.map((c) => toolView(c.tool, health));
  return { version: snapshot.version, etag: snapshot.etag, ...explain(request.query, ranking), tools: views };
}

/** One candidate of a search answer. */
export interface SearchCandidate {
  rank: number;
  key: string;
  name: string;
  /** fit * weights.fit minus the penalties. */
  score: number;
  /** Semantic fit, 0..1. */
  fit: number;
  /** With explain: query terms matched, every penalty with its reason, the manifest's safer alternatives. */
  matched?: string[];
  penalties?: Penalty[];
  alternatives?: string[];
  tool: ToolView;
}

/** What `/search` answers (and `toolcap search --json` prints). */
export interface SearchAnswer {
  version: number;
  etag: string;
  query: string;
  intent: Intent;
  /** How sure the intent is, 0..1 (1 when the request gave it). */
  confidence: number;
  /** With explain: what the intent was read from, the rest of the task's reading, and the weights used. */
  intentEvidence?: string[];
  understanding?: Explanation['understanding'];
  weights?: RankWeights;
  candidates: SearchCandidate[];
}

/** Shape a search result for an answer, with or without the explanation. */
export function searchAnswer(result: SearchResult, explain: boolean): SearchAnswer {
  const candidates = result.candidates.map((c, i): SearchCandidate => {
    const view = result.tools[i] as ToolView;
    const base = { rank: i + 1, key: view.key, name: c.name, score: round(c.score), fit: round(c.fit) };
    return explain ? { ...base, matched: c.matched, penalties: c.penalties, alternatives: c.alternatives, tool: view } : { ...base, tool: view };
  });
  const head = { version: result.version, etag: result.etag, query: result.query, intent: result.intent, confidence: round(result.confidence) };
  return explain ? { ...head, intentEvidence: result.intentEvidence, understanding: result.understanding, weights: result.weights, candidates } : { ...head, candidates };
}

const round = (n: number) => Math.round(n * 1e4) / 1e4;

const MARK = `tool-${randomBytes(12).toString('hex')}`;
const MARK_PATTERN = new RegExp(`"\\\\u0000${MARK}:(\\d+)\\\\u0000"`, 'g');

/** Each tool's JSON text, made once: snapshots are immutable, so a tool object's text never changes. */
const toolJson = new WeakMap<Tool, string>();

/** JSON of one tool, cached per (frozen) tool object. */
export function toolJsonText(tool: Tool): string {
  let text = toolJson.get(tool);
  if (text === undefined) toolJson.set(tool, (text = JSON.stringify(tool)));
  return text;
}

/**
 * JSON text of a value holding ToolViews (a page, a tool detail, a search
 * answer), equal to `JSON.stringify(value)` but reusing each tool's cached
 * text instead of serialising the whole manifest again.
 */
export function stringifyWithTools(value: unknown): string {
  const marks: string[] = [];
  // the placeholder carries an unguessable token, so no string in the value (a query echoed back) can pose as one
  const text = JSON.stringify(value, function (this: unknown, key: string, v: unknown) {
    if (key === 'tool' && v !== null && typeof v === 'object' && Object.isFrozen(v) && typeof (v as Tool).name === 'string') {
      marks.push(toolJsonText(v as Tool));
      return `\u0000${MARK}:${marks.length - 1}\u0000`;
    }
    return v;
  });
  if (marks.length === 0) return text;
  return text.replace(MARK_PATTERN, (_m, i: string) => marks[Number(i)] as string);
}
