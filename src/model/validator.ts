/**
 * Ajv, set up once: the compiled canonical-schema validator, and Ajv errors
 * turned into diagnostic codes.
 * @module
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { canonicalJsonSchema } from './schema.js';
import type { DiagnosticCode } from './diagnostics.js';

/** A fresh Ajv for user-written JSON Schemas: all errors, no strict-mode throws on vendor keywords. */
export function createAjv(): Ajv2020 {
  return new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
}

let canonical: ValidateFunction | undefined;

/** The compiled validator for a canonical catalog document (compiled on first use). */
export function canonicalValidator(): ValidateFunction {
  canonical ??= createAjv().compile(canonicalJsonSchema());
  return canonical;
}

/** One Ajv error as a diagnostic code, message and the pointer it concerns. */
export function describeAjvError(error: ErrorObject): { code: DiagnosticCode; message: string; pointer: string } {
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
