import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, parseSource } from '../../src/source/source.js';

const billionLaughs = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
  'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
  'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
  'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
  'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
].join('\n');

describe('parseSource: hostile and broken input becomes located diagnostics', () => {
  it.each([
    ['empty file', 'a.json', '', 'FILE_EMPTY', 1],
    ['whitespace only', 'a.yaml', '  \n\n ', 'FILE_EMPTY', 1],
    ['truncated JSON', 'a.json', '[{"name": "x",\n  "description": "y"', 'PARSE_ERROR', 2],
    ['trailing comma JSON', 'a.json', '{"a": 1,}', 'PARSE_ERROR', 1],
    ['YAML syntax', 'a.yaml', 'a: [1, 2\nb: 3', 'PARSE_ERROR', undefined],
    ['YAML duplicate keys', 'a.yaml', 'name: a\nname: b\n', 'DUPLICATE_KEY', 2],
    ['YAML alias bomb', 'a.yaml', billionLaughs, 'YAML_ALIAS_LIMIT', 1],
    ['deep JSON nesting', 'a.json', '['.repeat(10_000) + ']'.repeat(10_000), 'NESTING_TOO_DEEP', 1],
    ['deep YAML flow nesting', 'a.yaml', '['.repeat(10_000) + ']'.repeat(10_000), 'NESTING_TOO_DEEP', 1],
    ['deep YAML block nesting', 'a.yaml', Array.from({ length: 200 }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n') + ' 1', 'NESTING_TOO_DEEP', undefined],
    ['binary garbage as JSON', 'a.json', '\u0000\u0001\u0002{', 'PARSE_ERROR', 1],
    ['NUL inside a JSON string', 'a.json', '{"a":\n "x\u0000y"}', 'PARSE_ERROR', 2],
    ['binary garbage as YAML', 'a.yaml', 'a: 1\n\u0000', 'PARSE_ERROR', 2],
  ])('%s -> %s', (_name, path, text, code, line) => {
    const { file, diagnostics } = parseSource(path, text);
    expect(file).toBeUndefined();
    expect(diagnostics[0]).toMatchObject({ code, severity: 'error', file: path });
    if (line !== undefined) expect(diagnostics[0]?.line).toBe(line);
    if (text.includes('\u0000')) expect(diagnostics[0]?.message).toContain('binary file');
  });

  it('refuses nesting one level past the documented limit and accepts the limit itself', () => {
    const at = (n: number) => parseSource('a.json', '['.repeat(n) + ']'.repeat(n));
    expect(at(DEFAULT_LIMITS.maxDepth).file).toBeDefined();
    expect(at(DEFAULT_LIMITS.maxDepth + 1).diagnostics).toMatchObject([{ code: 'NESTING_TOO_DEEP' }]);
  });

  it.each([
    ['JSON', 'a.json', '{"tools": [{"name": "x", "__proto__": {"polluted": true}}]}', '/tools/0/__proto__', 1],
    ['JSON, key escaped', 'a.json', '{"tools": [{"name": "x", "\\u005f_proto__": {"polluted": true}}]}', '/tools/0/__proto__', 1],
    ['YAML', 'a.yaml', 'tools:\n  - name: x\n    __proto__:\n      polluted: true\n', '/tools/0/__proto__', 3],
  ])('%s __proto__ keys are removed and reported, and pollute nothing', (_f, path, text, pointer, line) => {
    const { file, diagnostics } = parseSource(path, text);
    expect(diagnostics).toMatchObject([{ code: 'UNSAFE_KEY', severity: 'warning', pointer, line }]);
    const tool = (file?.value as { tools: Array<Record<string, unknown>> }).tools[0]!;
    expect(Object.keys(tool)).toEqual(['name']);
    expect(Object.getPrototypeOf(tool)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('keeps constructor and prototype as ordinary keys', () => {
    const { file, diagnostics } = parseSource('a.json', '{"constructor": {"prototype": {"x": 1}}}');
    expect(diagnostics).toEqual([]);
    expect(file?.value).toEqual({ constructor: { prototype: { x: 1 } } });
    expect(({} as { x?: unknown }).x).toBeUndefined();
  });

  it('strips a byte-order mark', () => {
    expect(parseSource('a.json', '\ufeff{"a": 1}').file?.value).toEqual({ a: 1 });
  });

  it.each([
    ['json', 'a.json', '{\n  "tools": [\n    {"name": "x", "side_effects": "bad"}\n  ]\n}', '/tools/0/side_effects', { line: 3, column: 35 }, { line: 3, column: 19 }],
    ['yaml', 'a.yaml', 'tools:\n  - name: x\n    side_effects: bad\n', '/tools/0/side_effects', { line: 3, column: 19 }, { line: 3, column: 5 }],
  ])('locates values and keys by pointer in %s', (_f, path, text, pointer, value, key) => {
    const { file } = parseSource(path, text);
    expect(file?.locate(pointer)).toEqual(value);
    expect(file?.locate(pointer, true)).toEqual(key);
    expect(file?.locate('/tools/9')).toBeUndefined();
  });

  it('detects the format from content when the extension says nothing', () => {
    expect(parseSource('manifest', '[1]').file?.format).toBe('json');
    expect(parseSource('manifest', 'a: 1').file?.format).toBe('yaml');
  });
});


/** 1-based line and column of `offset` in `text`. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** One DUPLICATE_KEY, at the last occurrence of `second` in the text: the second of the two equal keys. */
function expectDuplicateAtLast(_label: string, text: string, second: string): void {
  const { file, diagnostics } = parseSource('a.yaml', text);
  expect(file).toBeUndefined();
  expect(diagnostics).toMatchObject([{ code: 'DUPLICATE_KEY', severity: 'error', file: 'a.yaml', ...positionOf(text, text.lastIndexOf(second)) }]);
}

describe('parseSource: a YAML alias key is the key it names', () => {
  it.each([
    ['an alias key after the plain key it equals', 'x: &k a\nm:\n  a: 1\n  *k : 2\n', '*k'],
    ['a plain key after an alias key it equals', 'x: &k a\nm:\n  *k : 1\n  a: 2\n', 'a: 2'],
    ['two alias keys naming equal scalars', 'x: &k a\ny: &j a\nm:\n  *k : 1\n  *j : 2\n', '*j'],
    ['one alias key twice', 'x: &k a\nm:\n  *k : 1\n  *k : 2\n', '*k'],
    ['the anchored key itself, then its alias', 'm:\n  &k a: 1\n  *k : 2\n', '*k'],
    ['in a flow mapping', 'x: &k a\nm: { a: 1, *k : 2 }\n', '*k'],
    ['a number key and an alias of the same number', 'x: &n 1\nm:\n  1: a\n  *n : b\n', '*n'],
  ])('%s -> DUPLICATE_KEY at the second one', expectDuplicateAtLast);

  it('an alias key naming another scalar is no duplicate', () => {
    const { file, diagnostics } = parseSource('a.yaml', 'x: &k b\nm:\n  a: 1\n  *k : 2\n');
    expect(diagnostics).toEqual([]);
    expect(file?.value).toEqual({ x: 'b', m: { a: 1, b: 2 } });
  });

  it('locates a value whose key is an alias', () => {
    const text = 'k: &k side_effects\ntools:\n  - name: x\n    *k : bad\n';
    const { file } = parseSource('a.yaml', text);
    expect(file?.value).toEqual({ k: 'side_effects', tools: [{ name: 'x', side_effects: 'bad' }] });
    expect(file?.locate('/tools/0/side_effects')).toEqual(positionOf(text, text.indexOf('bad')));
    expect(file?.locate('/tools/0/side_effects', true)).toEqual(positionOf(text, text.indexOf('*k')));
  });

  it('locates the document when it has no node (comments only)', () => {
    const text = '# a manifest\n# cut short\n';
    const { file } = parseSource('a.yaml', text);
    expect(file?.value).toBeNull();
    expect(file?.locate('')).toEqual({ line: 1, column: 1 });
    expect(file?.locate('/tools')).toBeUndefined();
  });
});

describe('parseSource: keys that the data makes one', () => {
  // yaml compares parsed key values, so `1` and "1" pass its check, but a plain object has one key "1": the first value was lost
  it.each([
    ['a number and a string of it', 'm:\n  1: a\n  "1": b\n', '"1"'],
    ['a boolean and a string of it', 'm:\n  true: 1\n  "true": 2\n', '"true"'],
    ['a null key and an empty string', 'm:\n  ~: 1\n  "": 2\n', '""'],
    ['two spellings of one number', 'm:\n  1.0: a\n  1: b\n', '1: b'],
    ['a hexadecimal and a decimal number', 'm:\n  0x10: a\n  16: b\n', '16: b'],
    ['not-a-number twice', 'm:\n  .nan: a\n  .NaN: b\n', '.NaN'],
    ['in a flow mapping', 'm: { 2: a, "2": b }\n', '"2"'],
  ])('%s -> DUPLICATE_KEY at the second one', expectDuplicateAtLast);

  it.each([
    ['a number and a zero-padded string', 'm:\n  1: a\n  "01": b\n', { 1: 'a', '01': 'b' }],
    ['a boolean and a capitalised string', 'm:\n  true: a\n  "True": b\n', { true: 'a', True: 'b' }],
  ])('%s are two keys', (_label, text, m) => {
    const { file, diagnostics } = parseSource('a.yaml', text);
    expect(diagnostics).toEqual([]);
    expect(file?.value).toEqual({ m });
  });

  it('locates the value of a null key under the key the data has ("")', () => {
    const text = 'm:\n  ~: bad\n';
    const { file } = parseSource('a.yaml', text);
    expect(file?.value).toEqual({ m: { '': 'bad' } });
    expect(file?.locate('/m/')).toEqual(positionOf(text, text.indexOf('bad')));
    expect(file?.locate('/m/null')).toBeUndefined();
  });
});

describe('parseSource: YAML 1.1 merge keys', () => {
  // the expected place is the first occurrence of `value` in the text
  it.each([
    ['one source', 'base: &b\n  side_effects: merged\ntools:\n  - name: x\n    <<: *b\n', 'merged'],
    ['the mapping\'s own key wins over the source', 'base: &b\n  side_effects: merged\ntools:\n  - <<: *b\n    name: x\n    side_effects: own\n', 'own'],
    ['a list of sources: the first one wins', 'a: &a\n  side_effects: first\nb: &b\n  side_effects: second\ntools:\n  - name: x\n    <<: [*a, *b]\n', 'first'],
    ['a source that merges another', 'a: &a\n  side_effects: deep\nb: &b\n  <<: *a\ntools:\n  - name: x\n    <<: *b\n', 'deep'],
  ])('%s: a merged value is located where it is written', (_label, body, value) => {
    const text = `%YAML 1.1\n---\n${body}`;
    const { file, diagnostics } = parseSource('a.yaml', text);
    expect(diagnostics).toEqual([]);
    expect((file?.value as { tools: Array<Record<string, unknown>> }).tools[0]?.['side_effects']).toBe(value);
    expect(file?.locate('/tools/0/side_effects')).toEqual(positionOf(text, text.indexOf(value)));
  });

  it('in YAML 1.2 "<<" is an ordinary key', () => {
    const text = 'tools:\n  - name: x\n    <<: { side_effects: bad }\n';
    const { file } = parseSource('a.yaml', text);
    expect(file?.locate('/tools/0/side_effects')).toBeUndefined();
    expect(file?.locate('/tools/0/<</side_effects')).toEqual(positionOf(text, text.indexOf('bad')));
  });
});
