/**
 * `toolcap diff <old> <new> [--json] [--format text|github]`: a semantic diff
 * of two manifest sets, and the CI gate on it (docs/diff.md).
 * @module
 */
import type { Diagnostic } from '../model/diagnostics.js';
import { diffCatalogs, type CatalogDiff, type ToolDiff } from '../drift/diff.js';
import type { FieldChange } from '../drift/changes.js';
import { provenance, type Catalog, type CatalogResult } from '../registry/catalog.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { logLine, type CliIO } from './io.js';
import { renderDiagnostic } from './render.js';
import { loadConfig } from '../config/config.js';
import { catalogFromConfig, configFailure, loadCatalog } from './shared.js';

/** Output formats besides `--json`. */
export const DIFF_FORMATS = ['text', 'github'] as const;
export type DiffFormat = (typeof DIFF_FORMATS)[number];

/** Flags of `toolcap diff`. */
export interface DiffFlags {
  json?: boolean;
  /** A config: its limits (and dialect) apply to both sides; its sources are the new side when `new` is not given. */
  config?: string;
  /** @default 'text' */
  format?: DiffFormat;
}

/** Where a tool of the new side is declared (its last layer). */
interface Place {
  file?: string;
  line?: number;
}

/**
 * Load both sides, diff them and print the result; the exit code is the gate.
 * @example diffCommand('base/manifests', 'manifests', { format: 'github' }, processIO)
 */
export function diffCommand(oldPath: string, newPath: string | undefined, flags: DiffFlags, io: CliIO): ExitCode {
  const [before, after] = loadSides(oldPath, newPath, flags);
  const unreadable = before.unreadable || after.unreadable;
  const errors = [...before.diagnostics, ...after.diagnostics].filter((d) => d.severity === 'error');
  if (unreadable || errors.length > 0) {
    const why = unreadable ? 'cannot read a path' : 'cannot diff a broken manifest';
    reportBroken(why, errors, new Map([...before.sources, ...after.sources]), flags, io);
    return unreadable ? EXIT.USAGE : EXIT.FINDINGS;
  }
  const diff = diffCatalogs(before.catalog.tools, after.catalog.tools);
  const places = placesOf(after.catalog);
  if (flags.json) io.stdout(`${JSON.stringify(toJson(diff, places), null, 2)}\n`);
  else if (flags.format === 'github') io.stdout(github(diff, places));
  else io.stdout(text(diff));
  return diff.ok ? EXIT.OK : EXIT.FINDINGS;
}

/** Both sides; with a config, read with its limits, the new side defaulting to its sources. */
function loadSides(oldPath: string, newPath: string | undefined, flags: DiffFlags): [CatalogResult, CatalogResult] {
  if (flags.config === undefined) return [loadCatalog([oldPath], {}), loadCatalog(newPath === undefined ? [] : [newPath], {})];
  const loaded = loadConfig(flags.config);
  if (!loaded.config) {
    const broken = configFailure(loaded.diagnostics, loaded.unreadable, loaded.sources);
    return [broken, configFailure([], false, new Map())];
  }
  const before = catalogFromConfig(loaded.config, [oldPath], {}, false);
  const after = newPath === undefined ? catalogFromConfig(loaded.config, [], {}, true) : catalogFromConfig(loaded.config, [newPath], {}, false);
  for (const [file, text] of loaded.sources) after.sources.set(file, text);
  after.diagnostics.push(...loaded.diagnostics);
  return [before, after];
}

function reportBroken(why: string, errors: readonly Diagnostic[], sources: ReadonlyMap<string, string>, flags: DiffFlags, io: CliIO): void {
  if (flags.json) {
    io.stdout(`${JSON.stringify({ ok: false, error: why, diagnostics: errors }, null, 2)}\n`);
  } else if (flags.format === 'github') {
    for (const d of errors) io.stdout(annotation('error', { file: d.file, line: d.line, col: d.column, title: d.code }, d.message));
  }
  if (!flags.json) for (const d of errors) io.stderr(`${renderDiagnostic(d, sources)}\n`);
  io.stderr(`toolcap diff: ${why}.\n`);
}

function placesOf(catalog: Catalog): Map<string, Place> {
  const places = new Map<string, Place>();
  for (const [key, origins] of Object.entries(provenance(catalog))) {
    const last = origins[origins.length - 1];
    if (last) places.set(key, { file: last.file, ...(last.line !== undefined ? { line: last.line } : {}) });
  }
  return places;
}

// ---------------------------------------------------------------- JSON

const orNull = (v: unknown) => (v === undefined ? null : v);

function toJson(diff: CatalogDiff, places: ReadonlyMap<string, Place>) {
  return {
    ok: diff.ok,
    tools: diff.tools.map((t) => ({
      key: t.key,
      status: t.status,
      class: orNull(t.class),
      oldHash: orNull(t.oldHash),
      newHash: orNull(t.newHash),
      oldVersion: orNull(t.oldVersion),
      newVersion: orNull(t.newVersion),
      bumped: t.bumped,
      fails: t.fails,
      file: orNull(places.get(t.key)?.file),
      line: orNull(places.get(t.key)?.line),
      changes: t.changes.map((c) => ({
        field: c.field,
        class: c.class,
        old: orNull(c.old),
        new: orNull(c.new),
        oldDerived: c.oldDerived,
        newDerived: c.newDerived,
        ...(c.notes ? { notes: c.notes } : {}),
      })),
    })),
    summary: diff.summary,
  };
}

// ---------------------------------------------------------------- text

/** Longest value shown inline; longer ones (schemas, objects) are summarised by their notes. */
const INLINE_WIDTH = 48;

function shown(value: unknown, derived: boolean): string | undefined {
  if (value === undefined) return 'absent';
  // bare words stay bare (`read -> write`); text with spaces or separators is quoted
  const s = typeof value === 'string' && /^[^\s;,"]+$/.test(value) ? value : JSON.stringify(value);
  return s.length > INLINE_WIDTH ? undefined : `${s}${derived ? '*' : ''}`;
}

/** One change: `effects.mode read -> write* escalation`, or `inputSchema changed neutral (adds required parameter "x")`. */
export function describeChange(c: FieldChange): string {
  const a = shown(c.old, c.oldDerived);
  const b = shown(c.new, c.newDerived);
  const what = a !== undefined && b !== undefined ? `${c.field} ${a} -> ${b}` : `${c.field} changed`;
  return `${what} ${c.class}${c.notes ? ` (${c.notes.join(', ')})` : ''}`;
}

const version = (v: string | undefined) => v ?? 'unversioned';

function toolLine(t: ToolDiff): string {
  switch (t.status) {
    case 'added':
      return `+ ${t.key} ${version(t.newVersion)}: added${t.fails ? ', writes and has no version (fails)' : ''}; ${t.newHash}`;
    case 'removed':
      return `- ${t.key} ${version(t.oldVersion)}: removed relaxation; ${t.oldHash}`;
    default: {
      const gate = t.class === 'escalation' ? (t.bumped ? ', bumped' : ', not bumped (fails)') : '';
      const head = `~ ${t.key} ${version(t.oldVersion)} -> ${version(t.newVersion)}: ${t.class}${gate}`;
      return [head, ...t.changes.map(describeChange), `${t.oldHash} -> ${t.newHash}`].join('; ');
    }
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 changed, 1 added, 0 removed, 5 unchanged; 3 escalations, 1 relaxation, 2 neutral; 1 tool failing: files.delete". */
export function summaryLine(diff: CatalogDiff): string {
  const s = diff.summary;
  const failing = diff.tools.filter((t) => t.fails).map((t) => t.key);
  const verdict = diff.ok ? 'ok' : `${plural(s.failing, 'tool')} failing: ${failing.join(', ')}`;
  return `${s.changed} changed, ${s.added} added, ${s.removed} removed, ${s.unchanged} unchanged; ${plural(s.escalations, 'escalation')}, ${plural(s.relaxations, 'relaxation')}, ${s.neutral} neutral; ${verdict}`;
}

function text(diff: CatalogDiff): string {
  const lines = diff.tools.filter((t) => t.status !== 'unchanged').map(toolLine);
  if (diff.tools.some((t) => t.changes.some((c) => c.oldDerived || c.newDerived))) {
    lines.push('* derived: not declared; the most restrictive reading consistent with what was declared, and what toolcap enforces.');
  }
  lines.push(summaryLine(diff));
  // changes quote the manifests' values: one line each, control characters escaped
  return `${lines.map(logLine).join('\n')}\n`;
}

// ---------------------------------------------------------------- GitHub

/** Escape workflow-command data (the message). */
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** Escape a workflow-command property value. */
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** One GitHub workflow annotation line: `::error file=F,line=L,title=T::message`. */
export function annotation(level: 'error' | 'warning' | 'notice', props: Record<string, string | number | undefined>, message: string): string {
  const list = Object.entries(props)
    .filter((e): e is [string, string | number] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${level}${list ? ` ${list}` : ''}::${escapeData(message)}\n`;
}

function github(diff: CatalogDiff, places: ReadonlyMap<string, Place>): string {
  let out = '';
  for (const t of diff.tools) {
    const place = places.get(t.key) ?? {};
    const props = { file: place.file, line: place.line, title: 'toolcap diff' };
    const changes = (cls: FieldChange['class']) => t.changes.filter((c) => c.class === cls).map(describeChange).join('; ');
    const versions = `${version(t.oldVersion)} -> ${version(t.newVersion)}`;
    if (t.status === 'added') {
      const level = t.fails ? 'error' : 'notice';
      const message = t.fails
        ? `${t.key}: new tool that writes, without a version. Declare a semver version so later escalations can be bumped.`
        : `${t.key}: new tool (${version(t.newVersion)}).`;
      out += annotation(level, props, message);
    } else if (t.status === 'removed') {
      out += annotation('notice', { title: 'toolcap diff' }, `${t.key}: removed (relaxation).`);
    } else if (t.class === 'escalation') {
      out += t.bumped
        ? annotation('warning', props, `${t.key}: escalation with version bump ${versions}: ${changes('escalation')}`)
        : annotation('error', props, `${t.key}: escalation without a version bump (${versions}): ${changes('escalation')}. Raise the tool's version (semver) to acknowledge it.`);
    } else if (t.class === 'relaxation') {
      out += annotation('notice', props, `${t.key}: relaxation: ${changes('relaxation')}`);
    }
  }
  return `${out}${summaryLine(diff)}\n`;
}
