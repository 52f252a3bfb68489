/**
 * Is a tool's input, output or config schema a valid JSON Schema?
 * @module
 */
import { createAjv } from '../model/validator.js';
import type { JsonSchema } from '../model/schema.js';
import { schemaShapeProblem } from './schema-shape.js';
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

/** Returns a checker giving a problem description, or undefined for a valid schema. */
export function createSchemaChecker(options: SchemaCheckOptions = {}): (schema: JsonSchema) => string | undefined {
  if (!options.compile) return schemaShapeProblem;
  const ajv = createAjv();
  return (schema) => {
    if (typeof schema === 'boolean') return undefined;
    // Schemas written against another draft are checked against 2020-12 anyway; the
    // keywords a tool schema uses are the same in all of them.
    const { $schema: _ignored, ...body } = schema;
    if (!ajv.validateSchema(body)) {
      const first = ajv.errors?.[0];
      return first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'is not a valid JSON Schema';
    }
    try {
      ajv.compile(body);
      ajv.removeSchema(body);
      return undefined;
    } catch (error) {
      return errorMessage(error);
    }
  };
}
