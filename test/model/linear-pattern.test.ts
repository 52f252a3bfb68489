/**
 * Schema patterns on the linear engine (src/model/linear-pattern.ts): the
 * same verdict as V8's `RegExp` with the `u` flag for every pattern the
 * translation takes, V8's engine for the rest, and catastrophic patterns
 * checked in linear time.
 */
import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { MAX_PROGRAM, linearRegExp, patternEngine, patternVerdict, toLinearSyntax } from '../../src/model/linear-pattern.js';
import { createAjv } from '../../src/model/validator.js';

const nativeTest = (pattern: string, input: string) => new RegExp(pattern, 'u').test(input);
const linearTest = (pattern: string, input: string) => linearRegExp(pattern, 'u').test(input);

/** Inputs that tell the engines' differences apart: every kind of space and line end, astral and lone surrogates. */
const INPUTS = [
  '', 'a', 'A', 'aa', 'ab', 'abc', 'a b', 'a\tb', 'a\nb', 'a\rb', ' ', '\u00a0', '\u2028', '\u2029', '\u3000', '\ufeff', '\u200b', '\v', '\f', '\b', '\0',
  '\u0085', '\u1680', '\u180e', 'é', 'e\u0301', 'Ω', 'ω', '٣', '😀', '😀😀', '\ud83d', '\ude00', 'x\ud83dy', 'a-b', 'a_b', 'a.b', 'a/b', '[', ']', '{}', '$', '^',
  'foo', 'foo bar', 'FOO', 'foo1', '2026-12-07', 'john.doe@example.com', 'ABC-123', 'hello_world-42', 'a\n', '\na', ':alpha:', 'p', 'k',
];

/** Patterns the translation takes: each must give V8's verdict on every input. */
const LINEAR = [
  '^a$', 'a', '^$', '^\\s$', '^\\S$', '\\s', '\\S+', '^\\s*$', '^[\\s]$', '^[^\\s]$', '^[\\sa]+$', '^.$', '^.+$', '.', '^..$', '^[.]$',
  '^\\w+$', '^\\W$', '^\\d$', '^\\D$', '\\bfoo\\b', '\\Bo', '^[\\b]$', '^\\cJ$', '^\\0$', '^\\x41$', '^\\u00e9$', '^\\u{1F600}$', '^\\u{1f600}+$',
  '^[\\u0041-\\u005A]+$', '^[😀-😂]$', '^😀$', '^[^a]$', '^[a-z-]+$', '^[-a]$', '^[\\-]$', '^[\\]]$', '^[\\[]$', '^\\[$', '^\\/$', '^a/b$', '^\\$$', '^\\^$',
  '^\\{\\}$', '^(?<word>\\w+)$', '^(?:a|b)+$', '^(a|)$', '^()$', '^a{2}$', '^a{1,}$', '^a{0,2}$', '^a+?$', '^a*?b?$', '^\\p{L}+$', '^\\p{Lu}$',
  '^\\P{L}$', '^[\\p{N}\\p{P}]+$', '^\\p{Zs}$', '^\\t$', '^\\v$', '^\\f$', '^\\r$', '^\\n$', 'a|b|c', '^(a+)+$', '^(\\s*,)*\\s*$', '^:alpha:$',
  '^[a-zA-Z0-9_-]{1,64}$', '^\\d{4}-\\d{2}-\\d{2}$', "^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[a-z0-9.-]+$",
];

/** Patterns RE2 cannot mean the same by: they stay on V8's engine. */
const BACKTRACKING = [
  '^(?=a)\\w$', '^(?!a)\\w$', '(?<=a)b', '(?<!a)b', '^(a)\\1$', '^(?<x>a)\\k<x>$', '^\\p{Script=Greek}$', '^\\p{Letter}$', '^[\\S\\d]$',
  '^[^]$', '^[]$', '^[[a]$', '^a{1001}$', '^\\ud83d\\ude00$', '^[\\ud83d]$',
];

describe('the translation gives V8\'s verdict', () => {
  it.each(LINEAR)('%s runs on the linear engine, with the same verdict on every input', (pattern) => {
    expect(patternEngine(pattern)).toBe('linear');
    const differ = INPUTS.filter((input) => nativeTest(pattern, input) !== linearTest(pattern, input));
    expect(differ).toEqual([]);
  });

  it.each(BACKTRACKING)('%s stays on V8\'s engine, with V8\'s verdict', (pattern) => {
    expect(patternEngine(pattern)).toBe('backtracking');
    expect(linearRegExp(pattern, 'u')).toBeInstanceOf(RegExp);
    for (const input of INPUTS) expect(linearTest(pattern, input)).toBe(nativeTest(pattern, input));
  });

  it.each(['\\s', '\\S', '.', '[\\s]', '[^\\s]', '\\w', '\\p{L}', '\\P{Zs}'])('%s matches the same code points as V8 across the BMP and a stride of the astral planes', (atom) => {
    const native = new RegExp(`^${atom}$`, 'u');
    const linear = linearRegExp(`^${atom}$`, 'u');
    const differ: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x10000 ? 1 : 251) {
      // lone surrogates too: a caller's JSON string may hold one
      const input = String.fromCodePoint(cp);
      if (native.test(input) !== linear.test(input)) differ.push(cp.toString(16));
    }
    // Unicode versions may differ by a few newly assigned letters; spaces, line ends and ASCII never
    expect(differ.length).toBeLessThanOrEqual(atom.includes('\\p') || atom.includes('\\P') ? 50 : 0);
  });

  it('random patterns from the translated subset give V8\'s verdict on random inputs (seeded)', () => {
    let seed = 20261207;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const atoms = ['a', 'b', '.', '\\s', '\\S', '\\d', '\\w', '\\W', '[ab]', '[^a]', '[\\s.]', '\\u00a0', ' ', '\\n', '\\r', '\\p{L}', '😀', '\\.', '-'];
    const quantifiers = ['', '', '', '*', '+', '?', '{1,2}', '*?', '{2,}', '{0}', '{3}'];
    const piece = (depth: number): string => {
      const roll = next(10);
      if (depth < 2 && roll === 0) return `(?:${seq(depth + 1)}|${seq(depth + 1)})${quantifiers[next(quantifiers.length)]}`;
      if (depth < 2 && roll === 1) return `(${seq(depth + 1)})${quantifiers[next(quantifiers.length)]}`;
      return atoms[next(atoms.length)]! + quantifiers[next(quantifiers.length)];
    };
    const seq = (depth: number) => Array.from({ length: 1 + next(3) }, () => piece(depth)).join('');
    const chars = ['a', 'b', ' ', '\u00a0', '\n', '\r', '\u2028', '1', '.', '-', 'é', '😀', '\ud83d', '_', 'Z'];
    const differ: string[] = [];
    for (let p = 0; p < 1500; p++) {
      const pattern = `${next(2) ? '^' : ''}${seq(0)}${next(2) ? '$' : ''}`;
      const linear = linearRegExp(pattern, 'u');
      for (let s = 0; s < 12; s++) {
        const input = Array.from({ length: next(7) }, () => chars[next(chars.length)]).join('');
        if (linear.test(input) !== nativeTest(pattern, input)) differ.push(`${pattern} on ${JSON.stringify(input)}`);
      }
    }
    expect(differ).toEqual([]);
  });
});

describe('any text', () => {
  it('gets a verdict, never an exception: random texts of pattern characters (seeded)', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = ['(', ')', '[', ']', '{', '}', '{2}', '{1,', '\\', '\\u', '\\u{', '\\x', '\\c', '\\p{', '\\k<', '?', '*', '+', '|', '^', '$', '.', 'a', '1', ',', '<', '>', '=', '!', ':', '-', '😀', '\ud800'];
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: 1 + next(12) }, () => pieces[next(pieces.length)]).join('');
      expect(() => toLinearSyntax(text)).not.toThrow();
      expect(['linear', 'backtracking']).toContain(patternEngine(text));
    }
  });
});

describe('the translation', () => {
  it.each([
    ['^\\s$', String.raw`^[\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]$`],
    ['a.b', String.raw`a[^\x{A}\x{D}\x{2028}\x{2029}]b`],
    ['(?<n>x)', '(?:x)'],
    ['\\u{1F600}\\u00e9', String.raw`\x{1F600}\x{E9}`],
    ['[\\b]\\b', String.raw`[\x{8}]\b`],
  ])('%s becomes %s', (pattern, syntax) => {
    expect(toLinearSyntax(pattern)).toBe(syntax);
  });

  it('a pattern that is not valid ECMAScript still throws, as Ajv expects', () => {
    expect(() => linearRegExp('^(a$', 'u')).toThrow(SyntaxError);
    expect(() => createAjv().compile({ type: 'string', pattern: '[z-a]' })).toThrow(/Invalid regular expression/);
  });

  it('says why a pattern is not ECMAScript in a few hundred characters, however long the pattern', () => {
    const verdict = patternVerdict(`${'a'.repeat(100_000)}(`);
    expect(verdict).toMatchObject({ invalid: expect.stringContaining('Invalid regular expression') });
    expect((verdict as { invalid: string }).invalid.length).toBeLessThanOrEqual(301);
    expect((verdict as { invalid: string }).invalid).toMatch(/Unterminated group$/);
  });

  it('keeps V8\'s text, which Ajv uses to share a compiled pattern', () => {
    expect(String(linearRegExp('^a+$', 'u'))).toBe('/^a+$/u');
  });
});

describe('RE2\'s bounds, known without compiling', () => {
  // RE2 refuses nested counted repeats whose product is over 1,000; the translation must agree
  it.each([
    'a{1000}', 'a{1001}', '(?:a{10}){10}', '(?:a{100}){20}', '(?:(?:a{10}){10}){10}', '(?:(?:a{10}){10}){11}', '(?:a{500}b{500}){2}',
    '(?:a{1000}|b{1000}){2}', '(?:a*){1000}', '(?:a+){1001}', 'a{0}', '(?:a{2,}){500}', '(?:a{2,}){501}', '(?:a{0,}){1000}', '(?:a{3}){333}', '(?:a{3}){334}',
  ])('%s: translated exactly when RE2 compiles it', (pattern) => {
    let compiles = true;
    try {
      RE2JS.compile(pattern);
    } catch {
      compiles = false;
    }
    expect(toLinearSyntax(pattern) !== undefined).toBe(compiles);
  });

  it('a pattern that would compile to more than MAX_PROGRAM instructions stays on V8', () => {
    const within = 'a{1000}'.repeat(Math.floor(MAX_PROGRAM / 1000) - 1);
    const beyond = 'a{1000}'.repeat(Math.ceil(MAX_PROGRAM / 1000) + 1);
    expect(patternEngine(within)).toBe('linear');
    expect(RE2JS.compile(toLinearSyntax(within)!).programSize()).toBeLessThanOrEqual(MAX_PROGRAM);
    expect(patternEngine(beyond)).toBe('backtracking');
  });

  it('compiled patterns are shared and bounded: many large ones still give the right verdicts after the oldest are let go', () => {
    const patterns = Array.from({ length: 150 }, (_, i) => `^[a-z]{1,${900 + i}}$`);
    const engines = patterns.map((p) => linearRegExp(p, 'u'));
    // 150 patterns of about 1,800 instructions: more than the cache holds, so the first are compiled again
    for (let round = 0; round < 2; round++) {
      engines.forEach((engine, i) => {
        expect(engine.test('a'.repeat(900 + i))).toBe(true);
        expect(engine.test('a'.repeat(901 + i))).toBe(false);
      });
    }
  });
});

describe('catastrophic patterns on a caller\'s string', () => {
  // V8 alone: ^(a+)+$ doubles with each letter (28 letters took 1.3 s), so 40 would take hours;
  // the quadratic ones take minutes at these sizes
  it.each([
    ['nested quantifiers', '^(a+)+$', `${'a'.repeat(40)}!`],
    ['overlapping alternation', '^(a|a)*$', `${'a'.repeat(40)}!`],
    ['adjacent overlapping runs', '^\\s*\\s*x$', ' '.repeat(200_000)],
    ['a repeated group of optional spaces', '^(\\s*,)*\\s*$', `${' ,'.repeat(100_000)}!`],
  ])('%s (%s) is checked in linear time through createAjv', (_label, pattern, input) => {
    const validate = createAjv().compile({ type: 'object', properties: { v: { type: 'string', pattern } }, patternProperties: { [pattern]: true } });
    expect(validate({ v: input })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/v', keyword: 'pattern' });
    expect(validate({ v: input.replace(/[!x]$/, '') + (pattern.endsWith('x$') ? 'x' : '') })).toBe(true);
  });
});
