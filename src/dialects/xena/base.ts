/**
 * What Xena tools, skills and agents share: the base definition fields
 * (`id`, `name`, `version`, `description`, `enabled`, `tags`, `metadata`),
 * and how leftovers are kept so that export gives back the exact source.
 *
 * Leftovers (unknown fields, Xena-only fields with no canonical home) are
 * stored in `extensions.xena` in the source's own shape, e.g.
 * `{ "x-owner": "ops", surface: { "x-tier": 2 } }`; export lays the mapped
 * fields over them with {@link overlay}.
 * @module
 */
import { canonicalName } from '../names.js';
import { compact } from '../../model/objects.js';
import { isPlainObject, type ObjectReader } from '../../source/reader.js';

/** The dialect id, also the key of `extensions`. */
export { overlay } from '../leftovers.js';

export const XENA = 'xena';

/** A plain JSON object. */
export type JsonObject = Record<string, unknown>;

/** The canonical fields every Xena definition fills. */
export interface BaseFields {
  name: string;
  id: string;
  title?: string | undefined;
  version?: string | undefined;
  description?: string | undefined;
  enabled?: boolean | undefined;
  tags?: string[] | undefined;
  derived?: string[] | undefined;
}

/** Keys Xena requires on skills and agents (its Zod schema has no default for them). */
export const ENTRY_REQUIRED = ['name', 'version', 'description', 'intentTypes'] as const;

/** Report MISSING_FIELD at the entry for each required key it lacks. */
export function requireKeys(reader: ObjectReader, keys: readonly string[], what: string): void {
  for (const key of keys) {
    if (reader.has(key)) continue;
    reader.context.report('MISSING_FIELD', `${what} has no "${key}".`, reader.pointer, {
      hint: `Add "${key}"; the Xena registry contract requires it.`,
      field: key,
    });
  }
}

/**
 * The entry's `id`, or undefined (reported) when there is none usable: such
 * an entry is skipped, since nothing could refer to it.
 */
function readId(reader: ObjectReader, what: string): string | undefined {
  if (!reader.has('id')) {
    reader.context.report('MISSING_FIELD', `${what} has no "id".`, reader.pointer, {
      field: 'id',
      hint: 'Give every registry entry an "id" such as "tool.tasks.example.source".',
    });
    return undefined;
  }
  const id = reader.string('id');
  if (id === '') {
    reader.context.report('INVALID_VALUE', `${what} has an empty "id".`, reader.at('id'), {
      hint: 'Give every registry entry a non-empty "id".',
    });
    return undefined;
  }
  return id;
}

/**
 * Read the base fields. Canonical `name` is the id under the naming rule
 * every dialect shares (src/dialects/names.ts: camelCase split, lower-cased,
 * other characters `_`); when that changed the id, `name` is derived and the
 * id is what export writes back.
 */
export function readBase(reader: ObjectReader, what: string): BaseFields | undefined {
  const id = readId(reader, what);
  if (id === undefined) return undefined;
  const name = canonicalName(id) || id.toLowerCase();
  return {
    name,
    id,
    title: reader.string('name'),
    version: reader.string('version'),
    description: reader.string('description'),
    enabled: reader.boolean('enabled'),
    tags: reader.strings('tags'),
    derived: name === id ? undefined : ['name'],
  };
}

/** `metadata` when it is an object (otherwise reported and left out). */
export function readMetadata(reader: ObjectReader): JsonObject | undefined {
  return reader.object('metadata')?.value;
}

/** The base fields in Xena's words, for export. */
export function exportBase(entry: {
  name: string;
  id?: string;
  title?: string;
  version?: string;
  description?: string;
  enabled?: boolean;
  tags?: readonly string[];
}): JsonObject {
  return {
    // A tool from another dialect has no Xena id: its canonical name serves.
    id: entry.id ?? entry.name,
    name: entry.title,
    version: entry.version,
    description: entry.description,
    enabled: entry.enabled,
    tags: entry.tags,
  };
}

/** This dialect's leftovers of an entry, if it has any. */
export function leftoversOf(entry: { extensions?: Record<string, JsonObject> }): JsonObject | undefined {
  return entry.extensions?.[XENA];
}

/** `{ xena: leftovers }` when there are leftovers, for `extensions`. */
export function extensionsWith(leftovers: JsonObject | undefined): Record<string, JsonObject> | undefined {
  const kept = leftovers === undefined ? undefined : compact<JsonObject>(leftovers);
  return kept === undefined ? undefined : { [XENA]: kept };
}

