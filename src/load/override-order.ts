/**
 * Override files within one layer. Pylot keeps a site's overrides beside the
 * base manifest (`config/tool_manifest.json` and `config/local_overrides.yaml`)
 * and its spec says later manifests override earlier ones by name. So a file
 * whose name contains `override` is not a second base manifest: it is read
 * after the layer's other files, as its own sub-layer (a *tier*), and its
 * entries override theirs by the registry's layer merge instead of being
 * duplicates. Several override files are applied in the order of their
 * names; to order them otherwise, list them as separate sources.
 * @module
 */
import { basename } from 'node:path';

/** The word in a file name that marks an override file (case-insensitive). */
export const OVERRIDE_WORD = 'override';

/**
 * Does this file (by its base name) hold overrides?
 * @example isOverrideFile('config/local_overrides.yaml') // true
 * @example isOverrideFile('config/tool_manifest.json')   // false
 */
export function isOverrideFile(path: string): boolean {
  return basename(path).toLowerCase().includes(OVERRIDE_WORD);
}

/** A file of a layer with its tier: 0 for base files, 1, 2, ... for override files in the order they apply. */
export interface TieredFile {
  path: string;
  tier: number;
}

/**
 * The files of one layer in the order they apply: base files first, in the
 * order given (a folder walk's sorted order), then each override file as its
 * own tier, sorted by base name (then by path, so the order is total).
 * @example
 * tieredFiles(['c/local_overrides.yaml', 'c/tool_manifest.json'])
 * // [{ path: 'c/tool_manifest.json', tier: 0 }, { path: 'c/local_overrides.yaml', tier: 1 }]
 */
export function tieredFiles(files: readonly string[]): TieredFile[] {
  const base = files.filter((f) => !isOverrideFile(f));
  const overrides = files
    .filter((f) => isOverrideFile(f))
    .sort((a, b) => compare(basename(a).toLowerCase(), basename(b).toLowerCase()) || compare(a, b));
  return [...base.map((path) => ({ path, tier: 0 })), ...overrides.map((path, i) => ({ path, tier: i + 1 }))];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
