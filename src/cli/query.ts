/**
 * `toolcap list` and `toolcap search`: the `/tools` and `/search` answers
 * without a server. Flags become the same query parameters the HTTP API
 * parses, so a filter means the same on the command line and over HTTP, and
 * a bad value is reported naming its flag.
 * @module
 */
import { loadConfig } from '../config/config.js';
import { principalNamed } from '../config/identity.js';
import { selectionCandidate } from '../runtime/selections.js';
import { saveSelection, selectionFileFor } from './selection-file.js';
import { listingFilter, parseFilter, type ParameterProblem } from '../query/params.js';
import { MAX_QUERY_LENGTH } from '../server/catalog-params.js';
import { createSnapshot, type Snapshot } from '../registry/snapshot.js';
import { listTools, searchAnswer, searchTools, type SearchCandidate, type ToolView } from '../query/views.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { logLine, type CliIO } from './io.js';
import { summarize } from './render.js';
import { exitFor, loadCatalog, printDiagnostics, type LoadFlags } from './shared.js';

/** Filter flags, as commander gives them (camelCase of the `--kebab-case` flag). */
export interface FilterFlags {
  persona?: string[];
  provider?: string;
  version?: string;
  minSuccessRate?: string;
  sideEffects?: string;
  mode?: string;
  maxRisk?: string;
  tag?: string;
  domain?: string;
  operation?: string;
  capability?: string;
  approval?: string;
  enabled?: string;
}

export interface ListFlags extends LoadFlags, FilterFlags {
  limit?: string;
  json?: boolean;
}

export interface SearchFlags extends LoadFlags, FilterFlags {
  query: string;
  limit?: string;
  intent?: 'read' | 'write' | 'unknown';
  explain?: boolean;
  json?: boolean;
}

const FLAG_PARAMS: ReadonlyArray<readonly [keyof FilterFlags, string]> = [
  ['provider', 'provider'],
  ['version', 'version'],
  ['minSuccessRate', 'min_success_rate'],
  ['sideEffects', 'side_effects'],
  ['mode', 'mode'],
  ['maxRisk', 'max_risk'],
  ['tag', 'tag'],
  ['domain', 'domain'],
  ['operation', 'operation'],
  ['capability', 'capability'],
  ['approval', 'approval'],
  ['enabled', 'enabled'],
];

/** The query parameters the flags stand for. */
export function filterParams(flags: FilterFlags & { limit?: string }): URLSearchParams {
  const params = new URLSearchParams();
  for (const p of flags.persona ?? []) params.append('persona', p);
  for (const [flag, name] of FLAG_PARAMS) {
    const v = flags[flag];
    if (typeof v === 'string') params.set(name, v);
  }
  if (flags.limit !== undefined) params.set('limit', flags.limit);
  return params;
}

const flagName = (parameter: string) => `--${parameter.replace(/_/g, '-')}`;

function printProblems(problems: readonly ParameterProblem[], io: CliIO): ExitCode {
  for (const p of problems) io.stderr(`toolcap: ${flagName(p.parameter)}: ${p.message}\n`);
  return EXIT.USAGE;
}

/** Load, refuse a catalog with errors (as the registry would), and snapshot it. */
function snapshotOf(paths: string[], flags: LoadFlags, io: CliIO): Snapshot | ExitCode {
  const result = loadCatalog(paths, flags);
  const code = exitFor(result);
  if (code !== EXIT.OK) {
    printDiagnostics(result, io);
    io.stderr(`${summarize(result.catalog.tools.length, result.diagnostics)}\n`);
    return code;
  }
  const warnings = result.diagnostics.filter((d) => d.severity === 'warning').length;
  if (warnings > 0) io.stderr(`toolcap: ${warnings} warning${warnings === 1 ? '' : 's'} in the manifests (toolcap validate shows them)\n`);
  return createSnapshot(result, { version: 1, builtAt: new Date().toISOString() });
}

function effects(view: ToolView): string {
  const e = view.tool.effects ?? {};
  return `${e.mode} · ${e.sideEffects} · risk ${e.risk}${view.tool.approval?.required ? ' · approval' : ''}${view.tool.enabled === false ? ' · disabled' : ''}`;
}

export function listCommand(paths: string[], flags: ListFlags, io: CliIO): ExitCode {
  const params = filterParams(flags);
  const parsed = parseFilter(params);
  if ('problems' in parsed) return printProblems(parsed.problems, io);
  const snap = snapshotOf(paths, flags, io);
  if (typeof snap === 'number') return snap;
  const page = listTools(snap, listingFilter(parsed.filter, params));
  if (flags.json) {
    io.stdout(`${JSON.stringify(page, null, 2)}\n`);
    return EXIT.OK;
  }
  // a key holds the manifest's persona names (free text): one line each, control characters escaped
  const keys = page.tools.map((t) => logLine(t.key));
  const width = Math.max(4, ...keys.map((k) => k.length));
  page.tools.forEach((view, i) => io.stdout(`${keys[i]!.padEnd(width)}  ${logLine(effects(view))}\n`));
  io.stderr(`${page.tools.length} of ${page.total} tools${page.nextCursor !== undefined ? ' (more: raise --limit)' : ''}\n`);
  return EXIT.OK;
}

export function searchCommand(paths: string[], flags: SearchFlags, io: CliIO): ExitCode {
  const { limit, intent, ...rest } = flags;
  const parsed = parseFilter(filterParams(rest));
  if ('problems' in parsed) return printProblems(parsed.problems, io);
  const n = limit === undefined ? 10 : /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
  if (!(n >= 1 && n <= 100)) return printProblems([{ parameter: 'limit', message: `"${limit}" is not a whole number from 1 to 100.` }], io);
  if (flags.query.trim() === '') return printProblems([{ parameter: 'query', message: 'Say what the task is.' }], io);
  // the same bound as /search: understanding a task is not linear in its length for every shape of text
  if (flags.query.length > MAX_QUERY_LENGTH) return printProblems([{ parameter: 'query', message: `The query is ${flags.query.length} characters; at most ${MAX_QUERY_LENGTH}.` }], io);
  const snap = snapshotOf(paths, flags, io);
  if (typeof snap === 'number') return snap;
  const config = flags.config === undefined ? undefined : loadConfig(flags.config).config;
  const ranking = config?.ranking ?? {};
  const request = {
    query: flags.query,
    filter: parsed.filter,
    limit: n,
    ...(intent !== undefined ? { intent } : {}),
    ...(ranking.weights ? { weights: ranking.weights } : {}),
    ...(ranking.taskRisk !== undefined ? { taskRisk: ranking.taskRisk } : {}),
  };
  const result = searchTools(snap, request);
  const answer = searchAnswer(result, flags.explain ?? false);
  // kept for `toolcap call --selection`, as the local principal's (selection-file.ts); a search that cannot write it still answers
  let selection: string | undefined;
  try {
    selection = saveSelection(selectionFileFor(config?.root ?? process.cwd()), principalNamed(config?.auth).id, flags.query, searchAnswer(result, true).candidates.map(selectionCandidate));
  } catch {
    selection = undefined;
  }
  if (flags.json) {
    io.stdout(`${JSON.stringify(selection === undefined ? answer : { ...answer, selection }, null, 2)}\n`);
    return EXIT.OK;
  }
  io.stdout(`${logLine(`intent: ${answer.intent} (confidence ${answer.confidence})${answer.intentEvidence?.length ? `: ${answer.intentEvidence.join('; ')}` : ''}`)}\n`);
  const u = answer.understanding;
  if (u) {
    const notes = [
      u.scope !== 'unknown' ? `wants ${u.scope === 'list' ? 'a list' : 'one item'}` : '',
      u.destroys ? 'asks to destroy' : '',
      u.avoid.length > 0 ? `rules out: ${u.avoid.join(', ')}` : '',
      u.entities.length > 0 ? `values kept out of the terms: ${u.entities.map((e) => `${e.kind} ${e.text}`).join(', ')}` : '',
    ].filter(Boolean);
    if (notes.length > 0) io.stdout(`${logLine(`task: ${notes.join('; ')}`)}\n`);
  }
  if (answer.candidates.length === 0) io.stdout('No tool matches the query.\n');
  for (const c of answer.candidates) io.stdout(describeCandidate(c, flags.explain ?? false));
  // on stderr: stdout stays the ranking
  if (selection !== undefined && answer.candidates.length > 0) io.stderr(`selection: ${selection} (toolcap call <tool> --selection ${selection} records what the tool was chosen over)\n`);
  return EXIT.OK;
}

function describeCandidate(c: SearchCandidate, explain: boolean): string {
  const lines = [`${String(c.rank).padStart(2)}. ${c.key}  score ${c.score.toFixed(1)}  fit ${c.fit.toFixed(2)}  (${effects(c.tool)})`];
  if (explain) {
    if (c.matched?.length) lines.push(`    matched: ${c.matched.join(', ')}`);
    for (const p of c.penalties ?? []) lines.push(`    -${p.points} ${p.code}: ${p.reason}`);
    if (c.alternatives?.length) lines.push(`    safer alternatives: ${c.alternatives.join(', ')}`);
  }
  // the key (persona names), the alternatives and the reasons quote the manifest: one line each, control characters escaped
  return `${lines.map(logLine).join('\n')}\n`;
}
