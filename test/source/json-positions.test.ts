import { describe, expect, it } from 'vitest';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { jsonLocator, nestedDeeperThan, offsetAtDepth } from '../../src/source/json-positions.js';

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
  // small objects are searched in place, large ones (4 KiB and up) indexed: both must agree with JSON.parse
  const big = 'x'.repeat(5000);
  it.each([
    ['escaped key', '{"a\\u0062": 1, "ab": 2}', ['ab'], 'last'],
    ['escaped duplicate after a plain key', '{"ab": 1, "a\\u0062": 2}', ['ab'], 'last'],
    ['key with a backslash', '{"a\\\\b": 1, "ab": 2}', ['a\\b'], 'first'],
    ['raw text equal to a backslash token', '{"a\\\\b": 1}', ['a\\\\b'], undefined],
    ['prefix of a longer key', '{"abc": 1, "ab": 2}', ['ab'], 'last'],
    ['duplicate in a large object', `{"d": 1, "s": "${big}", "d": 2}`, ['d'], 'last'],
    ['key after a large value', `{"s": ["${big}"], "k": 3}`, ['k'], 'last'],
    ['large array item', `[{"s": "${big}", "k": 1}, {"k": 2}]`, ['1', 'k'], 'last'],
  ])('%s', (_what, json, tokens, which) => {
    const offset = jsonLocator(json)(tokens, false);
    if (which === undefined) return expect(offset).toBeUndefined();
    const value = tokens.reduce<unknown>((v, t) => (v as Record<string, unknown>)[t], JSON.parse(json));
    expect(offset).toBe(which === 'last' ? json.lastIndexOf(String(value)) : json.indexOf(String(value)));
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

describe('nestedDeeperThan', () => {
  it.each([
    ['[]', 1, false],
    ['[]', 0, true],
    ['{"a": [1, {"b": 2}]}', 2, true],
    ['{"a": [1, {"b": 2}]}', 3, false],
    ['{"a": "[[[[[["}', 1, false],
    ['1', 0, false],
    ['[[[[]]]]', 3, true],
    ['[[[[]]]]', 4, false],
  ])('%s deeper than %i: %s', (text, max, deeper) => {
    expect(nestedDeeperThan(JSON.parse(text), max)).toBe(deeper);
    // the text scan agrees (it places the finding)
    expect(offsetAtDepth(text, max + 1) >= 0).toBe(deeper);
  });
  it('stops at the limit on very deep values', () => {
    expect(nestedDeeperThan(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)), 64)).toBe(true);
  });
});

describe('jsonLocator against a full syntax tree (jsonc-parser), lookups in random order', () => {
  // deterministic pseudo-random documents: nested arrays and objects, escaped keys, strings past the 4 KiB index threshold
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const keys = ['a', 'ab', 'side_effects', 'x\\y', 'k"q', 'b/c'];
  const gen = (depth: number): unknown => {
    const r = rnd();
    if (depth > 4 || r < 0.3) return rnd() < 0.5 ? `s${rnd() < 0.1 ? 'x'.repeat(5000) : ''}` : Math.floor(rnd() * 100);
    if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 6) }, () => gen(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = 0; i < rnd() * 5; i++) o[keys[Math.floor(rnd() * keys.length)]!] = gen(depth + 1);
    return o;
  };
  const paths = (v: unknown, at: string[], out: string[][]): string[][] => {
    out.push(at);
    if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) paths((v as Record<string, unknown>)[k], [...at, k], out);
    return out;
  };
  it('finds every value and key where the tree does', () => {
    let checked = 0;
    for (let t = 0; t < 300; t++) {
      const value = gen(0);
      const text = JSON.stringify(value, null, t % 2);
      const tree = parseTree(text)!;
      const all = paths(value, [], []);
      for (let k = all.length - 1; k > 0; k--) {
        const j = Math.floor(rnd() * (k + 1));
        [all[k], all[j]] = [all[j]!, all[k]!];
      }
      const locate = jsonLocator(text);
      for (const path of all) {
        // jsonc-parser wants numbers for array items
        const segments = path.map((p, i) => (Array.isArray(path.slice(0, i).reduce<unknown>((v, q) => (v as Record<string, unknown>)[q], value)) ? Number(p) : p));
        const node = findNodeAtLocation(tree, segments)!;
        expect(locate(path, false)).toBe(node.offset);
        // a property's key: the tree's parent property node starts at the key; an array item is its own key
        const keyAt = node.parent?.type === 'property' ? node.parent.offset : node.offset;
        expect(locate(path, true)).toBe(keyAt);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });
});
