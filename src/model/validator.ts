/**
 * Ajv, set up once: the compiled canonical-schema validator, and Ajv errors
 * turned into diagnostic codes.
 * @module
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { canonicalJsonSchema } from './schema.js';
import { joinPointer, type DiagnosticCode } from './diagnostics.js';
import { closestName } from './suggest.js';
import { UNIQUE_ITEMS } from './unique-items.js';
import { linearRegExp } from './linear-pattern.js';

/**
 * The most keywords (counted through the whole subschema, as Ajv counts) a
 * `$ref` target may have and still be compiled in place at each reference.
 * Ajv's default inlines every target that has no `$ref` of its own, whatever
 * its size: an imported spec whose response refers 500 times to a component
 * of 1,000 properties compiled to half a million property checks, and
 * `validate --compile-schemas`, or the first result checked at call time, ran
 * out of a 2 GB heap. With a bound, the compiled code grows with the schema's
 * size, not with references times target size.
 */
export const INLINE_REF_KEYS = 64;

/**
 * A fresh Ajv for user-written JSON Schemas: all errors, no strict-mode
 * throws on vendor keywords, and no console output (formats are not
 * validated, yet Ajv still printed "unknown format" once per use: thousands
 * of lines on stderr for Stripe's `unix-time`). `uniqueItems` is checked in
 * linear time (./unique-items.ts): Ajv's own check is quadratic in a caller's
 * array. A `$ref` is compiled in place only when its target is small
 * ({@link INLINE_REF_KEYS}); a larger one becomes one function that every
 * reference calls. Patterns run in linear time where RE2 can mean the same
 * (./linear-pattern.ts): V8's engine backtracks on a caller's string.
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, logger: false, inlineRefs: INLINE_REF_KEYS, code: { regExp: linearRegExp } });
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(UNIQUE_ITEMS);
  return ajv;
}

let canonical: ValidateFunction | undefined;

/**
 * The compiled validator for a canonical catalog document (compiled on first
 * use). Verbose: an error carries its schema, so an unknown field's hint can
 * name the closest known one.
 */
export function canonicalValidator(): ValidateFunction {
  canonical ??= new Ajv2020({ allErrors: true, strict: false, validateFormats: false, verbose: true }).compile(canonicalJsonSchema());
  return canonical;
}

/** One Ajv error as a diagnostic code, message and the pointer it concerns. */
export function describeAjvError(error: ErrorObject): { code: DiagnosticCode; message: string; pointer: string; hint?: string } {
  const where = error.instancePath || '/';
  switch (error.keyword) {
    case 'required': {
      const missing = String((error.params as { missingProperty?: string }).missingProperty);
      return { code: 'MISSING_FIELD', message: `Missing required field "${missing}".`, pointer: error.instancePath };
    }
    case 'enum': {
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
      return {
        code: 'UNKNOWN_ENUM_VALUE',
        message: `Value at ${where} is not one of: ${allowed.map(String).join(', ')}.`,
        pointer: error.instancePath,
      };
    }
    case 'additionalProperties': {
      // the pointer is the unknown key itself, so editors and the caret excerpt land on it
      const key = String((error.params as { additionalProperty?: string }).additionalProperty);
      const known = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
      // a field of a group written one level too high (`mode:` for `effects.mode`) is named with its group
      const grouped = known ? Object.entries(known).find(([, sub]) => key in ((sub as { properties?: object }).properties ?? {})) : undefined;
      const near = grouped ? `${grouped[0]}.${key}` : known ? closestName(key, Object.keys(known)) : undefined;
      const pointer = joinPointer(error.instancePath, key);
      return {
        code: 'UNKNOWN_FIELD',
        message: `Unknown field "${key}"${near ? `; did you mean "${near}"?` : '.'}`,
        pointer,
        ...(near ? { hint: `Write "${near}", or start a field of your own with "x-".` } : { hint: 'Check the spelling against `toolcap schema`; a field of your own starts with "x-".' }),
      };
    }
    case 'type':
      return {
        code: 'TYPE_MISMATCH',
        message: `Value at ${where} must be ${String((error.params as { type?: unknown }).type)}.`,
        pointer: error.instancePath,
      };
    default:
      return { code: 'SCHEMA_VIOLATION', message: `Value at ${where} ${error.message ?? 'is invalid'}.`, pointer: error.instancePath };
  }
}
