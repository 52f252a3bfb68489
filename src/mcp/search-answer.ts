/**
 * What `toolcap_search_tools` answers: the ranking of `/search` and
 * `toolcap search` (`searchTools` and `searchAnswer` of query/views.ts, with
 * the explanation) over the tools the session may call, each match with
 * what an agent decides by (mode, risk, approval, cost and latency when
 * declared, observed health, the penalties and fit of the ranking, safer
 * alternatives it may call) and how to call it (its inputSchema as
 * `tools/list` projects it). Fields the ranking adds to its answer pass
 * through. `structuredContent` carries it all; the text is a compact
 * rendering for clients that show the model only text.
 * @module
 */
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { HealthSource } from '../model/health.js';
import { toolKey } from '../model/tool-key.js';
import { isPlainObject } from '../model/objects.js';
import type { ToolScope } from '../query/agent-view.js';
import type { RankWeights } from '../query/rank.js';
import { searchAnswer, searchTools, type SearchCandidate, type SearchRequest } from '../query/views.js';
import type { Snapshot } from '../registry/snapshot.js';
import type { Redactor } from '../runtime/containment/redact.js';
import { capabilityMetaOf, mcpToolOf } from './projection.js';
import { CALL_TOOL, type SearchArgs } from './search-mode.js';

/** The ranking settings a gateway searches with (the config's `ranking` section, as `/search` uses it). */
export interface SearchRanking {
  /** Penalty weights over DEFAULT_RANK_WEIGHTS. */
  weights?: Partial<RankWeights>;
  /** Multiplies the risk penalty. @default 1 */
  taskRisk?: number;
}

/** Whose tools a search ranks and with what. */
export interface SearchScope {
  snapshot: Snapshot;
  /** The session's persona; none: the shared tools. */
  persona: string | undefined;
  health: HealthSource;
  ranking: SearchRanking;
  /** Applied to what echoes the caller's words (the query, matched terms, intent evidence). */
  redactor: Redactor;
  /** The session agent's view: only its tools are ranked, kept and named. */
  agent?: ToolScope | undefined;
}

/** A search's answer, and the names it found (for the session's list). */
export interface SearchOutcome {
  result: CallToolResult;
  found: string[];
}

/**
 * No tool is scoped to a persona of this name (a persona name cannot hold a
 * NUL), so ranking "for" it ranks the shared tools: what a caller without a
 * persona may call.
 */
const NO_PERSONA = '\u0000shared-only';

/** One match, as structured content holds it. */
type Match = Record<string, unknown> & { rank: number; name: string };

const withoutNulls = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/**
 * Rank the session's callable tools for `args` and answer with the matches.
 * Only tools `snapshot.callable(name, persona)` gives are kept (the same
 * rule as the session's `tools/call` and full-mode `tools/list`), and only
 * alternatives the session may call are named.
 * @example answerSearch(scope, { query: 'open an issue', limit: 5 }).found // ['create_issue', …]
 */
export function answerSearch(scope: SearchScope, args: SearchArgs): SearchOutcome {
  const { snapshot, persona, health, ranking, redactor } = scope;
  const request: SearchRequest = {
    query: args.query,
    limit: args.limit,
    filter: { personas: [persona ?? NO_PERSONA] },
    ...(args.intent !== undefined ? { intent: args.intent } : {}),
    ...(ranking.weights !== undefined ? { weights: ranking.weights } : {}),
    ...(ranking.taskRisk !== undefined ? { taskRisk: ranking.taskRisk } : {}),
    ...(scope.agent !== undefined ? { agent: scope.agent } : {}),
  };
  const { candidates, weights: _weights, ...head } = searchAnswer(searchTools(snapshot, request, health), true);
  const callable = (name: string) => {
    const tool = snapshot.callable(name, persona);
    return tool === undefined || scope.agent === undefined || scope.agent.allows(tool) ? tool : undefined;
  };
  const allowed = candidates.filter((c) => {
    const tool = callable(c.name);
    return tool !== undefined && toolKey(tool) === c.key;
  });
  const matches = allowed.map((c, i) => matchOf(c, i + 1, (name) => callable(name) !== undefined, redactor));
  const structured = { ...redactor.redact(head), matches };
  return { result: { content: [{ type: 'text', text: render(structured, matches) }], structuredContent: structured }, found: matches.map((m) => m.name) };
}

/** A candidate as a match: the ranking's fields (its tool view and key aside), the decision fields, the projected definition. */
function matchOf(candidate: SearchCandidate, rank: number, mayCall: (name: string) => boolean, redactor: Redactor): Match {
  const { tool: view, key: _key, alternatives, matched, ...ranked } = candidate;
  const tool = view.tool;
  const listed: McpTool = mcpToolOf(tool);
  const meta = capabilityMetaOf(tool);
  return {
    ...ranked,
    rank,
    ...(listed.title !== undefined ? { title: listed.title } : {}),
    ...(listed.description !== undefined ? { description: listed.description } : {}),
    ...withoutNulls({
      mode: meta.mode,
      sideEffects: meta.sideEffects,
      risk: meta.risk,
      reversible: meta.reversible,
      approvalRequired: meta.approvalRequired,
      idempotent: meta.idempotent,
      cost: tool.cost,
      latency: tool.latency,
    }),
    health: view.health.status,
    ...(matched !== undefined ? { matched: redactor.redact(matched) } : {}),
    alternatives: (alternatives ?? []).filter(mayCall),
    ...hintsOf(listed.annotations),
    inputSchema: listed.inputSchema,
  };
}

/** The listed annotations without the title (the match has it at the top): none when only the title was there. */
function hintsOf(annotations: McpTool['annotations']): { annotations?: McpTool['annotations'] } {
  if (annotations === undefined) return {};
  const { title: _title, ...hints } = annotations;
  return Object.keys(hints).length > 0 ? { annotations: hints } : {};
}

/** `a|b|c` for an enum, `string[]` for an array of strings, the type otherwise. */
function typeOf(schema: unknown): string {
  if (!isPlainObject(schema)) return 'any';
  if (Array.isArray(schema['enum'])) {
    const values = schema['enum'].map((v) => JSON.stringify(v));
    return values.length <= 6 ? values.join('|') : `${values.slice(0, 6).join('|')}|…`;
  }
  const type = schema['type'];
  if (type === 'array') return `${typeOf(schema['items'])}[]`;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.join('|');
  return 'any';
}

/** The arguments of an input schema, one short line: `name*: type` (`*`: required), at most 12. */
function argsLine(inputSchema: McpTool['inputSchema']): string {
  const properties = isPlainObject(inputSchema.properties) ? Object.entries(inputSchema.properties) : [];
  if (properties.length === 0) return 'none';
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required : []);
  const shown = properties.slice(0, 12).map(([name, schema]) => `${name}${required.has(name) ? '*' : ''}: ${typeOf(schema)}`);
  return properties.length > 12 ? `${shown.join(', ')}, … (${properties.length - 12} more)` : shown.join(', ');
}

/** The first line of a text, at most `max` characters. */
const firstLine = (text: string, max = 120) => {
  const line = text.split('\n', 1)[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The compact text of an answer: the reading of the task, one block per match, then how to call one. */
function render(head: Record<string, unknown>, matches: readonly Match[]): string {
  const asked = typeof head['query'] === 'string' ? JSON.stringify(head['query']) : 'the task';
  if (matches.length === 0) return `No tool you may call matches ${asked}. Try other words, or a broader task.`;
  // a ranking that says how sure it is of the intent (a field it may add) is shown so
  const sure = typeof head['confidence'] === 'number' ? `, confidence ${head['confidence']}` : '';
  const lines = [`${matches.length} tool${matches.length === 1 ? '' : 's'} for ${asked} (intent: ${String(head['intent'])}${sure}), best first:`];
  for (const m of matches) {
    const about = typeof m['title'] === 'string' ? m['title'] : typeof m['description'] === 'string' ? firstLine(m['description']) : '';
    const flags = [m['mode'] ?? 'mode unknown', m['risk'] !== undefined ? `risk ${String(m['risk'])}` : undefined, m['approvalRequired'] === true ? 'needs approval' : undefined].filter(Boolean);
    lines.push(`${m.rank}. ${m.name}${about !== '' ? `: ${about}` : ''} [${flags.join(', ')}] fit ${String(m['fit'])}, score ${String(m['score'])}`);
    lines.push(`   args: ${argsLine(m['inputSchema'] as McpTool['inputSchema'])}`);
    const penalties = Array.isArray(m['penalties']) ? (m['penalties'] as Array<{ code: string; points: number; reason: string }>) : [];
    if (penalties.length > 0) lines.push(`   penalties: ${penalties.map((p) => `${p.code} -${p.points} (${p.reason})`).join('; ')}`);
    const alternatives = m['alternatives'] as string[];
    if (alternatives.length > 0) lines.push(`   safer alternatives: ${alternatives.join(', ')}`);
  }
  lines.push(`They are now in tools/list: call one directly, or with ${CALL_TOOL} {"name": "<tool>", "arguments": {…}}.`);
  return lines.join('\n');
}
