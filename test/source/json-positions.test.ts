import { describe, expect, it } from 'vitest';
import { jsonLocator, offsetAtDepth } from '../../src/source/json-positions.js';

const text = '{\n  "a": [1, {"b": "x\\"}y", "c": {"d": null}}],\n  "e~f": true,\n  "a/b": -1.5e3, "dup": 1, "dup": 2\n}';

describe('jsonLocator', () => {
  const locate = jsonLocator(text);
  it.each([
    [[], false, 0],
    [['a'], false, text.indexOf('[')],
    [['a'], true, text.indexOf('"a"')],
    [['a', '0'], false, text.indexOf('1')],
    [['a', '1', 'b'], false, text.indexOf('"x')],
    [['a', '1', 'c', 'd'], false, text.indexOf('null')],
    [['a', '1', 'c', 'd'], true, text.indexOf('"d"')],
    [['e~f'], false, text.indexOf('true')],
    [['a/b'], false, text.indexOf('-1.5e3')],
    [['dup'], false, text.lastIndexOf('2')],
  ])('%j (key: %s) -> offset %i', (tokens, key, offset) => {
    expect(locate(tokens, key)).toBe(offset);
  });
  it.each([[['zz']], [['a', '5']], [['a', '0', 'x']], [['e~f', 'x']]])('%j -> undefined', (tokens) => {
    expect(locate(tokens, false)).toBeUndefined();
  });
  it('agrees with JSON.parse on every key of a real-looking document', () => {
    const doc = { tools: Array.from({ length: 50 }, (_, i) => ({ name: `t${i}`, parameters: { type: 'object', properties: { [`p "${i}"`]: { type: 'string' } } } })) };
    const json = JSON.stringify(doc, null, 2);
    const at = jsonLocator(json);
    for (let i = 0; i < 50; i++) {
      const offset = at(['tools', String(i), 'parameters', 'properties', `p "${i}"`, 'type'], false);
      expect(json.slice(offset, offset! + 8)).toBe('"string"');
    }
  });
});

describe('offsetAtDepth', () => {
  it.each([
    ['[]', 1, 0],
    ['[]', 2, -1],
    ['{"a": [1, {"b": 2}]}', 3, 10],
    ['{"a": "[[[[\\"[["}', 2, -1],
    ['["\\\\", [[]]]', 3, 8],
    ['  [ [ [ ] ] ]', 3, 6],
  ])('%s at depth %i -> %i', (text, depth, offset) => {
    expect(offsetAtDepth(text, depth)).toBe(offset);
  });
});
