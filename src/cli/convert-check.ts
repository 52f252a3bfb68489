/**
 * The honesty check of `toolcap convert`: the files a conversion would
 * write are read back with the target dialect, exactly as `toolcap validate
 * --dialect <target>` would read them, before anything is written or
 * printed. A conversion whose output would not validate never succeeds
 * silently: the findings are grouped by the entry they concern, naming the
 * fields the target requires and the source did not have.
 * @module
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, relative, resolve, sep } from 'node:path';
import type { DialectId, ExportedFile } from '../dialects/types.js';
import { detectDialect } from '../dialects/lookup.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { isPlainObject } from '../model/objects.js';
import { buildCatalog } from '../registry/catalog.js';
import type { ParseLimits } from '../source/source.js';
import { serialize, writeOut } from './io.js';
import { jsonFileChunks } from './json-chunks.js';

/**
 * YAML output larger than this (as JSON) is staged as JSON: the same value,
 * read many times faster (positions in such findings are of the JSON). @default 1 MB
 */
export const STAGE_YAML_AS_JSON_BYTES = 1_000_000;

/** A finding about the converted output, located in an exported file (its export path, `/`-separated). */
export interface OutputFinding {
  diagnostic: Diagnostic;
  /** The exported file's path as the target format names it (e.g. `config/registry/tools.json`). */
  file?: string;
}

/**
 * Read the exported files back as `target`, in a temporary folder that is
 * removed afterwards. Returns every finding, with file paths made relative
 * to the export.
 */
export function checkExport(files: readonly ExportedFile[], target: DialectId, limits?: Partial<ParseLimits>): OutputFinding[] {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-convert-'));
  /** Staged path -> export path, where they differ (a large YAML file staged as JSON). */
  const renamed = new Map<string, string>();
  try {
    for (const file of files) {
      // paths come from manifest data (persona names): never stage outside the staging folder
      if (exportPathEscapes(file.path) || !isInside(dir, join(dir, ...file.path.split('/')))) {
        return [{ diagnostic: { code: 'INVALID_VALUE', severity: 'error', message: `The exported path ${JSON.stringify(file.path)} points outside the output folder; nothing was written.` } }];
      }
      // The same value reads the same from JSON, and a large YAML file takes many times longer to read with positions.
      const json = file.format === 'yaml' ? serialize(file.value, 'json') : undefined;
      const asJson = json !== undefined && json.length > STAGE_YAML_AS_JSON_BYTES;
      const staged = asJson ? `${file.path}.json` : file.path;
      if (asJson) renamed.set(staged, file.path);
      const text = asJson ? json : file.format === 'json' ? jsonFileChunks(file.value) : serialize(file.value, file.format);
      const problem = writeOut(join(dir, ...staged.split('/')), text);
      if (problem !== undefined) return [{ diagnostic: { code: 'FILE_UNREADABLE', severity: 'error', message: `Could not stage ${file.path} for checking: ${problem}` } }];
    }
    const { diagnostics } = buildCatalog([dir], { dialect: target, ...(limits ? { limits } : {}) });
    // files another exported file refers to (a capability manifest's schemas/x.json) are read through it, not as manifests
    const auxiliary = referencedFiles(files);
    // the staging folder means nothing to the user: findings name the export's own paths
    const unstage = (text: string) => [...renamed].reduce((t, [staged, path]) => t.split(staged).join(path), text.split(`${dir}${sep}`).join(''));
    const findings = diagnostics.map((d) => {
      const rel = d.file === undefined ? undefined : relativeTo(dir, d.file);
      const file = rel === undefined ? undefined : (renamed.get(rel) ?? rel);
      const related = d.related?.map((r) => ({ ...r, ...(r.file !== undefined ? { file: unstage(r.file) } : {}) }));
      const diagnostic: Diagnostic = { ...d, message: unstage(d.message), ...(file !== undefined ? { file } : {}), ...(related ? { related } : {}) };
      return { diagnostic, ...(file !== undefined ? { file } : {}) };
    });
    return findings.filter((f) => f.file === undefined || !auxiliary.has(f.file));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Exported manifests (not files other exports refer to) that detection
 * would not read as `target`: they validate only with `--dialect <target>`.
 */
export function undetected(files: readonly ExportedFile[], target: DialectId): string[] {
  const auxiliary = referencedFiles(files);
  return files.filter((f) => !auxiliary.has(f.path) && detectDialect(f.value, { path: f.path })?.dialect.id !== target).map((f) => f.path);
}

/** Export paths that some other exported file names by a relative path (schema files and the like). */
export function referencedFiles(files: readonly ExportedFile[]): Set<string> {
  const paths = new Set(files.map((f) => f.path));
  const found = new Set<string>();
  for (const file of files) {
    const folder = posix.dirname(file.path);
    for (const text of strings(file.value)) {
      const target = posix.normalize(posix.join(folder, text));
      if (target !== file.path && paths.has(target)) found.add(target);
    }
  }
  return found;
}

/** Every string in a JSON value (iteratively, so deep values cannot overflow the stack). */
function strings(value: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') out.push(node);
    else if (Array.isArray(node)) stack.push(...node);
    else if (isPlainObject(node)) stack.push(...Object.values(node));
  }
  return out;
}

/** Is `path` strictly inside `folder` (after resolving `..`)? */
export function isInside(folder: string, path: string): boolean {
  return resolve(path).startsWith(resolve(folder) + sep);
}

/**
 * Would an exported path (`/`-separated, from manifest data such as persona
 * names) leave whatever folder it is written under, or hold a NUL?
 * @example exportPathEscapes('modules/Personas/../../../x') // true
 */
export function exportPathEscapes(path: string): boolean {
  const probe = resolve(sep, 'toolcap-convert-out');
  return path.includes('\u0000') || !isInside(probe, resolve(probe, ...path.split('/')));
}

function relativeTo(dir: string, file: string): string | undefined {
  const rel = relative(dir, file);
  return rel.startsWith('..') ? undefined : rel.split(sep).join('/');
}

/** The exported value of `file` (by export path). */
export function exportedValue(files: readonly ExportedFile[], path: string | undefined): unknown {
  return files.find((f) => f.path === path)?.value;
}

/** The value at a JSON pointer, or undefined. */
export function valueAt(root: unknown, pointer: string | undefined): unknown {
  if (pointer === undefined) return undefined;
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isPlainObject(node)) node = node[token];
    else return undefined;
  }
  return node;
}

/** How an entry of the output calls itself: its `name`, `id` or `function.name`. */
export function entryLabel(entry: unknown): string | undefined {
  if (!isPlainObject(entry)) return undefined;
  for (const key of ['id', 'name']) if (typeof entry[key] === 'string') return entry[key];
  const fn = entry['function'];
  return isPlainObject(fn) && typeof fn['name'] === 'string' ? fn['name'] : undefined;
}

/**
 * The nearest entry at or above `pointer` that names itself: where a finding
 * belongs (a surface's missing key belongs to its tool).
 */
export function owningEntry(root: unknown, pointer: string | undefined): { label?: string; pointer: string } {
  const tokens = (pointer ?? '').split('/').slice(1);
  for (let n = tokens.length; n >= 0; n--) {
    const at = n === 0 ? '' : `/${tokens.slice(0, n).join('/')}`;
    const label = entryLabel(valueAt(root, at));
    if (label !== undefined) return { label, pointer: at };
  }
  return { pointer: pointer ?? '' };
}

/** How a report names an entry: its label and where it is, e.g. `"x" (tools.json#/tools/0)`. */
export function entryKey(owner: { label?: string; pointer: string }, file: string | undefined): string {
  return `${owner.label === undefined ? '' : `${JSON.stringify(owner.label)} `}(${file ?? 'output'}${owner.pointer === '' ? '' : `#${owner.pointer}`})`;
}

/**
 * Errors (and, when strict, warnings) grouped by the entry they concern:
 * one line per entry, missing fields first.
 * @example
 * 'tool.a (config/registry/tools.json#/tools/0): missing name, surface, riskLevel'
 */
export function reportLines(findings: readonly OutputFinding[], files: readonly ExportedFile[], strict = false): string[] {
  const groups = new Map<string, { missing: string[]; other: string[] }>();
  for (const { diagnostic: d, file } of findings) {
    if (!(d.severity === 'error' || (strict && d.severity === 'warning'))) continue;
    const owner = owningEntry(exportedValue(files, file), d.pointer);
    const key = entryKey(owner, file);
    const group = groups.get(key) ?? { missing: [], other: [] };
    groups.set(key, group);
    if (d.code === 'MISSING_FIELD' && d.field !== undefined) {
      const below = d.pointer !== undefined && d.pointer.length > owner.pointer.length ? `${d.pointer.slice(owner.pointer.length + 1).replace(/\//g, '.')}.` : '';
      if (!group.missing.includes(below + d.field)) group.missing.push(below + d.field);
    } else group.other.push(`${d.code}: ${d.message}`);
  }
  const lines: string[] = [];
  for (const [key, { missing, other }] of groups) {
    lines.push(`  ${key}${missing.length > 0 ? `: missing ${missing.join(', ')}` : ''}`);
    for (const message of other) lines.push(`      ${message}`);
  }
  return lines;
}
