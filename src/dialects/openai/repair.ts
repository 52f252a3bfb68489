/**
 * Lenient reading of function parameter schemas. Real catalogs (BFCL,
 * Seal-Tools, API-Bank) write `"type"` with Python, Java or JavaScript type
 * names (`dict`, `str`, `float`, `tuple`, `any`, `String`, `HashMap`, ...)
 * where JSON Schema has its own seven names. Each such spelling is mapped to
 * its JSON Schema type, and the original spelling is recorded so export can
 * write it back.
 * @module
 */
import { isPlainObject } from '../../source/reader.js';

/** The type names JSON Schema knows. */
const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;
type JsonType = (typeof JSON_TYPES)[number];

/** `any` constrains nothing: the repair removes the `type` keyword. */
type Target = JsonType | 'any';

/**
 * Foreign type names, lowercased, and what they mean in JSON Schema. Case
 * variants of the JSON names themselves (`String`, `Boolean`, `Array`) need
 * no entry: they are matched after lowercasing.
 */
const ALIASES: Readonly<Record<string, Target>> = {
  // Python
  str: 'string',
  bytes: 'string',
  datetime: 'string',
  date: 'string',
  time: 'string',
  int: 'integer',
  float: 'number',
  bool: 'boolean',
  dict: 'object',
  list: 'array',
  tuple: 'array',
  set: 'array',
  none: 'null',
  nonetype: 'null',
  any: 'any',
  // Java and JavaScript
  char: 'string',
  character: 'string',
  long: 'integer',
  short: 'integer',
  byte: 'integer',
  biginteger: 'integer',
  double: 'number',
  bigdecimal: 'number',
  map: 'object',
  hashmap: 'object',
  linkedhashmap: 'object',
  treemap: 'object',
  arraylist: 'array',
  linkedlist: 'array',
  hashset: 'array',
};

/** A `type` value: one name or a list of names. */
export type TypeValue = string | string[];

function isJsonType(value: string): value is JsonType {
  return (JSON_TYPES as readonly string[]).includes(value);
}

/** What one foreign type name means, or undefined when it is not a known spelling. */
function targetOf(name: string): Target | undefined {
  const lower = name.trim().toLowerCase();
  if (isJsonType(lower)) return lower;
  const alias = ALIASES[lower];
  if (alias !== undefined) return alias;
  // Generic containers: List[str], ArrayList<String>, Dict[str, int], String[].
  if (lower.endsWith('[]')) return 'array';
  const head = /^([a-z]+)\s*[[<]/.exec(lower)?.[1];
  const container = head === undefined ? undefined : (ALIASES[head] ?? (isJsonType(head) ? head : undefined));
  return container === 'array' || container === 'object' ? container : undefined;
}

/**
 * The JSON Schema form of a `type` value: `{ value }` (undefined value = drop
 * the keyword), or undefined when the value needs no repair or cannot be
 * repaired (left for the JSON Schema check to report).
 * @example repairedType('dict') // { value: 'object' }
 * @example repairedType('any') // { value: undefined }
 */
export function repairedType(original: unknown): { value: TypeValue | undefined } | undefined {
  if (typeof original === 'string') {
    if (isJsonType(original)) return undefined;
    const target = targetOf(original);
    if (target === undefined) return undefined;
    return { value: target === 'any' ? undefined : target };
  }
  if (!Array.isArray(original) || !original.every((t): t is string => typeof t === 'string')) return undefined;
  if (original.every(isJsonType)) return undefined;
  const targets = original.map((t) => (isJsonType(t) ? t : targetOf(t)));
  if (targets.some((t) => t === undefined)) return undefined;
  if (targets.includes('any')) return { value: undefined };
  return { value: [...new Set(targets as JsonType[])] };
}

/** Called once per repaired `type`; `path` is relative to the schema root and ends with "type". */
export type OnRepair = (path: ReadonlyArray<string | number>, from: TypeValue, to: TypeValue | undefined) => void;

/** Keywords whose value is one subschema. */
const SCHEMA_KEYWORDS = ['items', 'additionalProperties', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'];
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LIST_KEYWORDS = ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf'];
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * A copy of `schema` with every foreign `type` spelling repaired, sharing
 * every subtree that needed no repair (the input is never modified).
 * Only schema positions are visited, so data such as `enum`, `default` and
 * `examples` is left alone.
 */
export function repairSchema(schema: Record<string, unknown>, onRepair: OnRepair, path: ReadonlyArray<string | number> = []): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  const set = (key: string, value: unknown) => {
    out ??= { ...schema };
    if (value === undefined) delete out[key];
    else out[key] = value;
  };
  const repair = repairedType(schema['type']);
  if (repair !== undefined) {
    onRepair([...path, 'type'], schema['type'] as TypeValue, repair.value);
    set('type', repair.value);
  }
  for (const key of SCHEMA_KEYWORDS) {
    const sub = schema[key];
    if (isPlainObject(sub)) {
      const fixed = repairSchema(sub, onRepair, [...path, key]);
      if (fixed !== sub) set(key, fixed);
    }
  }
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const fixed = list.map((sub, i) => (isPlainObject(sub) ? repairSchema(sub, onRepair, [...path, key, i]) : sub));
    if (fixed.some((sub, i) => sub !== list[i])) set(key, fixed);
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const map = schema[key];
    if (!isPlainObject(map)) continue;
    const fixed = repairMap(map, onRepair, [...path, key]);
    if (fixed !== map) set(key, fixed);
  }
  return out ?? schema;
}

function repairMap(map: Record<string, unknown>, onRepair: OnRepair, path: ReadonlyArray<string | number>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [name, sub] of Object.entries(map)) {
    if (!isPlainObject(sub)) continue;
    const fixed = repairSchema(sub, onRepair, [...path, name]);
    if (fixed !== sub) (out ??= { ...map })[name] = fixed;
  }
  return out ?? map;
}

/**
 * Put original `type` spellings back into `root` (modified in place; pass a
 * copy). `repairs` maps a path (tokens from `root`, ending with "type") to
 * the original spelling. A spelling goes back only where the value is still
 * the one the repair produced, so a schema changed since import keeps its
 * new value.
 */
export function restoreTypes(root: Record<string, unknown>, repairs: ReadonlyArray<readonly [ReadonlyArray<string>, unknown]>): void {
  for (const [tokens, original] of repairs) {
    const parent = parentOf(root, tokens);
    const key = tokens[tokens.length - 1];
    const expected = repairedType(original);
    if (parent === undefined || key === undefined || expected === undefined) continue;
    if (sameType(parent[key], expected.value)) parent[key] = original;
  }
}

function parentOf(root: Record<string, unknown>, tokens: ReadonlyArray<string>): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isPlainObject(node)) node = node[token];
    else return undefined;
  }
  return isPlainObject(node) ? node : undefined;
}

function sameType(current: unknown, repaired: TypeValue | undefined): boolean {
  if (Array.isArray(repaired)) return Array.isArray(current) && current.length === repaired.length && current.every((t, i) => t === repaired[i]);
  return current === repaired;
}
