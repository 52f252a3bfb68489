/**
 * Where a JSON Schema's regular expressions (`pattern` values and
 * `patternProperties` keys) run on V8's backtracking engine rather than the
 * linear one (src/model/linear-pattern.ts), so a caller's string can hold the
 * event loop. Walked only for a schema the shape walk found such a pattern in
 * (./schema-shape.ts), which is rare: all 89 distinct patterns of the corpus
 * run on the linear engine.
 * @module
 */
import { joinPointer } from '../model/diagnostics.js';
import { patternVerdict } from '../model/linear-pattern.js';
import { isPlainObject } from '../model/objects.js';
import { SCHEMA_LISTS, SCHEMA_MAPS, SUBSCHEMA } from './schema-shape.js';

/** A regular expression in a schema that runs on V8's backtracking engine. */
export interface PatternFinding {
  /** JSON pointer of the `pattern` keyword, or of the `patternProperties` key. */
  pointer: string;
  pattern: string;
}

const NONE: readonly PatternFinding[] = [];

/**
 * Findings per schema object, as for the shape walk (./schema-shape.ts):
 * OpenAPI imports share one component among hundreds of tools, and toolcap
 * never mutates a schema after import. Pointers are relative to the object.
 * Only objects whose walk visited {@link REMEMBER_NODES} schemas or more are
 * remembered.
 */
const remembered = new WeakMap<object, readonly PatternFinding[]>();
const REMEMBER_NODES = 16;
let walked = 0;

/** The same findings seen from `token` one level up (a new list only when there are findings). */
function under(token: string | number, found: readonly PatternFinding[]): readonly PatternFinding[] {
  return found.length === 0 ? NONE : found.map((f) => ({ ...f, pointer: joinPointer('', String(token)) + f.pointer }));
}

function add(out: PatternFinding[] | undefined, found: readonly PatternFinding[]): PatternFinding[] | undefined {
  if (found.length === 0) return out;
  const into = out ?? [];
  // (a loop, not push(...found): a hostile schema may hold more findings than a call takes arguments)
  for (let i = 0; i < found.length; i++) into.push(found[i]!);
  return into;
}

/** Every regular expression in a schema that runs on V8's backtracking engine, with its pointer. */
export function schemaPatterns(schema: unknown): readonly PatternFinding[] {
  if (!isPlainObject(schema)) return NONE;
  const known = remembered.get(schema);
  if (known !== undefined) return known;
  const start = walked++;
  let out: PatternFinding[] | undefined;
  for (const key in schema) {
    const value = schema[key];
    if (key === 'pattern') {
      if (typeof value === 'string' && patternVerdict(value) === 'backtracking') out = add(out, [{ pattern: value, pointer: '/pattern' }]);
    } else if (SUBSCHEMA.has(key)) {
      out = add(out, under(key, schemaPatterns(value)));
    } else if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
      for (const name in value) {
        if (key === 'patternProperties' && patternVerdict(name) === 'backtracking') out = add(out, [{ pattern: name, pointer: joinPointer('', key, name) }]);
        out = add(out, under(key, under(name, schemaPatterns(value[name]))));
      }
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out = add(out, under(key, list(value)));
    }
  }
  const found = out ?? NONE;
  if (walked - start >= REMEMBER_NODES) remembered.set(schema, found);
  return found;
}

function list(schemas: readonly unknown[]): readonly PatternFinding[] {
  let out: PatternFinding[] | undefined;
  for (let i = 0; i < schemas.length; i++) out = add(out, under(i, schemaPatterns(schemas[i])));
  return out ?? NONE;
}
