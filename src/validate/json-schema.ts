/**
 * Is a tool's input, output or config schema a valid JSON Schema?
 * @module
 */
import { createAjv } from '../model/validator.js';
import type { JsonSchema } from '../model/schema.js';
import { schemaShape, type SchemaShape } from './schema-shape.js';
import { errorMessage } from '../model/errors.js';

export interface SchemaCheckOptions {
  /**
   * Check with Ajv in full: its meta-schema validation, then compiling each
   * schema, which also catches unresolvable `$ref`s and bad patterns. Costs
   * about a millisecond per schema; without it, keyword shapes are checked by
   * the fast walk in schema-shape.ts. @default false
   */
  compile?: boolean;
}

/**
 * Returns a checker giving the shape walk's verdict on a schema (./schema-shape.ts):
 * its problem, if any, and whether a pattern in it runs on V8's backtracking engine.
 */
export function createSchemaChecker(options: SchemaCheckOptions = {}): (schema: JsonSchema) => SchemaShape {
  if (!options.compile) return schemaShape;
  const ajv = createAjv();
  return (schema) => {
    if (typeof schema === 'boolean') return schemaShape(schema);
    // Schemas written against another draft are checked against 2020-12 anyway; the
    // keywords a tool schema uses are the same in all of them.
    const { $schema: _ignored, ...body } = schema;
    if (!ajv.validateSchema(body)) {
      const first = ajv.errors?.[0];
      return { problem: first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'is not a valid JSON Schema', backtracks: false };
    }
    try {
      ajv.compile(body);
      ajv.removeSchema(body);
      // compiled: whether a pattern backtracks is the walk's to say
      return schemaShape(body);
    } catch (error) {
      return { problem: errorMessage(error), backtracks: false };
    }
  };
}
