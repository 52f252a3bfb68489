/**
 * Gorilla APIBench (corpus/gorilla-apibench): TorchHub and TF-Hub model
 * APIs. These records are deliberately NOT imported as OpenAI functions
 * (see docs/dialects/openai.md): `api_arguments` holds example values in
 * three different shapes (an object of values, a list of names, or one
 * string), never types, and `api_name` is not unique, so a function schema
 * built from them would be invented. The tests pin the figures that support
 * that decision and check that no dialect mistakes the records for a
 * manifest.
 */
import { describe, expect, it } from 'vitest';
import { detectOpenai } from '../../src/dialects/openai/detect.js';
import { detectDialect } from '../../src/dialects/lookup.js';
import { canonicalJson } from '../../src/model/objects.js';
import { CORPUS, readJsonl } from './openai-adapters.js';

const FIELDS = ['api_arguments', 'api_call', 'api_name', 'description', 'domain', 'example_code', 'framework', 'functionality', 'performance', 'python_environment_requirements'];

function shapeOf(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value;
}

describe.each<[string, number, number, number, Record<string, number>]>([
  ['torchhub_api.jsonl', 94, 0, 43, { object: 40, string: 9, array: 45 }],
  ['tensorflowhub_api.jsonl', 696, 2, 55, { object: 333, string: 69, array: 294 }],
])('Gorilla %s', (file, count, duplicates, distinctNames, argumentShapes) => {
  const records = readJsonl(`${CORPUS}/gorilla-apibench/${file}`) as Array<Record<string, unknown>>;

  it(`has ${count} records (SOURCE.md) with the documented fields and ${duplicates} duplicated records`, () => {
    expect(records).toHaveLength(count);
    expect(records.filter((r) => Object.keys(r).sort().join() !== FIELDS.join())).toStrictEqual([]);
    expect(count - new Set(records.map(canonicalJson)).size).toBe(duplicates);
  });

  it(`has only ${distinctNames} distinct api_name values and api_arguments in three shapes`, () => {
    expect(new Set(records.map((r) => r['api_name'])).size).toBe(distinctNames);
    const shapes: Record<string, number> = {};
    for (const r of records) shapes[shapeOf(r['api_arguments'])] = (shapes[shapeOf(r['api_arguments'])] ?? 0) + 1;
    expect(shapes).toStrictEqual(argumentShapes);
  });

  it('is claimed by no dialect, as a whole or record by record', () => {
    expect(detectDialect(records, { path: file })).toBeUndefined();
    expect(records.filter((r) => detectOpenai(r, { path: file }) > 0 || detectDialect(r, { path: file }) !== undefined)).toStrictEqual([]);
  });
});
