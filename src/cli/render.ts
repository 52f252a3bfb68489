/**
 * Diagnostics for people: `file:line:column severity CODE message`, the
 * source line with a caret under the column, and the hint.
 * @module
 */
import type { Diagnostic } from '../model/diagnostics.js';
import { logLine } from './io.js';

/** Longest excerpt line shown, in characters. */
const EXCERPT_WIDTH = 120;

/**
 * Line starts per file, built once per sources map: rendering N findings of
 * a file indexes it once instead of rescanning it N times. Keyed by the map,
 * so the cache goes when the command's sources go (no module-level text).
 */
const lineIndexes = new WeakMap<ReadonlyMap<string, string>, Map<string, number[]>>();
function startOfLine(sources: ReadonlyMap<string, string>, file: string, text: string, line: number): number | undefined {
  let perFile = lineIndexes.get(sources);
  if (!perFile) lineIndexes.set(sources, (perFile = new Map()));
  let starts = perFile.get(file);
  if (!starts) {
    starts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    perFile.set(file, starts);
  }
  return starts[line - 1];
}

function excerpt(sources: ReadonlyMap<string, string>, file: string | undefined, line: number | undefined, column: number | undefined): string[] {
  const text = file === undefined ? undefined : sources.get(file);
  if (file === undefined || text === undefined || line === undefined) return [];
  const start = startOfLine(sources, file, text, line);
  if (start === undefined) return [];
  const end = text.indexOf('\n', start);
  let source = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '').replace(/\t/g, ' ');
  let col = Math.max(1, column ?? 1);
  if (source.length > EXCERPT_WIDTH) {
    const from = Math.max(0, Math.min(col - 1 - EXCERPT_WIDTH / 2, source.length - EXCERPT_WIDTH));
    source = `…${source.slice(from, from + EXCERPT_WIDTH)}…`;
    col = col - from + 1;
  }
  const gutter = String(line).length;
  return [`  ${String(line)} | ${source}`, `  ${' '.repeat(gutter)} | ${' '.repeat(Math.max(0, col - 1))}^`];
}

/** One diagnostic as lines of text. */
export function renderDiagnostic(d: Diagnostic, sources: ReadonlyMap<string, string>): string {
  const where = d.file ? `${d.file}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}` : 'toolcap';
  const lines = [`${where}: ${d.severity} ${d.code}: ${d.message}`];
  lines.push(...excerpt(sources, d.file, d.line, d.column));
  if (d.hint) lines.push(`  hint: ${d.hint}`);
  for (const r of d.related ?? []) lines.push(`  ${r.message}: ${r.file ?? ''}${r.line !== undefined ? `:${r.line}:${r.column ?? 1}` : ''}`);
  // messages quote the manifest (names, keys, values) and the excerpt is its text: a line each, control characters escaped
  return lines.map(logLine).join('\n');
}

/** A count line: "12 tools; 0 errors, 3 warnings". */
export function summarize(tools: number, diagnostics: readonly Diagnostic[]): string {
  const count = (s: Diagnostic['severity']) => diagnostics.filter((d) => d.severity === s).length;
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return `${plural(tools, 'tool')}; ${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}`;
}

/**
 * The warnings of a catalog in brief, for commands that do not print each
 * one (`serve`): the first `shown` located, a count by code, and the command
 * that shows them all. Empty without warnings.
 * @example warningDigest(diagnostics, 'npx toolcap validate --config examples/toolcap.config.yaml')
 * // ['  warnings by code: UNKNOWN_FIELD 6, WEAK_DESCRIPTION 5', '  examples/a.yaml:3:1 UNKNOWN_FIELD: ...', '  all of them: npx toolcap validate ...']
 */
export function warningDigest(diagnostics: readonly Diagnostic[], rerun: string, shown = 3): string[] {
  const warnings = diagnostics.filter((d) => d.severity === 'warning');
  if (warnings.length === 0) return [];
  const byCode = new Map<string, number>();
  for (const w of warnings) byCode.set(w.code, (byCode.get(w.code) ?? 0) + 1);
  const codes = [...byCode].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const lines = [`  warnings by code: ${codes.map(([code, n]) => `${code} ${n}`).join(', ')}`];
  for (const w of warnings.slice(0, shown)) {
    const where = w.file ? `${w.file}${w.line !== undefined ? `:${w.line}:${w.column ?? 1}` : ''}` : 'toolcap';
    lines.push(logLine(`  ${where} ${w.code}: ${w.message}`));
  }
  lines.push(`  ${warnings.length > shown ? `${warnings.length - shown} more; all` : 'all'} of them, with the lines and hints: ${rerun}`);
  return lines;
}
