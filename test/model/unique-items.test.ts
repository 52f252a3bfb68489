/**
 * `uniqueItems` as toolcap's Ajv checks it (src/model/unique-items.ts): the
 * same verdicts and the same reported pair as Ajv's own check, in linear time.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { itemIdentity, repeatedPair } from '../../src/model/unique-items.js';
import { createAjv } from '../../src/model/validator.js';

const builtIn = new Ajv2020({ allErrors: true, strict: false });
const ours = createAjv();

// arrays of every JSON shape: the verdict must be Ajv's own
const ARRAYS: Array<[string, unknown[]]> = [
  ['empty', []],
  ['one item', [{ a: 1 }]],
  ['distinct objects', [{ a: 1 }, { a: 2 }, { b: 1 }]],
  ['objects equal but for key order', [{ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }]],
  ['objects with one key more', [{ a: 1 }, { a: 1, b: null }]],
  ['a number and its string', [1, '1']],
  ['null and its string', [null, 'null']],
  ['true and its string', [true, 'true']],
  ['1 and 1.0', [1, 1.0]],
  ['0 and -0', [0, -0]],
  ['an array and an object with index keys', [[1, 2], { 0: 1, 1: 2 }]],
  ['nested arrays in another order', [[1, [2, 3]], [1, [3, 2]]]],
  ['nested arrays equal', [[1, [2, 3]], 'x', [1, [2, 3]]]],
  ['a string that reads as JSON of another item', ['{"a":1}', { a: 1 }]],
  ['"__proto__" keys', [JSON.parse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 1}}')]],
  ['"__proto__" key against an empty object', [JSON.parse('{"__proto__": {}}'), {}]],
  ['three repeats of two values', [{ a: 1 }, 2, { a: 1 }, 2, 'z', 2]],
  ['unicode strings', ['é', 'e\u0301', 'é']],
];

describe('uniqueItems: the same verdict and pair as Ajv', () => {
  it.each(ARRAYS)('%s', (_label, items) => {
    const schema = { type: 'array', uniqueItems: true };
    const expected = builtIn.compile(schema);
    const actual = ours.compile(schema);
    const valid = expected(items);
    expect(actual(items)).toBe(valid);
    expect(actual.errors ?? null).toEqual(expected.errors ?? null);
  });

  it.each(ARRAYS)('uniqueItems: false accepts %s', (_label, items) => {
    expect(ours.compile({ type: 'array', uniqueItems: false })(items)).toBe(true);
  });

  it('works where the keyword sits deeper, with the instance path of the array', () => {
    const check = ours.compile({ type: 'object', properties: { tags: { type: 'array', items: { type: 'object' }, uniqueItems: true } } });
    expect(check({ tags: [{ k: 'a' }, { k: 'b' }] })).toBe(true);
    expect(check({ tags: [{ k: 'a' }, { k: 'b' }, { k: 'a' }] })).toBe(false);
    expect(check.errors).toMatchObject([{ instancePath: '/tags', keyword: 'uniqueItems', params: { i: 2, j: 0 }, schemaPath: '#/properties/tags/uniqueItems' }]);
  });

  it('the meta-schema uses it too: a type list repeating a type is no valid schema', () => {
    expect(ours.validateSchema({ type: ['string', 'number', 'string'] })).toBe(false);
    expect(ours.errors).toContainEqual(expect.objectContaining({ instancePath: '/type', keyword: 'uniqueItems', params: { i: 2, j: 0 } }));
    // 100,000 distinct non-types: each fails the enum, and with every error collected the pairs were compared too (12 s)
    const types = Array.from({ length: 100_000 }, (_, i) => i);
    expect(ours.validateSchema({ type: types })).toBe(false);
    expect(ours.errors?.some((e) => e.keyword === 'uniqueItems')).toBe(false);
  });
});

describe('uniqueItems on a large array (Ajv compares every pair: 40,000 objects took 28 s)', () => {
  const N = 60_000;
  it.each([
    ['objects', (i: number) => ({ id: i, tags: ['t', i % 7] })],
    ['arrays', (i: number) => [i]],
    ['untyped scalars', (i: number) => (i % 2 ? i : `s${i}`)],
  ] as Array<[string, (i: number) => unknown]>)('%s: all distinct pass, one repeat at the end fails', (_label, make) => {
    const check = ours.compile({ type: 'array', uniqueItems: true });
    const items = Array.from({ length: N }, (_, i) => make(i));
    expect(check(items)).toBe(true);
    expect(check([...items, make(12_345)])).toBe(false);
    expect(check.errors?.[0]?.params).toEqual({ i: N, j: 12_345 });
  });
});

describe('itemIdentity and repeatedPair', () => {
  it.each([
    [{ b: 1, a: 2 }, { a: 2, b: 1 }, true],
    [[1, 2], [2, 1], false],
    [1, '1', false],
    [{ a: undefined }, {}, true],
  ] as Array<[unknown, unknown, boolean]>)('%j and %j are equal: %s', (x, y, same) => {
    expect(itemIdentity(x) === itemIdentity(y)).toBe(same);
  });

  it('reports the last repeat and its nearest earlier twin', () => {
    expect(repeatedPair(['a', 'b', 'a', 'c', 'b', 'a'])).toEqual({ i: 5, j: 2 });
    expect(repeatedPair(['a', 'b'])).toBeUndefined();
  });
});
