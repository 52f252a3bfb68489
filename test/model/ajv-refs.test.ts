/**
 * `$ref`s in user-written schemas compile to code that grows with the
 * schema, not with references times target size (createAjv's inlineRefs).
 */
import { describe, expect, it } from 'vitest';
import { createAjv, INLINE_REF_KEYS } from '../../src/model/validator.js';

/** A response that refers `refs` times to one component of `properties` string properties. */
function fanOut(refs: number, properties: number) {
  const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [`p${i}`, { type: 'string', maxLength: 10 }])) };
  return {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: refs }, (_, i) => [`q${i}`, { $ref: '#/$defs/Big' }])),
    $defs: { Big: big },
  };
}

describe('createAjv: references to a large component', () => {
  it('compile to one shared function, not a copy per reference (the compiled code stays small)', () => {
    // Ajv's default copied the component into each reference: 60 x 400 properties is 24,000 checks in one function,
    // several MB of code; a fuzzed spec of 500 x 1,000 ran out of a 2 GB heap
    const validate = createAjv().compile(fanOut(60, 400));
    expect(String(validate).length).toBeLessThan(100_000);
    expect(validate({ q0: { p0: 'short' }, q59: { p399: 'short' } })).toBe(true);
    expect(validate({ q7: { p3: 'far too long for it' } })).toBe(false);
    expect(validate.errors).toMatchObject([{ instancePath: '/q7/p3', keyword: 'maxLength' }]);
  });

  it(`a small component (at most ${INLINE_REF_KEYS} keywords) is still compiled in place`, () => {
    const small = createAjv().compile(fanOut(3, 4));
    const direct = createAjv().compile({ type: 'object', properties: { q0: { type: 'object', properties: { p0: { type: 'string', maxLength: 10 } } } } });
    expect(small({ q2: { p1: 'far too long for it' } })).toBe(false);
    expect(small.errors).toMatchObject([{ instancePath: '/q2/p1', keyword: 'maxLength' }]);
    // the same check, whether written out or reached through a $ref
    expect(direct({ q0: { p0: 'far too long for it' } })).toBe(false);
    expect(String(small)).toContain('maxLength');
  });
});
