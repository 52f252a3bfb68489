/**
 * The shape of a Xena registry file, and detection. Xena keeps one file per
 * kind under `config/registry/`, each an object holding one array
 * (`{ "tools": [...] }`); a bare array is accepted too. Which one a file used,
 * and any other top-level fields, are kept in `bundle.extensions.xena` keyed
 * by kind, so export writes the same shape back:
 * `{ tools: { bareArray: true } }` or `{ skills: { topLevel: { ... } } }`.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { DetectHints } from '../types.js';
import type { JsonObject } from './base.js';

/** The kinds of registry file toolcap reads, in file order. */
export const KINDS = ['tools', 'skills', 'agents'] as const;
export type Kind = (typeof KINDS)[number];

/** Where each kind lives in a Xena checkout. */
export const FILE_OF: Record<Kind, string> = {
  tools: 'config/registry/tools.json',
  skills: 'config/registry/skills.json',
  agents: 'config/registry/agents.json',
};

const REGISTRY_PATH = /(?:^|\/)config\/registry\/(tools|skills|agents)\.json$/;
const FILE_NAME = /(?:^|\/)(tools|skills|agents)\.json$/;

/** Keys that only a Xena entry of that kind has. */
const MARKERS: Record<Kind, readonly string[]> = {
  tools: ['surface', 'riskLevel'],
  skills: ['requiredCapabilities', 'preferredToolIds', 'guardrails', 'outputContract'],
  agents: ['skillIds', 'toolIds', 'resourceIds', 'constraints'],
};

function isKind(value: string | undefined): value is Kind {
  return (KINDS as readonly string[]).includes(value ?? '');
}

/** The kind a bare array holds: from the file name, else from its entries' keys, else tools. */
export function kindOfArray(path: string, items: readonly unknown[]): Kind {
  const named = FILE_NAME.exec(path)?.[1];
  if (isKind(named)) return named;
  const first = items.find(isPlainObject);
  return KINDS.find((kind) => first !== undefined && MARKERS[kind].some((key) => key in first)) ?? 'tools';
}

/** The kind a file's name says it holds, if it says. */
export function kindOfPath(path: string): Kind | undefined {
  const named = FILE_NAME.exec(path)?.[1];
  return isKind(named) ? named : undefined;
}

/** How one kind's file was written, as kept in `bundle.extensions.xena`. */
export interface FileLayout {
  bareArray?: boolean;
  topLevel?: JsonObject;
}

/** The layout recorded for `kind`, or the default (wrapped, nothing else). */
export function layoutOf(record: JsonObject | undefined, kind: Kind): FileLayout {
  const layout = record?.[kind];
  if (!isPlainObject(layout)) return {};
  const topLevel = layout['topLevel'];
  return {
    ...(layout['bareArray'] === true ? { bareArray: true } : {}),
    ...(isPlainObject(topLevel) ? { topLevel } : {}),
  };
}

function looksXena(entry: JsonObject): boolean {
  return typeof entry['id'] === 'string' && KINDS.some((kind) => MARKERS[kind].some((key) => key in entry));
}

/** Entries of other formats: no id, and keys of ATLAS functions or Pylot tools. */
function looksForeign(entry: JsonObject): boolean {
  return !('id' in entry) && ['parameters', 'side_effects', 'module', 'class_name'].some((key) => key in entry);
}

/** Canonical documents and Pylot bundles also have a `tools` array; these keys say they are not ours. */
function isOtherDocument(value: unknown): boolean {
  return isPlainObject(value) && ('toolcap' in value || 'schema_version' in value);
}

/** The arrays of entries a document holds, or undefined when it is not shaped like a registry file. */
function listsOf(value: unknown): unknown[][] | undefined {
  if (Array.isArray(value)) return [value];
  if (!isPlainObject(value)) return undefined;
  const lists = KINDS.map((kind) => value[kind]).filter((list): list is unknown[] => Array.isArray(list));
  return lists.length > 0 ? lists : undefined;
}

/**
 * Score: a file at `config/registry/(tools|skills|agents).json` is ours
 * unless its entries are clearly another format's; elsewhere, entries with
 * an `id` and a Xena-only key (`surface`, `requiredCapabilities`, `skillIds`,
 * ...) are.
 */
export function detectXena(value: unknown, hints: DetectHints): number {
  if (isOtherDocument(value)) return 0;
  const atPath = REGISTRY_PATH.test(hints.path);
  const lists = listsOf(value);
  // A misshapen object at our path is still best explained by our import's diagnostics.
  if (lists === undefined) return atPath && isPlainObject(value) ? 0.4 : 0;
  // the first 50 objects, without copying a 10,000-entry list to find them
  const entries: JsonObject[] = [];
  for (const list of lists) {
    for (const item of list) {
      if (entries.length === 50) break;
      if (isPlainObject(item)) entries.push(item);
    }
  }
  const ours = entries.filter(looksXena).length;
  if (ours === 0 && entries.some(looksForeign)) return 0;
  if (atPath) return 0.95;
  if (entries.length === 0 || ours === 0) return 0;
  return ours === entries.length ? 0.9 : 0.6;
}
