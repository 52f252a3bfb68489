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
  // nothing to lay over: the mapped value itself (schemas share definitions; copying would expand them)
  if (leftovers === undefined) return withoutUndefined(mapped, new Map());
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

/**
 * `value` without undefined object properties, copied only where one was
 * dropped: a subtree with none is the same object, and an object reached
 * through several paths (a shared schema definition) is visited once.
 */
function withoutUndefined(value: unknown, done: Map<object, unknown>): unknown {
  if (value === null || typeof value !== 'object') return value;
  const known = done.get(value);
  if (known !== undefined) return known;
  done.set(value, value); // a cycle (not JSON) ends here
  let out: unknown = value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item: unknown, i) => {
      const kept = withoutUndefined(item, done);
      if (kept !== item) copy ??= value.slice();
      if (copy !== undefined) copy[i] = kept;
    });
    if (copy !== undefined) out = copy;
  } else if (isPlainObject(value)) {
    let copy: JsonObject | undefined;
    const keys = Object.keys(value);
    for (const key of keys) {
      const item = value[key];
      const kept = item === undefined ? undefined : withoutUndefined(item, done);
      if (kept !== item || item === undefined) copy ??= copyBefore(value, keys, key);
      if (copy !== undefined && kept !== undefined) copy[key] = kept;
    }
    if (copy !== undefined) out = copy;
  }
  done.set(value, out);
  return out;
}

/** The defined properties of `obj` that come before `stop`. */
function copyBefore(obj: JsonObject, keys: readonly string[], stop: string): JsonObject {
  const out: JsonObject = {};
  for (const key of keys) {
    if (key === stop) break;
    if (obj[key] !== undefined) out[key] = obj[key];
  }
  return out;
}
