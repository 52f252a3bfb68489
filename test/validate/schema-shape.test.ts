import { describe, expect, it } from 'vitest';
import { createAjv } from '../../src/model/validator.js';
import { schemaShapeProblem } from '../../src/validate/schema-shape.js';
// @ts-expect-error: plain JavaScript module shared with the benchmarks
import { corpusTools } from '../../bench/corpus.mjs';

const ajv = createAjv();
const META = 'https://json-schema.org/draft/2020-12/schema';
/** Ajv's verdict: the value validated against the 2020-12 meta-schema ($schema set aside, as toolcap does). */
const ajvVerdict = (schema: unknown) => {
  const body = schema !== null && typeof schema === 'object' && !Array.isArray(schema) ? (({ $schema: _s, ...rest }) => rest)(schema as Record<string, unknown>) : schema;
  return ajv.validate(META, body) as boolean;
};

describe('schemaShapeProblem agrees with Ajv\'s 2020-12 meta-schema', () => {
  it('on every tool schema in the corpus', () => {
    const tools = corpusTools() as Array<{ name: string; inputSchema: unknown }>;
    expect(tools.length).toBeGreaterThan(6000);
    const disagreements = tools.filter((t) => ajvVerdict(t.inputSchema) !== (schemaShapeProblem(t.inputSchema) === undefined)).map((t) => t.name);
    expect(disagreements).toEqual([]);
    // the corpus has at least one real finding (draft-04 boolean exclusiveMinimum), so both sides are exercised
    expect(tools.some((t) => schemaShapeProblem(t.inputSchema) !== undefined)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a valid object schema', { type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'] }],
    ['a boolean schema', true],
    ['unknown keywords', { type: 'string', nullable: true, 'x-vendor': { anything: [1] } }],
    ['type arrays', { type: ['string', 'null'] }],
    ['deprecated definitions and dependencies', { definitions: { a: { type: 'string' } }, dependencies: { a: ['b'], c: { required: ['d'] } } }],
    ['a keyword named like an Object member', { constructor: 1, toString: 'x', hasOwnProperty: [] }],
    ['a misspelt type', { type: 'strin' }],
    ['duplicate types', { type: ['string', 'string'] }],
    ['an empty type array', { type: [] }],
    ['required not an array', { required: 'a' }],
    ['duplicate required', { required: ['a', 'a'] }],
    ['required with a number', { required: [1] }],
    ['properties an array', { properties: [] }],
    ['a property schema that is a string', { properties: { a: 'string' } }],
    ['items an array (pre-2020 tuple form)', { items: [{ type: 'string' }] }],
    ['anyOf empty', { anyOf: [] }],
    ['draft-04 boolean exclusiveMinimum', { exclusiveMinimum: true }],
    ['negative minLength', { minLength: -1 }],
    ['fractional maxItems', { maxItems: 1.5 }],
    ['multipleOf zero', { multipleOf: 0 }],
    ['enum an object', { enum: { a: 1 } }],
    ['a nested error deep inside', { properties: { a: { items: { properties: { b: { type: 'nope' } } } } } }],
    ['a schema that is a number', 42],
    ['null', null],
  ])('%s', (_name, schema) => {
    expect(schemaShapeProblem(schema) === undefined).toBe(ajvVerdict(schema));
  });

  it('says where the problem is', () => {
    expect(schemaShapeProblem({ properties: { 'a/b': { type: 'nope' } } })).toMatch(/^\/properties\/a~1b\/type /);
  });
});
