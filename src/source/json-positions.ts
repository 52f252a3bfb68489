/**
 * Where a JSON pointer lands in JSON text, without building a syntax tree.
 *
 * A full tree of a 5 MB catalog costs about 20x the text in memory; a catalog
 * with findings needs positions for only a few entries. So each container's
 * children are indexed (key offset, value offset) the first time a lookup
 * passes through it, and only those indexes are kept.
 * @module
 */

interface Child {
  key: number; // offset of the key's opening quote, or of the item for arrays
  value: number;
}

const QUOTE = 34;
const BACKSLASH = 92;

function skipWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 13 || c === 9) i++;
    else return i;
  }
}

/** Offset just past the string starting at `i` (an opening quote). */
function skipString(text: string, i: number): number {
  // indexOf jumps over long descriptions far faster than a character loop
  for (let q = text.indexOf('"', i + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return text.length;
}



/** Offset just past the value starting at `i`. */
function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return skipString(text, i);
  if (c === 123 || c === 91) {
    // A plain loop: tool schemas are dense with short tokens, where a regex search per token costs more.
    let depth = 0;
    for (; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) i = skipString(text, i) - 1;
      else if (d === 123 || d === 91) depth++;
      else if ((d === 125 || d === 93) && --depth === 0) return i + 1;
    }
    return text.length;
  }
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9) return i;
  }
  return i;
}

/**
 * Children of the container at `start`. Arrays keep one plain list of
 * item offsets (packed small integers: 10,000 items cost 80 KB, not a map of
 * objects; an item's key offset is its value's), filled only as far as a lookup needs: the item at index 4,132
 * of a 10,000-tool catalog costs a scan of 41% of the text, not all of it
 * (an array has no duplicate keys, so stopping early is exact). Objects keep
 * a map from key to offsets, filled in one scan (the last of duplicate keys
 * wins, as in JSON.parse, so the whole object must be seen).
 */
/**
 * An array's index: `next` is where its scan resumes; when `pending`, that is
 * the start of the last item listed, not yet skipped (the lookup that asked
 * for it usually scans it anyway, and then moves `next` past it: an item is
 * scanned once, not once to list it and again to look inside).
 */
type ArrayIndex = { kind: 'array'; items: number[]; next: number; done: boolean; pending: boolean };
type Index = ArrayIndex | { kind: 'object'; children: Map<string, Child> };

/**
 * Objects shorter than this are searched in place on each lookup instead of
 * indexed and kept: re-scanning a tool entry costs about a microsecond, and
 * a catalog with thousands of findings would otherwise keep thousands of
 * maps (about 2 MiB for 4,600 ATLAS warnings) for as long as it lives.
 */
const KEEP_SPAN = 4096;

function indexObject(text: string, start: number): Index {
  const children = new Map<string, Child>();
  let i = skipWhitespace(text, start + 1);
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 125 || c === 93) break;
    const keyAt = i;
    const end = skipString(text, i);
    // a key without escapes is its text (most keys): no JSON.parse per key
    const raw = text.slice(i + 1, end - 1);
    const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
    i = skipWhitespace(text, end);
    i = skipWhitespace(text, i + 1); // past ':'
    // Duplicate keys: JSON.parse keeps the last, so does this.
    children.set(name, { key: keyAt, value: i });
    i = skipWhitespace(text, skipValue(text, i));
    if (text.charCodeAt(i) === 44) i = skipWhitespace(text, i + 1);
  }
  return { kind: 'object', children };
}

/** What {@link findInObject} says of an object of {@link KEEP_SPAN} characters or more. */
const LARGE: unique symbol = Symbol('large');

/**
 * The child `token` of a small object at `start`, found in one scan without
 * building an index (nothing allocated: keys are compared in place). The
 * last of duplicate keys wins, as in JSON.parse, so the scan goes to the end.
 * {@link LARGE} as soon as the object proves to be longer than
 * {@link KEEP_SPAN}: such an object is indexed, and its index kept.
 */
function findInObject(text: string, start: number, token: string): Child | undefined | typeof LARGE {
  lastObjectEnd = -1;
  const limit = start + KEEP_SPAN;
  // a token without a backslash equals a key written without escapes exactly when their texts are equal
  const plain = !token.includes('\\');
  let found: Child | undefined;
  let i = skipWhitespace(text, start + 1);
  while (i < text.length) {
    if (i >= limit) return LARGE;
    const c = text.charCodeAt(i);
    if (c === 125 || c === 93) break;
    const keyAt = i;
    const end = skipString(text, i);
    const length = end - i - 2;
    // a key without escapes is its text; an escaped key is longer than its value and is decoded
    const same = plain && length === token.length ? text.startsWith(token, i + 1) : length >= token.length && hasBackslash(text, i + 1, end - 1) && JSON.parse(text.slice(i, end)) === token;
    i = skipWhitespace(text, end);
    i = skipWhitespace(text, i + 1); // past ':'
    if (same) found = { key: keyAt, value: i };
    const next = skipValueWithin(text, i, limit);
    if (next < 0) return LARGE;
    i = skipWhitespace(text, next);
    if (text.charCodeAt(i) === 44) i = skipWhitespace(text, i + 1);
  }
  lastObjectEnd = text.charCodeAt(i) === 125 ? i + 1 : -1;
  return found;
}

/** Just past the closing brace of the object the last {@link findInObject} scanned to its end, else -1. */
let lastObjectEnd = -1;

/** Is there a backslash in text[from, to)? (A bounded loop: keys are short, and indexOf would run on past `to`.) */
function hasBackslash(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

/** Like skipValue, but -1 as soon as a container reaches `limit` unclosed. */
function skipValueWithin(text: string, i: number, limit: number): number {
  const c = text.charCodeAt(i);
  if (c !== 123 && c !== 91) return skipValue(text, i);
  const stop = Math.min(limit, text.length);
  let depth = 0;
  for (; i < stop; i++) {
    const d = text.charCodeAt(i);
    if (d === QUOTE) i = skipString(text, i) - 1;
    else if (d === 123 || d === 91) depth++;
    else if ((d === 125 || d === 93) && --depth === 0) return i + 1;
  }
  return stop === text.length ? text.length : -1;
}

function indexContainer(text: string, start: number): Index {
  if (text.charCodeAt(start) === 123) return indexObject(text, start);
  return { kind: 'array', items: [], next: skipWhitespace(text, start + 1), done: false, pending: false };
}

/** Past the item that ends at `end`: whitespace and the comma before the next one. */
function afterItem(text: string, end: number): number {
  const i = skipWhitespace(text, end);
  return text.charCodeAt(i) === 44 ? skipWhitespace(text, i + 1) : i;
}

/** Extend an array's index until it holds item `n` (or the array ends); item `n` itself is left pending. */
function indexArrayTo(text: string, index: ArrayIndex, n: number): void {
  let i = index.next;
  if (index.pending) {
    i = afterItem(text, skipValue(text, i));
    index.pending = false;
  }
  while (!index.done && index.items.length <= n) {
    const c = text.charCodeAt(i);
    if (i >= text.length || c === 125 || c === 93) {
      index.done = true;
      break;
    }
    index.items.push(i);
    if (index.items.length > n) {
      index.pending = true;
      break;
    }
    i = afterItem(text, skipValue(text, i));
  }
  index.next = i;
}

function childOf(text: string, index: Index, token: string): Child | undefined {
  if (index.kind === 'object') return index.children.get(token);
  if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
  const n = Number(token);
  if (n >= index.items.length) indexArrayTo(text, index, n);
  const at = index.items[n];
  return at === undefined ? undefined : { key: at, value: at };
}

/**
 * Offset of the first bracket that opens nesting level `depth` (the root
 * container is level 1), or -1 when the text is not that deep.
 */
export function offsetAtDepth(text: string, depth: number): number {
  let level = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = skipString(text, i) - 1;
    else if (c === 123 || c === 91) {
      if (++level >= depth) return i;
    } else if (c === 125 || c === 93) level--;
  }
  return -1;
}

/**
 * What one walk of a parsed value finds: whether it nests deeper than `max`
 * levels (the root container is level 1; the walk never recurses deeper than
 * `max + 1`, and stops there), and whether any object has a `__proto__` own
 * key (JSON.parse makes one for `"__proto__"`, however the key was escaped).
 * Containers only: about half the cost of {@link offsetAtDepth} on a 5 MB
 * catalog, since strings, most of the text, are not scanned.
 */
export function inspectParsed(value: unknown, max: number): { deeper: boolean; protoKey: boolean } {
  const found = { deeper: false, protoKey: false };
  found.deeper = walk(value, max, 1, found);
  return found;
}

function walk(value: unknown, max: number, depth: number, found: { protoKey: boolean }): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > max) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (walk(value[i], max, depth + 1, found)) return true;
    return false;
  }
  for (const key in value) {
    if (key === '__proto__') found.protoKey = true;
    if (walk((value as Record<string, unknown>)[key], max, depth + 1, found)) return true;
  }
  return false;
}

/** Is a parsed value nested deeper than `max` levels? (See {@link inspectParsed}.) */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  return inspectParsed(value, max).deeper;
}

/** A locator over one JSON text: pointer tokens -> offset of the value (or of its key). */
export function jsonLocator(text: string): (tokens: readonly string[], key: boolean) => number | undefined {
  const indexes = new Map<number, Index>();
  const root = skipWhitespace(text, 0);
  return (tokens, key) => {
    let at = root;
    let keyAt = root;
    /** The array whose pending item is `at`, if it is. */
    let frontier: ArrayIndex | undefined;
    for (const token of tokens) {
      const c = text.charCodeAt(at);
      if (c !== 123 && c !== 91) return undefined;
      let index = indexes.get(at);
      let child: Child | undefined;
      const small = index === undefined && c === 123 ? findInObject(text, at, token) : LARGE;
      if (small !== LARGE) {
        // a small object: looked up in place, nothing kept
        child = small;
        // it was scanned to its end: the array it is the pending item of resumes after it
        if (frontier !== undefined && frontier.pending && frontier.next === at && lastObjectEnd > at) {
          frontier.next = afterItem(text, lastObjectEnd);
          frontier.pending = false;
        }
      } else {
        if (!index) {
          index = indexContainer(text, at);
          indexes.set(at, index);
        }
        child = childOf(text, index, token);
      }
      if (!child) return undefined;
      frontier = index?.kind === 'array' && index.pending && index.next === child.value ? index : undefined;
      at = child.value;
      keyAt = child.key;
    }
    return key ? keyAt : at;
  };
}
