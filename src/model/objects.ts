/**
 * Small object helpers used across the model and the dialects.
 * @module
 */

/** Make a type's optional properties also accept `undefined` (for building objects before `compact`). */
export type Loose<T> = { [K in keyof T]?: T[K] | undefined };

/**
 * Drop `undefined` properties, so objects satisfy `exactOptionalPropertyTypes`
 * and serialise without empty keys. Returns undefined when nothing is left.
 * @example compact({ a: 1, b: undefined }) // { a: 1 }
 */
export function compact<T extends object>(value: Loose<T>): T | undefined {
  let out: Record<string, unknown> | undefined;
  // for-in over own plain keys: no entry arrays allocated on this hot path
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out ??= {};
    out[k] = v;
  }
  return out as T | undefined;
}

/** Like {@link compact} but always returns an object (for entries with a required field). */
export function compactRequired<T extends object>(value: Loose<T>): T {
  return (compact(value) ?? {}) as T;
}

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Deep structural equality for JSON values, ignoring key order. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** JSON with keys sorted at every level: the canonical text behind content hashes. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}
