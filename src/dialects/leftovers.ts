/**
 * Laying kept leftovers back over mapped fields on export, so a round trip
 * gives back fields that have no canonical home.
 * @module
 */
import { isPlainObject } from '../source/reader.js';

type JsonObject = Record<string, unknown>;

/** Own property only: a field named "constructor" or "toString" must not find Object.prototype's. */
function own(obj: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/**
 * `mapped` over `leftovers`: mapped values win; objects merge key by key and
 * arrays item by item, so leftovers fill in what the mapping did not write.
 * Undefined mapped values are dropped.
 * @example overlay({ x: 1, a: { y: 2 } }, { a: { z: 3 } }) // { x: 1, a: { y: 2, z: 3 } }
 */
export function overlay(leftovers: unknown, mapped: unknown): unknown {
  if (mapped === undefined) return leftovers;
  if (Array.isArray(mapped)) {
    const base: readonly unknown[] = Array.isArray(leftovers) ? leftovers : [];
    return mapped.map((item: unknown, i) => overlay(base[i], item));
  }
  if (isPlainObject(mapped)) {
    const base: JsonObject = isPlainObject(leftovers) ? leftovers : {};
    const out: JsonObject = { ...base };
    for (const key of Object.keys(mapped)) {
      const merged = overlay(own(base, key), mapped[key]);
      if (merged !== undefined) out[key] = merged;
    }
    return out;
  }
  return mapped;
}
