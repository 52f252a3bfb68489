/**
 * What the MCP dialect's parts share: the extension key, how leftovers are
 * kept, and how `null` is read.
 *
 * Leftovers (fields with no canonical home, unknown fields, `null` values)
 * are kept in the source's own shape, e.g. `{ icons: [...], annotations:
 * { destructiveHint: null } }`; export lays the mapped fields over them with
 * {@link overlay}, so the source comes back exactly.
 * @module
 */
import { compact } from '../../model/objects.js';
import { isPlainObject, ObjectReader } from '../../source/reader.js';

/** The dialect id, also the key of `extensions`. */
export { overlay } from '../leftovers.js';

export const MCP = 'mcp';

/** A plain JSON object. */
export type JsonObject = Record<string, unknown>;

/**
 * Split off the keys among `keys` whose value is `null`: a reader for the
 * rest, and the nulls as leftovers. Tooling built on pydantic writes unset
 * optional fields as `null` (483 of LiveMCPBench's 527 tools have
 * `"annotations": null`); toolcap reads that as absent, without a
 * diagnostic, and keeps the nulls so export writes them back.
 */
export function withoutNulls(reader: ObjectReader, keys: readonly string[]): { reader: ObjectReader; nulls?: JsonObject | undefined } {
  const nullKeys = keys.filter((key) => reader.has(key) && reader.value[key] === null);
  if (nullKeys.length === 0) return { reader };
  const rest = Object.fromEntries(Object.entries(reader.value).filter(([key]) => !nullKeys.includes(key)));
  return {
    reader: new ObjectReader(reader.context, rest, reader.pointer),
    nulls: Object.fromEntries(nullKeys.map((key) => [key, null])),
  };
}

/** Leftovers with undefined members dropped; undefined when nothing is left. */
export function keep(leftovers: JsonObject): JsonObject | undefined {
  return compact<JsonObject>(leftovers);
}


/** `extensions.mcp` of an entry, when it is an object. */
export function extensionOf(entry: { extensions?: Record<string, JsonObject> }): JsonObject | undefined {
  return entry.extensions?.[MCP];
}

/** A member of an extension record that is itself an object. */
export function objectAt(record: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = record?.[key];
  return isPlainObject(value) ? value : undefined;
}
