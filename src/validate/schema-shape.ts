/**
 * Is a value a well-formed JSON Schema (2020-12)? The keyword shapes of the
 * official meta-schema, checked in one walk.
 *
 * Why not Ajv's `validateSchema`: it costs about 15 µs per tool schema
 * (150 ms per 10,000 tools, more than parsing the catalog), on every load and
 * reload. This walk costs about 1 µs and gives the same verdict on every
 * schema in the corpus (test/validate/schema-shape.test.ts holds it to Ajv);
 * `--compile-schemas` still runs Ajv in full.
 *
 * Unlike the meta-schema, the walk also compiles each regular expression
 * (`pattern`, `patternProperties` keys): one that is not ECMAScript with the
 * `u` flag makes the schema one Ajv cannot compile, so every call would be
 * refused, and the walk notes whether any runs on V8's backtracking engine
 * (src/model/linear-pattern.ts), for the lint to find and report.
 * @module
 */
import { joinPointer } from '../model/diagnostics.js';
import { patternVerdict } from '../model/linear-pattern.js';
import { isPlainObject } from '../model/objects.js';

type Check = (value: unknown) => string | undefined;

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

const stringCheck: Check = (v) => (typeof v === 'string' ? undefined : 'must be string');
const booleanCheck: Check = (v) => (typeof v === 'boolean' ? undefined : 'must be boolean');
const numberCheck: Check = (v) => (isNumber(v) ? undefined : 'must be number');
const countCheck: Check = (v) => (isNumber(v) && Number.isInteger(v) && v >= 0 ? undefined : 'must be a non-negative integer');
const arrayCheck: Check = (v) => (Array.isArray(v) ? undefined : 'must be array');

function uniqueStrings(v: unknown): string | undefined {
  if (!Array.isArray(v)) return 'must be array';
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return 'must be an array of strings';
  return distinct(v as string[]) ? undefined : 'must not have duplicate items';
}

/** No string twice? A short list (a schema's `required`, nearly always) is compared in place, without a Set per schema. */
function distinct(v: readonly string[]): boolean {
  if (v.length > 16) return new Set(v).size === v.length;
  for (let i = 1; i < v.length; i++) for (let j = 0; j < i; j++) if (v[i] === v[j]) return false;
  return true;
}

/** A problem found below some schema: the path to it (outermost first) and what is wrong. */
interface Problem {
  path: readonly string[];
  what: string;
}

/** The same problem seen from one level up. Built only when there is a problem: the happy path allocates nothing. */
const up = (token: string | number, p: Problem | undefined): Problem | undefined => (p === undefined ? undefined : { path: [String(token), ...p.path], what: p.what });
const here = (what: string): Problem => ({ path: [], what });

/** The problem with a schema, as "<pointer> <what>", or undefined when it is well-formed. */
export function schemaShapeProblem(schema: unknown): string | undefined {
  return schemaShape(schema).problem;
}

/** The shape walk's verdict on one schema. */
export interface SchemaShape {
  /** What is wrong, as "<pointer> <what>"; undefined when the schema is well-formed. */
  problem?: string;
  /** The JSON pointer of the problem inside the schema. */
  pointer?: string;
  /** Whether a regular expression in it runs on V8's backtracking engine (only known for a well-formed schema). */
  backtracks: boolean;
}

// the happy path allocates nothing: two shared verdicts
const WELL_FORMED: SchemaShape = Object.freeze({ backtracks: false });
const BACKTRACKS: SchemaShape = Object.freeze({ backtracks: true });

/** The shape walk's verdict on a schema: its first problem, or whether a pattern backtracks. */
export function schemaShape(schema: unknown): SchemaShape {
  const before = backtracking;
  const p = check(schema);
  if (p === undefined) return backtracking === before ? WELL_FORMED : BACKTRACKS;
  const pointer = p.path.length === 0 ? '/' : joinPointer('', ...p.path);
  return { problem: `${pointer} ${p.what}`, pointer: p.path.length === 0 ? '' : pointer, backtracks: false };
}

/**
 * Verdicts per schema object. OpenAPI imports share one subschema among
 * hundreds of tools (GitHub: a 3 s re-walk, 30 ms with this); a verdict is a
 * pure function of the object, which toolcap never mutates after import.
 * Only objects whose walk visited at least {@link REMEMBER_NODES} schemas are
 * remembered: smaller ones cost less to walk again than to remember (a weak
 * map entry per tool schema made every garbage collection slower, for
 * schemas that are rarely shared).
 */
const verdicts = new WeakMap<object, Problem | undefined>();
/** Remembered well-formed schemas that hold a pattern V8's backtracking engine runs (rare: a set, not a field per verdict). */
const backtrackingSchemas = new WeakSet<object>();
const REMEMBER_NODES = 16;
/** Schemas walked so far (a counter: the difference over one walk is its size). */
let walked = 0;
/** Backtracking patterns seen so far (a counter, like {@link walked}). */
let backtracking = 0;

function check(schema: unknown): Problem | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isPlainObject(schema)) return here('must be object,boolean');
  // (a lookup of an object never remembered is cheap: it has no identity hash yet)
  if (verdicts.has(schema)) {
    if (backtrackingSchemas.has(schema)) backtracking++;
    return verdicts.get(schema);
  }
  const start = walked++;
  const backtrackingBefore = backtracking;
  let problem: Problem | undefined;
  // for-in over a parsed JSON object: its own keys, in order, without a key array per schema
  for (const key in schema) {
    problem = up(key, checkKeyword(key, schema[key]));
    if (problem !== undefined) break;
  }
  if (walked - start >= REMEMBER_NODES) {
    verdicts.set(schema, problem);
    if (problem === undefined && backtracking !== backtrackingBefore) backtrackingSchemas.add(schema);
  }
  return problem;
}

/** A regular expression's problem (not ECMAScript with the u flag); counts one that backtracks. */
function regExpProblem(source: string): string | undefined {
  const verdict = patternVerdict(source);
  if (verdict === 'linear') return undefined;
  if (verdict === 'backtracking') {
    backtracking++;
    return undefined;
  }
  return `must be a regular expression with the u flag (${verdict.invalid})`;
}

const patternProperties = (v: unknown): Problem | undefined => {
  if (!isPlainObject(v)) return here('must be object');
  for (const k in v) {
    const what = regExpProblem(k);
    const p = up(k, what === undefined ? check(v[k]) : here(what));
    if (p !== undefined) return p;
  }
  return undefined;
};

const schemaMap = (v: unknown): Problem | undefined => {
  if (!isPlainObject(v)) return here('must be object');
  for (const k in v) {
    const p = up(k, check(v[k]));
    if (p !== undefined) return p;
  }
  return undefined;
};

const schemaList = (v: unknown): Problem | undefined => {
  if (!Array.isArray(v)) return here('must be array');
  if (v.length === 0) return here('must NOT have fewer than 1 items');
  for (let i = 0; i < v.length; i++) {
    const p = up(i, check(v[i]));
    if (p !== undefined) return p;
  }
  return undefined;
};

/** Keywords whose value is a subschema. */
export const SUBSCHEMA = new Set(['items', 'contains', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema']);
/** Keywords whose value is an object of subschemas. */
export const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);
/** Keywords whose value is a non-empty array of subschemas. */
export const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

// A Map, so keywords such as "constructor" never find Object.prototype members.
const SIMPLE = new Map<string, Check>(Object.entries({
  $id: stringCheck,
  $schema: stringCheck,
  $ref: stringCheck,
  $anchor: stringCheck,
  $dynamicRef: stringCheck,
  $dynamicAnchor: stringCheck,
  $recursiveRef: stringCheck,
  $recursiveAnchor: booleanCheck,
  $comment: stringCheck,
  title: stringCheck,
  description: stringCheck,
  format: stringCheck,
  pattern: (v) => (typeof v === 'string' ? regExpProblem(v) : 'must be string'),
  contentEncoding: stringCheck,
  contentMediaType: stringCheck,
  deprecated: booleanCheck,
  readOnly: booleanCheck,
  writeOnly: booleanCheck,
  uniqueItems: booleanCheck,
  maximum: numberCheck,
  minimum: numberCheck,
  exclusiveMaximum: numberCheck,
  exclusiveMinimum: numberCheck,
  multipleOf: (v) => (isNumber(v) && v > 0 ? undefined : 'must be > 0'),
  maxLength: countCheck,
  minLength: countCheck,
  maxItems: countCheck,
  minItems: countCheck,
  maxContains: countCheck,
  minContains: countCheck,
  maxProperties: countCheck,
  minProperties: countCheck,
  required: uniqueStrings,
  enum: arrayCheck,
  examples: arrayCheck,
  $vocabulary: (v) => (isPlainObject(v) && Object.values(v).every((b) => typeof b === 'boolean') ? undefined : 'must be an object of booleans'),
  type: (v) => {
    if (typeof v === 'string') return SIMPLE_TYPES.has(v) ? undefined : 'must be equal to one of the allowed values';
    if (!Array.isArray(v) || v.length === 0) return 'must be a type name or a non-empty array of them';
    if (!v.every((t) => typeof t === 'string' && SIMPLE_TYPES.has(t))) return 'must be equal to one of the allowed values';
    return new Set(v).size === v.length ? undefined : 'must not have duplicate items';
  },
  dependentRequired: (v) => (isPlainObject(v) && Object.values(v).every((r) => uniqueStrings(r) === undefined) ? undefined : 'must be an object of string arrays'),
} satisfies Record<string, Check>));

function checkDependencies(value: unknown): Problem | undefined {
  if (!isPlainObject(value)) return here('must be object');
  for (const [k, dep] of Object.entries(value)) {
    const p = Array.isArray(dep) ? (uniqueStrings(dep) === undefined ? undefined : here('must be an array of unique strings')) : check(dep);
    if (p !== undefined) return up(k, p);
  }
  return undefined;
}

/** Every checked keyword's check, so that a key costs one lookup (most keys are `type`, `description`, `properties`). */
const KEYWORDS = new Map<string, (value: unknown) => Problem | undefined>([
  ...[...SUBSCHEMA].map((k) => [k, check] as const),
  ...[...SCHEMA_MAPS].map((k) => [k, k === 'patternProperties' ? patternProperties : schemaMap] as const),
  ...[...SCHEMA_LISTS].map((k) => [k, schemaList] as const),
  ['dependencies', checkDependencies] as const,
  ...[...SIMPLE].map(([k, simple]) => [k, (value: unknown) => {
    const problem = simple(value);
    return problem === undefined ? undefined : here(problem);
  }] as const),
]);

function checkKeyword(key: string, value: unknown): Problem | undefined {
  // unknown keywords (nullable, x-*) are allowed and not checked
  return KEYWORDS.get(key)?.(value);
}
