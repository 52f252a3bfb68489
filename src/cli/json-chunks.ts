/**
 * JSON text in pieces, for output too large to be one string: V8 caps a
 * string at about 512 MB (2^29 characters), and one self-contained MCP
 * listing of Stripe's 417 operations is larger than that once indented. The
 * pieces joined are exactly `JSON.stringify(value, null, indent)`.
 * Hand-written because it is twenty lines over `JSON.stringify` itself; the
 * streaming JSON packages on npm serialise every scalar on their own and are
 * many times slower.
 * @module
 */

/** Containers this deep and deeper are written by one `JSON.stringify` each (a tool, in a listing). */
const SPLIT_DEPTH = 3;

/**
 * The JSON text of `value` as a sequence of strings whose concatenation is
 * `JSON.stringify(value, null, indent)` (with no trailing newline).
 * @example [...jsonChunks({ a: [1] })].join('') === JSON.stringify({ a: [1] }, null, 2) // true
 */
export function* jsonChunks(value: unknown, indent = 2): Generator<string> {
  yield* chunksOf(value, 0, ' '.repeat(indent), '');
}

function* chunksOf(value: unknown, depth: number, step: string, pad: string): Generator<string> {
  const data = hasToJSON(value) ? value.toJSON() : value;
  if (depth >= SPLIT_DEPTH || data === null || typeof data !== 'object') {
    const text = JSON.stringify(data, null, step);
    // an indented text's lines after the first are indented from column 0: move them to this depth
    yield pad === '' || text === undefined ? (text ?? 'null') : text.replaceAll('\n', `\n${pad}`);
    return;
  }
  const inner = pad + step;
  const array = Array.isArray(data);
  const items: [string | undefined, unknown][] = array
    ? // Array.from visits holes too, which JSON.stringify writes as null
      Array.from(data as unknown[], (item): [undefined, unknown] => [undefined, writable(item) ? item : null])
    : Object.entries(data).filter(([, item]) => writable(item));
  if (items.length === 0) {
    yield array ? '[]' : '{}';
    return;
  }
  yield array ? '[' : '{';
  let first = true;
  for (const [key, item] of items) {
    const head = `${first ? '' : ','}${step === '' ? '' : `\n${inner}`}`;
    yield key === undefined ? head : `${head}${JSON.stringify(key)}:${step === '' ? '' : ' '}`;
    yield* chunksOf(item, depth + 1, step, inner);
    first = false;
  }
  yield `${step === '' ? '' : `\n${pad}`}${array ? ']' : '}'}`;
}

/** What `JSON.stringify` writes in a container (undefined, functions and symbols are left out of objects and become null in arrays). */
function writable(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

function hasToJSON(value: unknown): value is { toJSON(): unknown } {
  return value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** The pieces of `serialize(value, 'json')` (io.ts): the indented text and its closing newline. */
export function* jsonFileChunks(value: unknown): Generator<string> {
  yield* jsonChunks(value);
  yield '\n';
}
