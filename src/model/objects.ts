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

/** `"key":` texts of keys seen lately: schemas repeat a few keys (`type`, `properties`) millions of times. */
const KEY_TEXTS = new Map<string, string>();
const KEY_TEXTS_MAX = 4096;

function keyText(key: string): string {
  let text = KEY_TEXTS.get(key);
  if (text === undefined) {
    if (KEY_TEXTS.size >= KEY_TEXTS_MAX) KEY_TEXTS.clear();
    text = `${JSON.stringify(key)}:`;
    if (key.length <= 64) KEY_TEXTS.set(key, text);
  }
  return text;
}

/** JSON with keys sorted at every level: the canonical text behind content hashes. */
export function canonicalJson(value: unknown): string {
  let text = '';
  writeCanonicalJson(value, (piece) => (text += piece), Number.POSITIVE_INFINITY);
  return text;
}

/**
 * {@link canonicalJson} handed to `write` in pieces of about `chunk`
 * characters, for a hash to take as it goes: the text of a tool whose
 * schemas reach shared definitions many times over (an OpenAPI spec's
 * components, Stripe's tools average 0.2 MB and reach 10 MB) is then never
 * built whole, nor copied once per level of nesting.
 */
export function writeCanonicalJson(value: unknown, write: (text: string) => void, chunk = 65_536): void {
  // an explicit stack, not recursion: call arguments reach this unchecked, at any depth
  let buffer = '';
  const stack: CanonicalFrame[] = [];
  const open = (node: unknown): void => {
    if (node === null || typeof node !== 'object') buffer += JSON.stringify(node) ?? 'null';
    else if (Array.isArray(node)) {
      buffer += '[';
      stack.push({ node, keys: undefined, next: 0 });
    } else {
      buffer += '{';
      stack.push({ node: node as Record<string, unknown>, keys: Object.keys(node).sort(), next: 0 });
    }
  };
  open(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.keys === undefined) {
      const list = frame.node as unknown[];
      if (frame.next >= list.length) {
        buffer += ']';
        stack.pop();
      } else {
        const i = frame.next++;
        if (i > 0) buffer += ',';
        // a hole writes nothing between its commas, as Array#join always did here
        if (i in list) open(list[i]);
      }
    } else {
      const record = frame.node as Record<string, unknown>;
      let key: string | undefined;
      while (frame.next < frame.keys.length && record[(key = frame.keys[frame.next++]!)] === undefined) key = undefined;
      if (key === undefined) {
        buffer += '}';
        stack.pop();
      } else {
        buffer += frame.wrote === true ? `,${keyText(key)}` : keyText(key);
        frame.wrote = true;
        open(record[key]);
      }
    }
    if (buffer.length >= chunk) {
      write(buffer);
      buffer = '';
    }
  }
  if (buffer !== '') write(buffer);
}

/** One open array (`keys` undefined) or object of {@link writeCanonicalJson}: what it writes next. */
interface CanonicalFrame {
  node: unknown[] | Record<string, unknown>;
  keys: string[] | undefined;
  next: number;
  wrote?: boolean;
}
