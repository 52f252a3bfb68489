/**
 * A semantic diff of two catalogs: tools matched by their merge key, every
 * change classified, and the gate CI runs on it — an escalation must come
 * with a version bump.
 *
 * The rules, and why, are in docs/diff.md.
 * @module
 */
import { complete } from '../model/derive.js';
import type { Tool } from '../model/schema.js';
import type { Entry } from '../registry/merge.js';
import { CHANGE_CLASSES, compareTools, type ChangeClass, type FieldChange } from './changes.js';
import { toolHash } from '../model/hash.js';
import { isVersionBump, isVersioned } from './version.js';

export type ToolStatus = 'added' | 'removed' | 'changed' | 'unchanged';

/** The class of a whole tool: its most severe change, or `added` for a new tool. */
export type ToolClass = ChangeClass | 'added';

/** What happened to one tool between the two sides. */
export interface ToolDiff {
  /** The merge key: name, or name@personas. */
  key: string;
  status: ToolStatus;
  /** The most severe class among the changes; `added` for a new tool, `relaxation` for a removed one; absent when unchanged. */
  class?: ToolClass;
  /** {@link toolHash} of the old tool; absent for an added tool. */
  oldHash?: string;
  /** {@link toolHash} of the new tool; absent for a removed tool. */
  newHash?: string;
  oldVersion?: string;
  newVersion?: string;
  /**
   * A changed tool: the new version is greater than the old by semver.
   * An added tool: it declares a valid semver version (its first release).
   */
  bumped: boolean;
  /** This tool fails the diff: an escalation without a bump, or a new writing tool without a version. */
  fails: boolean;
  /** Field changes, most severe first; empty for added, removed and unchanged tools. */
  changes: FieldChange[];
}

export interface DiffSummary {
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  /** Field changes by class, over all changed tools. */
  escalations: number;
  relaxations: number;
  neutral: number;
  /** Tools that fail the diff. */
  failing: number;
}

export interface CatalogDiff {
  /** No tool fails. */
  ok: boolean;
  /** Every tool of either side, by key. */
  tools: ToolDiff[];
  summary: DiffSummary;
}

/** A tool that can change what the world looks like: anything but mode `read` (after completion). */
function writes(tool: Tool): boolean {
  return tool.effects?.mode !== 'read';
}

function versions(oldTool: Tool | undefined, newTool: Tool | undefined): Pick<ToolDiff, 'oldVersion' | 'newVersion'> {
  return {
    ...(oldTool?.version !== undefined ? { oldVersion: oldTool.version } : {}),
    ...(newTool?.version !== undefined ? { newVersion: newTool.version } : {}),
  };
}

/**
 * Compare two versions of the tool with merge key `key`; either side may be
 * missing (added, removed). Raw tools are completed first, so derived values
 * are compared like declared ones.
 * @example
 * diffTool('files.read', { name: 'files.read', effects: { mode: 'read' } }, { name: 'files.read', effects: { mode: 'write' } })
 * // { status: 'changed', class: 'escalation', bumped: false, fails: true, changes: [{ field: 'effects.mode', ... }, ...] }
 */
export function diffTool(key: string, oldTool: Tool | undefined, newTool: Tool | undefined): ToolDiff {
  const a = oldTool && complete(oldTool);
  const b = newTool && complete(newTool);
  const hashes = { ...(a ? { oldHash: toolHash(a) } : {}), ...(b ? { newHash: toolHash(b) } : {}) };
  const base = { key, ...hashes, ...versions(a, b) };
  if (!b) return { ...base, status: a ? 'removed' : 'unchanged', ...(a ? { class: 'relaxation' as const } : {}), bumped: false, fails: false, changes: [] };
  if (!a) {
    const bumped = isVersioned(b.version);
    const fails = b.enabled !== false && writes(b) && !bumped;
    return { ...base, status: 'added', class: 'added', bumped, fails, changes: [] };
  }
  const changes = compareTools(a, b);
  const bumped = isVersionBump(a.version, b.version);
  if (changes.length === 0 && hashes.oldHash === hashes.newHash) return { ...base, status: 'unchanged', bumped, fails: false, changes };
  const worst = changes.reduce((max, c) => Math.max(max, CHANGE_CLASSES.indexOf(c.class)), 0);
  const cls = CHANGE_CLASSES[worst] ?? 'neutral';
  return { ...base, status: 'changed', class: cls, bumped, fails: cls === 'escalation' && !bumped, changes };
}

/**
 * Diff two sets of merged tools (a catalog's `tools`), matched by merge key.
 * @example
 * const diff = diffCatalogs(buildCatalog(['base/']).catalog.tools, buildCatalog(['head/']).catalog.tools);
 * if (!diff.ok) process.exitCode = 1;
 */
export function diffCatalogs(oldTools: ReadonlyArray<Entry<Tool>>, newTools: ReadonlyArray<Entry<Tool>>): CatalogDiff {
  const before = new Map(oldTools.map((e) => [e.key, e.value]));
  const after = new Map(newTools.map((e) => [e.key, e.value]));
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  const tools = keys.map((key) => diffTool(key, before.get(key), after.get(key)));
  return { ok: tools.every((t) => !t.fails), tools, summary: summarizeDiff(tools) };
}

/** Counts of a diff, for the summary line. */
export function summarizeDiff(tools: readonly ToolDiff[]): DiffSummary {
  const status = (s: ToolStatus) => tools.filter((t) => t.status === s).length;
  const changes = (c: ChangeClass) => tools.reduce((n, t) => n + t.changes.filter((x) => x.class === c).length, 0);
  return {
    added: status('added'),
    removed: status('removed'),
    changed: status('changed'),
    unchanged: status('unchanged'),
    escalations: changes('escalation'),
    relaxations: changes('relaxation'),
    neutral: changes('neutral'),
    failing: tools.filter((t) => t.fails).length,
  };
}
