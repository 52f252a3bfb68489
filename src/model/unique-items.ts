/**
 * JSON Schema's `uniqueItems` in linear time, for every Ajv toolcap makes.
 *
 * Ajv's own check compares every pair of items with a deep equality unless
 * the schema types the items as one scalar type: quadratic in the array. A
 * tool whose input schema has `uniqueItems` over objects (Slack's OpenAPI
 * spec has 41 such arrays) let one caller hold the event loop: 40,000 small
 * objects (470 KB of arguments) took 28 s to check, and a 1 MB body minutes.
 * Here each item is reduced once to a canonical text (object keys sorted), and
 * equal items have equal texts, so a map finds the repeats.
 *
 * Equality is JSON's, which is what instances are: numbers by value (`1` and
 * `1.0` are one), strings apart from numbers, objects regardless of key order.
 * The error reports the same pair as Ajv's general check: the last item that
 * repeats an earlier one (`i`), and the nearest earlier equal item (`j`).
 * @module
 */
import type { FuncKeywordDefinition, SchemaValidateFunction } from 'ajv';

/** `JSON.stringify` replacer: an object's keys in sorted order, so equal objects read alike. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort()) {
    // defineProperty, so a "__proto__" key stays a key (plain assignment would set the prototype)
    Object.defineProperty(sorted, key, { value: source[key], enumerable: true, configurable: true, writable: true });
  }
  return sorted;
}

/** The text two items share exactly when they are equal JSON values. */
export function itemIdentity(item: unknown): string {
  return JSON.stringify(item, sortedKeys) ?? 'undefined';
}

/**
 * The repeated pair Ajv's general check reports (`i` the last item equal to
 * an earlier one, `j` the nearest such earlier item), or undefined when all
 * items differ.
 */
export function repeatedPair(items: readonly unknown[]): { i: number; j: number } | undefined {
  const lastAt = new Map<string, number>();
  let pair: { i: number; j: number } | undefined;
  for (let i = 0; i < items.length; i++) {
    const identity = itemIdentity(items[i]);
    const j = lastAt.get(identity);
    if (j !== undefined) pair = { i, j };
    lastAt.set(identity, i);
  }
  return pair;
}

const validate: SchemaValidateFunction = (unique: boolean, data: unknown[]) => {
  if (!unique) return true;
  const pair = repeatedPair(data);
  if (pair === undefined) return true;
  validate.errors = [
    { keyword: 'uniqueItems', params: pair, message: `must NOT have duplicate items (items ## ${pair.j} and ${pair.i} are identical)` },
  ];
  return false;
};

/** Replaces Ajv's `uniqueItems` (`ajv.removeKeyword('uniqueItems')` first). */
export const UNIQUE_ITEMS: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate,
};
