/**
 * Values the user supplies for fields a target format requires and the
 * source does not have (`toolcap convert --set field=value`, `--fill file`).
 * Only what the user passes is filled, only where the target's validation
 * reports it missing (MISSING_FIELD with its `field`), and never over a
 * value the conversion wrote. Field names are the target format's own, as
 * the convert report prints them (`surface`, `riskLevel`, `surface.domains`,
 * `module`).
 * @module
 */
import { readFileSync } from 'node:fs';
import type { ExportedFile } from '../dialects/types.js';
import { isPlainObject } from '../model/objects.js';
import { parseSource } from '../source/source.js';
import { entryKey, exportedValue, owningEntry, valueAt, type OutputFinding } from './convert-check.js';

/** Field values for every entry (`all`) and per entry, by the name or id the output gives it. */
export interface Fills {
  all: Record<string, unknown>;
  byEntry: Record<string, Record<string, unknown>>;
}

/** The entry key of a fill file that applies to every entry. */
export const EVERY_ENTRY = '*';

/**
 * `--set` values: `field=value`, the value read as JSON when it is JSON
 * (`true`, `3`, `["a"]`, `{"domains": ["ops"]}`), else as a string.
 * @example parseSets(['riskLevel=low', 'deterministic=true']) // { fills: { riskLevel: 'low', deterministic: true } }
 */
export function parseSets(values: readonly string[]): { fills?: Record<string, unknown>; problem?: string } {
  const fills: Record<string, unknown> = {};
  for (const item of values) {
    const eq = item.indexOf('=');
    if (eq <= 0) return { problem: `--set needs field=value, not "${item}"` };
    fills[item.slice(0, eq)] = readValue(item.slice(eq + 1));
  }
  return { fills };
}

function readValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A `--fill` file (YAML or JSON): entry name -> fields, `"*"` for every entry.
 * @example
 * // "*": { riskLevel: medium, surface: { domains: [ops], operations: [read] } }
 * // calendar_create_event: { riskLevel: high }
 */
export function readFillFile(path: string): { fills?: Fills; problem?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { problem: `cannot read the fill file ${path}` };
  }
  const parsed = parseSource(path, text);
  const error = parsed.diagnostics.find((d) => d.severity === 'error');
  if (!parsed.file || error) return { problem: `the fill file ${path} does not parse${error ? `: ${error.message}` : ''}` };
  const value = parsed.file.value;
  if (!isPlainObject(value)) return { problem: `the fill file ${path} must map entry names (or "*") to fields` };
  const fills: Fills = { all: {}, byEntry: {} };
  for (const [entry, fields] of Object.entries(value)) {
    if (!isPlainObject(fields)) return { problem: `in ${path}, "${entry}" must map field names to values` };
    if (entry === EVERY_ENTRY) fills.all = { ...fields };
    else fills.byEntry[entry] = { ...fields };
  }
  return { fills };
}

/** Does the user supply anything at all? */
export function hasFills(fills: Fills): boolean {
  return Object.keys(fills.all).length > 0 || Object.keys(fills.byEntry).length > 0;
}

/**
 * Fill the missing fields the user gave values for, in place. Returns one
 * line per entry filled, e.g. `"calendar_create_event" (config/registry/tools.json#/tools/2): riskLevel, surface`.
 */
export function applyFills(files: readonly ExportedFile[], findings: readonly OutputFinding[], fills: Fills): string[] {
  const done = new Map<string, string[]>();
  for (const { diagnostic: d, file } of findings) {
    if (d.code !== 'MISSING_FIELD' || d.field === undefined || d.pointer === undefined) continue;
    const root = exportedValue(files, file);
    const target = valueAt(root, d.pointer);
    if (!isPlainObject(target) || d.field in target) continue;
    const owner = owningEntry(root, d.pointer);
    const name = (d.pointer.length > owner.pointer.length ? `${d.pointer.slice(owner.pointer.length + 1).replace(/\//g, '.')}.` : '') + d.field;
    const own = owner.label !== undefined ? fills.byEntry[owner.label] : undefined;
    const value = own !== undefined && name in own ? own[name] : fills.all[name];
    if (value === undefined) continue;
    target[d.field] = structuredClone(value);
    const key = entryKey(owner, file);
    done.set(key, [...(done.get(key) ?? []), name]);
  }
  return [...done].map(([entry, names]) => `${entry}: ${names.join(', ')}`);
}
