/**
 * What the Shinkai dialect keeps in `extensions.shinkai`: top-level fields
 * with no canonical home, verbatim under their own names, and unknown keys
 * found inside `oauth`, `sqlTables` and `sqlQueries` items under the one
 * reserved key {@link ITEM_LEFTOVERS}, keyed by the item's pointer suffix
 * (e.g. "/oauth/0") so export can put each back on its item.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';
import type { Tool } from '../../model/schema.js';

/** The dialect id, also the key under `extensions`. */
const SHINKAI = 'shinkai';

/**
 * Reserved key for item leftovers. Shinkai field names are plain
 * identifiers, so a `$` key cannot clash with a real top-level field.
 */
const ITEM_LEFTOVERS = '$items';

/** Unknown keys of list items, by the item's pointer suffix relative to the tool. */
export type ItemLeftovers = Record<string, Record<string, unknown>>;

/** The extension object for a tool, or undefined when nothing needs keeping. */
export function buildExtension(
  fields: Record<string, unknown> | undefined,
  items: ItemLeftovers,
): Record<string, Record<string, unknown>> | undefined {
  const hasItems = Object.keys(items).length > 0;
  if (!fields && !hasItems) return undefined;
  return { [SHINKAI]: { ...fields, ...(hasItems ? { [ITEM_LEFTOVERS]: items } : {}) } };
}

/** Split a tool's `extensions.shinkai` back into top-level fields and item leftovers. */
export function readExtension(tool: Tool): { fields: Record<string, unknown>; items: ItemLeftovers } {
  const ext = tool.extensions?.[SHINKAI];
  if (!ext) return { fields: {}, items: {} };
  const { [ITEM_LEFTOVERS]: rawItems, ...fields } = ext;
  const items: ItemLeftovers = {};
  if (isPlainObject(rawItems)) {
    for (const [pointer, extra] of Object.entries(rawItems)) if (isPlainObject(extra)) items[pointer] = extra;
  }
  return { fields, items };
}
