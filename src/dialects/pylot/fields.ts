/**
 * Pylot `inputs` / `outputs` and JSON Schema. Pylot writes one spec per field
 * with a boolean `required` flag inside it; the canonical model holds an
 * object schema with `properties` and a `required` list. The names written
 * with an explicit `required: false` are returned separately so the exporter
 * can give the flag back.
 * @module
 */
import { joinPointer } from '../../model/diagnostics.js';
import type { JsonSchema } from '../../model/schema.js';
import { isPlainObject, jsonType, type ObjectReader } from '../../source/reader.js';

/** One Pylot field map read as a JSON Schema. */
export interface ReadFields {
  schema?: Record<string, unknown>;
  /** Field names written with `required: false`. */
  requiredFalse?: string[];
}

/**
 * Read `inputs` or `outputs` of a tool entry. A field whose spec is not an
 * object, or whose `required` is neither a boolean nor a JSON Schema list,
 * is reported and left out.
 */
export function readFields(tool: ObjectReader, key: 'inputs' | 'outputs'): ReadFields {
  const fields = tool.object(key);
  if (!fields) return {};
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const requiredFalse: string[] = [];
  for (const name of Object.keys(fields.value)) {
    const spec = fields.object(name);
    if (!spec) continue;
    const { required: flag, ...property } = spec.value;
    if (flag === true) required.push(name);
    else if (flag === false) requiredFalse.push(name);
    else if (Array.isArray(flag)) {
      // A list is JSON Schema's own `required` of a nested object field: keep it.
      property['required'] = flag;
    } else if (flag !== undefined) {
      tool.context.report('TYPE_MISMATCH', `"required" of ${key} field "${name}" must be true or false, not ${jsonType(flag)}.`, joinPointer(spec.pointer, 'required'), {
        hint: 'Write required: true for a field callers must give, or leave it out.',
      });
    }
    properties[name] = property;
  }
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) schema['required'] = required;
  return { schema, ...(requiredFalse.length > 0 ? { requiredFalse } : {}) };
}

/**
 * Write a canonical object schema back as a Pylot field map. Keywords of the
 * outer schema other than `properties` and `required` have no Pylot home and
 * are not written; a boolean schema gives no field map.
 */
export function writeFields(schema: JsonSchema | undefined, requiredFalse: readonly string[] = []): Record<string, unknown> | undefined {
  if (!isPlainObject(schema)) return undefined;
  const properties = isPlainObject(schema['properties']) ? schema['properties'] : {};
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((n): n is string => typeof n === 'string') : []);
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    out[name] = fieldSpec(property, required.has(name) ? true : requiredFalse.includes(name) ? false : undefined);
  }
  // A required name without a property still has to reach Pylot's flag.
  for (const name of required) if (!(name in out)) out[name] = { required: true };
  return out;
}

/**
 * One field spec. Pylot's boolean flag wins over a nested JSON Schema
 * `required` list: one key cannot hold both.
 */
function fieldSpec(property: unknown, flag: boolean | undefined): Record<string, unknown> {
  const spec = isPlainObject(property) ? { ...property } : {};
  if (flag !== undefined) spec['required'] = flag;
  return spec;
}
