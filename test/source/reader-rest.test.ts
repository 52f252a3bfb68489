// ObjectReader.rest walks the object's keys with for-in and an own-key check (source/reader.ts: no key
// array per object). It must give what Object.keys gave: own keys only, in their order, each reported once.
import { describe, expect, it } from 'vitest';
import { parseSource } from '../../src/source/source.js';
import { createImportContext } from '../../src/source/context.js';
import { ObjectReader } from '../../src/source/reader.js';

function readerOf(text: string) {
  const file = parseSource('t.json', text).file!;
  const context = createImportContext(file);
  return { context, reader: new ObjectReader(context, file.value as Record<string, unknown>, '') };
}

describe('ObjectReader.rest', () => {
  it('keeps the unread own keys in source order (integer-like keys first, as Object.keys), one finding each', () => {
    const { context, reader } = readerOf('{"name": "x", "zeta": 1, "10": 2, "alpha": {"b": 1}, "2": 3}');
    reader.string('name');
    const rest = reader.rest();
    expect(Object.keys(rest!)).toEqual(['2', '10', 'zeta', 'alpha']);
    expect(context.diagnostics.map((d) => [d.code, d.pointer])).toEqual([
      ['UNKNOWN_FIELD', '/2'],
      ['UNKNOWN_FIELD', '/10'],
      ['UNKNOWN_FIELD', '/zeta'],
      ['UNKNOWN_FIELD', '/alpha'],
    ]);
  });

  it('never reports an inherited enumerable key as a field of the object', () => {
    const proto = { inherited: true };
    const { context } = readerOf('{}');
    const value = Object.assign(Object.create(proto) as Record<string, unknown>, { own: 1 });
    const rest = new ObjectReader(context, value, '/0').rest({ quiet: true });
    expect(rest).toEqual({ own: 1 });
    expect(Object.keys(rest!)).toEqual(['own']);
  });

  it('gives undefined when every key was read, and a number read with or without a rule', () => {
    const { context, reader } = readerOf('{"a": 1.5, "b": 2}');
    expect(reader.number('a')).toBe(1.5);
    expect(reader.number('b', { integer: true, min: 3 })).toBeUndefined();
    expect(reader.rest()).toBeUndefined();
    expect(context.diagnostics.map((d) => [d.code, d.message])).toEqual([['INVALID_VALUE', '"b" is 2, outside 3 to ∞.']]);
  });
});
