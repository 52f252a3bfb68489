/**
 * The extension "mirror": whatever part of an ATLAS entry has no canonical
 * home is kept in `extensions.atlas` in the entry's own shape (nested objects
 * stay nested, provider extras stay at their index), so export can lay it
 * back over the entry it rebuilds from canonical fields.
 * @module
 */
import { overlay as overlayLeftovers } from '../leftovers.js';
import { isPlainObject, type ObjectReader } from '../../source/reader.js';

/** Leftover source fields of one object, keyed as in the source. */
export type Mirror = Record<string, unknown>;

/** Copy `keys` (known ATLAS fields without a canonical home) into `into`, quietly. */
export function keep(reader: ObjectReader, keys: readonly string[], into: Mirror): void {
  for (const key of keys) if (reader.has(key)) into[key] = reader.raw(key);
}

/** Add the unread keys (reported as UNKNOWN_FIELD) to `into`. */
export function keepRest(reader: ObjectReader, into: Mirror, where: string): void {
  Object.assign(into, reader.rest({ where }));
}

/** The mirror, or undefined when it holds nothing. */
export function nonEmpty(mirror: Mirror): Mirror | undefined {
  // one own key is enough: no key array per entry
  for (const key in mirror) if (Object.prototype.hasOwnProperty.call(mirror, key)) return mirror;
  return undefined;
}

/** This dialect's extension object of a canonical entry, if any. */
export function mirrorOf(entry: { extensions?: Record<string, Record<string, unknown>> }): Mirror {
  return entry.extensions?.['atlas'] ?? {};
}

/**
 * Lay `mirror` over `base`: keys missing from `base` are taken from the
 * mirror; objects are merged key by key and arrays item by item. On a
 * clash of two plain values `base` (the canonical value) wins. Neither input
 * is modified.
 */
export function overlay(base: unknown, mirror: unknown): unknown {
  // Extras of items the canonical array no longer has are dropped: an item
  // made of extras alone (a provider without a name) would be invalid.
  return overlayLeftovers(mirror, base);
}
