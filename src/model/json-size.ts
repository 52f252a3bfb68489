/**
 * The size of a value written as compact JSON, without writing it.
 *
 * Self-contained tool schemas share their definitions in memory (one object
 * reached from many tools), so their JSON can be hundreds of times larger
 * than what memory holds. Sizes are remembered per object: a shared
 * definition is measured once however many tools reach it, and measuring a
 * whole catalog costs the objects it holds, not the text it would write.
 * @module
 */

/** Sizes of objects already measured (objects in a snapshot are frozen, so a size never goes stale). */
const sizes = new WeakMap<object, number>();

/**
 * UTF-8 bytes of `JSON.stringify(value)` (compact). Values JSON leaves out
 * (`undefined`, functions) count as they would be written: nothing as object
 * properties, `null` in arrays. Cycles are not JSON; each object on the path
 * counts once.
 * @example jsonSize({ a: [1, 'x'] }) === Buffer.byteLength('{"a":[1,"x"]}') // true
 */
export function jsonSize(value: unknown): number {
  return measure(value, new Set());
}

function measure(value: unknown, path: Set<object>): number {
  if (value === null) return 4;
  switch (typeof value) {
    case 'string':
      return stringSize(value);
    case 'number':
    case 'boolean':
      return String(JSON.stringify(value)).length;
    case 'object':
      break;
    default:
      return 0;
  }
  const object = value as object;
  const known = sizes.get(object);
  if (known !== undefined) return known;
  if (path.has(object)) return 0;
  path.add(object);
  let size = 2;
  if (Array.isArray(object)) {
    object.forEach((item, i) => {
      const s = item === undefined || typeof item === 'function' ? 4 : measure(item, path);
      size += s + (i > 0 ? 1 : 0);
    });
  } else {
    let first = true;
    const record = object as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (item === undefined || typeof item === 'function') continue;
      size += stringSize(key) + 1 + measure(item, path) + (first ? 0 : 1);
      first = false;
    }
  }
  path.delete(object);
  sizes.set(object, size);
  return size;
}

function stringSize(text: string): number {
  // plain ASCII without characters JSON escapes: its length plus the quotes
  // eslint-disable-next-line no-control-regex
  if (/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(text)) return text.length + 2;
  return Buffer.byteLength(JSON.stringify(text));
}
