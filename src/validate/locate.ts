/**
 * Putting a finding about a canonical entry back on its source line. The
 * rules see only the canonical model; the dialect's field map for the kind
 * of entry says where each canonical field was written in the source format
 * (a Xena agent's `skills` are its `skillIds`, an ATLAS skill's
 * `description` is its `summary`).
 * @module
 */
import { fieldSuffix, type Dialect, type EntryKind } from '../dialects/types.js';
import type { Location } from '../model/diagnostics.js';
import type { SourceFile } from '../source/source.js';
import type { Locate } from './rules.js';

/** Where one version of an entry stands: its file and the entry's JSON pointer there. */
export interface EntryOrigin {
  file: string;
  pointer: string;
}

/** What locating needs of a loaded file: its positions and the dialect it was read in. */
export interface LocatableDocument {
  file: Pick<SourceFile, 'locate'>;
  dialect: Pick<Dialect, 'fieldMaps'>;
}

/** An entry as merged: every version of it (oldest first) and which version last set each field. */
export interface LocatableEntry {
  origins: readonly EntryOrigin[];
  /** Canonical field path -> index in `origins`; a field not in it was set by `origins[0]`. */
  fieldOrigins?: ReadonlyMap<string, number>;
}

/**
 * A {@link Locate} for one entry: a canonical field path -> the file of the
 * layer that set the field, and the line, column and pointer of that field
 * in it. A field the format has no place for falls back to the entry itself.
 * @example
 * const locate = entryLocator('agent', entry, documents);
 * locate('skills') // { file: 'config/registry/agents.json', pointer: '/agents/0/skillIds', line: 7, column: 7 }
 * locate('providers', '/0/config/module') // { file: 'tools.yaml', pointer: '/tools/2/providers/0/config/module', line: 9, column: 48 }
 */
export function entryLocator(kind: EntryKind, entry: LocatableEntry, documents: ReadonlyMap<string, LocatableDocument>): Locate {
  return (path, below) => locateField(kind, entry, documents, path, below);
}

/**
 * What {@link entryLocator}'s locator answers, as a plain call: for a loop
 * over thousands of entries that need no locator of their own (a finding is
 * located once, when it is made).
 */
export function locateField(kind: EntryKind, entry: LocatableEntry, documents: ReadonlyMap<string, LocatableDocument>, path: string, below?: string): Location {
  const fieldOrigins = entry.fieldOrigins;
  // the group only matters when layers set fields (most entries have one version): no split otherwise
  const index = fieldOrigins === undefined ? 0 : (fieldOrigins.get(path) ?? fieldOrigins.get(path.split('.')[0] ?? path) ?? 0);
  const origin = entry.origins[index] ?? entry.origins[0];
  if (!origin) return {};
  const doc = documents.get(origin.file);
  const suffix = doc && fieldSuffix(doc.dialect, kind, path);
  if (doc && suffix !== undefined) {
    // a place inside the field (a provider's config.module) when the source has it there, else the field
    if (below !== undefined) {
      const inner = origin.pointer + suffix + below;
      const pos = doc.file.locate(inner);
      if (pos) return { file: origin.file, pointer: inner, ...pos };
    }
    const pointer = origin.pointer + suffix;
    const pos = doc.file.locate(pointer, true);
    if (pos) return { file: origin.file, pointer, ...pos };
  }
  return { file: origin.file, pointer: origin.pointer, ...doc?.file.locate(origin.pointer) };
}
