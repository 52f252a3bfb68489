/**
 * JSON Schema `pattern` and `patternProperties` in linear time, for every Ajv
 * toolcap makes.
 *
 * A schema's patterns are the manifest author's, but the strings they run on
 * are the caller's. V8's engine backtracks: `^(a+)+$` against 28 letters and a
 * `!` took 1.3 s of the event loop, and each further letter doubles it; `\s*\s*x`
 * is quadratic, so a 1 MB body of spaces never finished. V8's own way out
 * (`--enable-experimental-regexp-engine-on-excessive-backtracks`) does not
 * take patterns with the `u` flag, which JSON Schema patterns need.
 *
 * So each pattern runs on RE2 (the `re2js` package: an automaton, linear in the
 * input, pure JavaScript) where RE2 means the same as ECMAScript. That needs a
 * translation, and this module owns it, because RE2's syntax is close to
 * ECMAScript's but not equal: `\s` is ASCII-only in RE2 and Unicode in
 * ECMAScript, `.` excludes only `\n` in RE2 but also `\r`, U+2028 and U+2029 in
 * ECMAScript, `[[:alpha:]]` is a POSIX class in RE2 and three items and a `]`
 * in ECMAScript, and `re2js`'s own `translateRegExp` keeps the first two as
 * they are. The translation takes a known subset, token by token, and gives
 * up on anything else; a pattern it gives up on (lookaround, backreferences,
 * Unicode property names beyond the general categories, character classes
 * that hold `\S`) runs on V8's engine as before, and `patternEngine` says so,
 * for the lint to report.
 * @module
 */
import { RE2JS } from 're2js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';

/** What ECMAScript's `\s` matches (WhiteSpace and LineTerminator), as RE2 class items. */
const WHITESPACE = String.raw`\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`;
/** What ECMAScript's `.` matches without the `s` flag: anything but a line terminator. */
const DOT = String.raw`[^\x{A}\x{D}\x{2028}\x{2029}]`;
/** Unicode general categories, which both engines name alike (`\p{Lu}`, `\P{N}`). */
const GENERAL_CATEGORIES = new Set('C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(' '));
/** Escapes that mean the same in both, outside and inside a class. */
const SAME_ESCAPES = new Set(['d', 'D', 'w', 'W', 'n', 'r', 't', 'f']);
const HEX = /^[0-9A-Fa-f]+$/;

const hexEscape = (codePoint: number): string => `\\x{${codePoint.toString(16).toUpperCase()}}`;
const isSurrogate = (codePoint: number): boolean => codePoint >= 0xd800 && codePoint <= 0xdfff;

/**
 * One `\…` escape of an ECMAScript pattern (u flag) at `at`, in RE2 syntax, and
 * the characters it took; undefined for an escape with no equal in RE2.
 */
function escape(source: string, at: number, inClass: boolean): { out: string; length: number } | undefined {
  const c = source[at + 1];
  if (c === undefined) return undefined;
  if (SAME_ESCAPES.has(c)) return { out: `\\${c}`, length: 2 };
  switch (c) {
    case 's':
      return { out: inClass ? WHITESPACE : `[${WHITESPACE}]`, length: 2 };
    case 'S':
      // a negated set inside a class has no RE2 spelling
      return inClass ? undefined : { out: `[^${WHITESPACE}]`, length: 2 };
    case 'b':
      // a word boundary outside a class, backspace inside
      return { out: inClass ? hexEscape(8) : '\\b', length: 2 };
    case 'B':
      return inClass ? undefined : { out: '\\B', length: 2 };
    case 'v':
      return { out: hexEscape(0xb), length: 2 };
    case '0':
      // with the u flag, \0 may not be followed by a digit
      return { out: hexEscape(0), length: 2 };
    case 'c': {
      const letter = source.charCodeAt(at + 2);
      return { out: hexEscape(letter % 32), length: 3 };
    }
    case 'x': {
      const hex = source.slice(at + 2, at + 4);
      return HEX.test(hex) ? { out: hexEscape(Number.parseInt(hex, 16)), length: 4 } : undefined;
    }
    case 'u': {
      const braced = source[at + 2] === '{';
      const end = braced ? source.indexOf('}', at + 3) : at + 6;
      const hex = braced ? source.slice(at + 3, end) : source.slice(at + 2, at + 6);
      if (end < 0 || !HEX.test(hex)) return undefined;
      const codePoint = Number.parseInt(hex, 16);
      // a surrogate, alone or as half of a pair written as two escapes: left to V8
      if (isSurrogate(codePoint) || codePoint > 0x10ffff) return undefined;
      return { out: hexEscape(codePoint), length: braced ? end - at + 1 : 6 };
    }
    case 'p':
    case 'P': {
      const end = source.indexOf('}', at + 3);
      const name = source.slice(at + 3, end);
      return source[at + 2] === '{' && end > 0 && GENERAL_CATEGORIES.has(name) ? { out: `\\${c}{${name}}`, length: end - at + 1 } : undefined;
    }
    default:
      // with the u flag the rest are syntax characters (and `-` in a class), literal in both;
      // digits and `k` are backreferences
      return /[$()*+./?[\\\]^{|}-]/.test(c) ? { out: `\\${c}`, length: 2 } : undefined;
  }
}

/**
 * RE2's bound on counted repeats: along any nesting of `{n,m}`, the product of
 * the counts (m, or n when unbounded) may be at most 1,000 (`(?:a{100}){20}` is
 * refused). Checked here as RE2 checks it, so a pattern RE2 would refuse is
 * known without compiling it.
 */
const MAX_REPEAT = 1000;
/**
 * The most instructions (estimated: atoms times their repeat counts) a
 * translated pattern may compile to. RE2 expands `x{1,1000}` into a thousand
 * copies: about 340 KB and 3 ms to compile each in re2js, so a schema of many
 * such patterns costs memory and load time out of proportion to its bytes.
 * Real patterns are far below it (the corpus's largest compiles to 57).
 */
export const MAX_PROGRAM = 20_000;
/** RE2 refuses groups nested deeper than this. */
const MAX_NESTING = 1000;
const COUNTED = /^\{(\d+)(,(\d*))?\}/;

/** A group being read: its estimated size, and the largest product of counts inside it. */
interface Frame {
  size: number;
  product: number;
}

/**
 * An ECMAScript pattern (u flag, already known to compile) in RE2 syntax with
 * the same meaning, or undefined when this translation does not know it or
 * RE2 would refuse or inflate it (see {@link MAX_REPEAT}, {@link MAX_PROGRAM}).
 */
export function toLinearSyntax(source: string): string | undefined {
  let out = '';
  let inClass = false;
  let at = 0;
  const frames: Frame[] = [{ size: 0, product: 1 }];
  // the item just read (an atom or a closed group), which a quantifier would repeat
  let last: Frame = { size: 0, product: 1 };
  const item = (size: number, product: number) => {
    last = { size, product };
    const top = frames[frames.length - 1]!;
    top.size += size;
    top.product = Math.max(top.product, product);
  };
  while (at < source.length) {
    const c = source[at]!;
    if (c === '\\') {
      const escaped = escape(source, at, inClass);
      if (escaped === undefined) return undefined;
      out += escaped.out;
      at += escaped.length;
      if (!inClass) item(1, 1);
      continue;
    }
    if (inClass) {
      // `[` inside a class may start a POSIX class in RE2 (`[[:alpha:]]`)
      if (c === '[') return undefined;
      if (c === ']') {
        inClass = false;
        item(1, 1);
      }
      out += c;
      at += 1;
      continue;
    }
    switch (c) {
      case '[':
        // `[]` matches nothing and `[^]` anything in ECMAScript; RE2 reads `]` there as a member
        if (source[at + 1] === ']' || source.startsWith('^]', at + 1)) return undefined;
        inClass = true;
        out += source[at + 1] === '^' ? '[^' : '[';
        at += source[at + 1] === '^' ? 2 : 1;
        continue;
      case '.':
        out += DOT;
        at += 1;
        item(1, 1);
        continue;
      case '{': {
        // with the u flag a brace is always a counted repeat of the item before it
        const counted = COUNTED.exec(source.slice(at, at + 24));
        if (counted === null) return undefined;
        const min = Number(counted[1]);
        const max = counted[2] === undefined ? min : counted[3] === '' ? -1 : Number(counted[3]);
        const count = max === 0 ? 0 : max < 0 ? Math.max(min, 1) : max;
        const product = count === 0 ? 0 : count * last.product;
        if (product > MAX_REPEAT) return undefined;
        // the item is there once already: add the other copies
        const top = frames[frames.length - 1]!;
        top.size += last.size * (Math.max(count, 1) - 1);
        top.product = Math.max(top.product, product);
        if (top.size > MAX_PROGRAM) return undefined;
        out += counted[0];
        at += counted[0].length;
        continue;
      }
      case '(': {
        frames.push({ size: 0, product: 1 });
        if (frames.length > MAX_NESTING) return undefined;
        if (source[at + 1] !== '?' || source[at + 2] === ':') break;
        // a named group: captures do not matter to a test, so it becomes a plain group
        const named = /^\(\?<([A-Za-z_$][\w$]*)>/.exec(source.slice(at, at + 260));
        if (named === null) return undefined; // lookaround, or flag modifiers
        out += '(?:';
        at += named[0].length;
        continue;
      }
      case ')': {
        // (unbalanced is not ECMAScript, which V8 refused already; never pop the pattern's own frame)
        if (frames.length === 1) return undefined;
        const group = frames.pop()!;
        item(group.size + 1, group.product);
        break;
      }
      case '*':
      case '+':
      case '?':
      case '|':
      case '^':
      case '$':
        break;
      default:
        item(1, 1);
        break;
    }
    if (frames[frames.length - 1]!.size > MAX_PROGRAM) return undefined;
    out += c;
    at += 1;
  }
  return inClass ? undefined : out;
}

/** The linear engine's compiled form of a pattern, or undefined when it runs on V8's. */
function compileLinear(source: string): RE2JS | undefined {
  const syntax = toLinearSyntax(source);
  if (syntax === undefined) return undefined;
  try {
    return RE2JS.compile(syntax);
  } catch {
    // syntax RE2 refuses that the translation let through: V8's engine, as for the rest
    return undefined;
  }
}

/** Which engine a schema pattern runs on: RE2's automaton, or V8's backtracking one. Compiles nothing. */
export function patternEngine(source: string): 'linear' | 'backtracking' {
  return toLinearSyntax(source) === undefined ? 'backtracking' : 'linear';
}

/** A schema pattern as the load path sees it: the engine it runs on, or V8's reason it is not a pattern. */
export type PatternVerdict = 'linear' | 'backtracking' | { invalid: string };

/** Verdicts per pattern text: schemas repeat a few patterns across many tools (a verdict compiles with V8 only). */
const verdicts = new Map<string, PatternVerdict>();
const MAX_VERDICTS = 10_000;

/** Is `source` an ECMAScript pattern (u flag), and which engine runs it? Remembered per text. */
export function patternVerdict(source: string): PatternVerdict {
  let verdict = verdicts.get(source);
  if (verdict !== undefined) return verdict;
  try {
    new RegExp(source, 'u');
    verdict = patternEngine(source);
  } catch (error) {
    // V8's message repeats the whole pattern: kept short, a schema's pattern may be long (and a remote server's)
    const message = error instanceof Error ? error.message : String(error);
    verdict = { invalid: message.length > 300 ? `${message.slice(0, 150)}…${message.slice(-150)}` : message };
  }
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(source, verdict);
  return verdict;
}

/**
 * Compiled patterns, shared by every Ajv (one per snapshot, and a reload makes
 * a new one) and bounded by their total size in RE2 instructions; the oldest
 * go first, and a pattern evicted is compiled again on its next use. Without
 * a bound, a catalog of many distinct patterns (a remote MCP server's
 * `tools/list` is not trusted) would hold up to 340 KB per pattern.
 */
const compiled = new Map<string, RE2JS | null>();
let compiledSize = 0;
const MAX_COMPILED_SIZE = 200_000;

function linearFor(source: string): RE2JS | null {
  let linear = compiled.get(source);
  if (linear !== undefined) return linear;
  linear = compileLinear(source) ?? null;
  const size = linear?.programSize() ?? 1;
  for (const [oldest, program] of compiled) {
    if (compiledSize + size <= MAX_COMPILED_SIZE) break;
    compiled.delete(oldest);
    compiledSize -= program?.programSize() ?? 1;
  }
  compiled.set(source, linear);
  compiledSize += size;
  return linear;
}

/**
 * Ajv's `code.regExp`: compiles with V8 first, so a pattern that is not valid
 * ECMAScript fails as it always has, then runs on RE2 where the translation
 * is known to mean the same.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const native = new RegExp(pattern, flags);
    if (flags !== 'u' || linearFor(pattern) === null) return native;
    // the same text as V8's, which Ajv uses as the key of its pattern cache
    const text = native.toString();
    return { test: (input: string) => (linearFor(pattern) ?? native).test(input), toString: () => text };
  },
  // named in Ajv's standalone code only, which toolcap does not generate
  { code: 'linearRegExp' },
);
