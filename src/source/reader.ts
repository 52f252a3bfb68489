/**
 * Typed, reporting access to one object of a source document. Each read marks
 * the key as consumed; whatever is left is an unknown field, reported once and
 * kept so that export can write it back.
 * @module
 */
import { joinPointer } from '../model/diagnostics.js';
import { isPlainObject } from '../model/objects.js';
import { isMember } from '../model/vocabulary.js';
import type { ImportContext } from './context.js';

// The dialects import it from here; it lives with the model's object helpers.
export { isPlainObject };

/** A short name for the JSON type of a value, for messages. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isInteger(value)) return 'integer';
  return typeof value;
}

export interface NumberRule {
  integer?: boolean;
  min?: number;
  max?: number;
}

/** The rule of a plain number (shared: no object per read). */
const NO_RULE: NumberRule = Object.freeze({});

const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);

export class ObjectReader {
  /** Keys read (a list: a reader sees a handful, and a set per object cost more than the object). */
  readonly #consumed: string[] = [];

  constructor(
    readonly context: ImportContext,
    readonly value: Record<string, unknown>,
    readonly pointer: string,
  ) {}

  /**
   * A reader for `value` when it is an object; otherwise reports
   * TYPE_MISMATCH (`what` names the thing expected) and returns undefined.
   */
  static of(context: ImportContext, value: unknown, pointer: string, what: string): ObjectReader | undefined {
    if (isPlainObject(value)) return new ObjectReader(context, value, pointer);
    context.report('TYPE_MISMATCH', `${what} must be an object, not ${jsonType(value)}.`, pointer);
    return undefined;
  }

  /** JSON pointer of a key of this object. */
  at(key: string): string {
    return joinPointer(this.pointer, key);
  }

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.value, key);
  }

  /** The raw value, marked consumed. */
  raw(key: string): unknown {
    if (!this.has(key)) return undefined;
    // only keys the object has can be left over (rest): absent ones are not recorded
    this.#consumed.push(key);
    return this.value[key];
  }

  #typed<T>(key: string, expected: string, ok: (v: unknown) => v is T): T | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (ok(v)) return v;
    this.context.report('TYPE_MISMATCH', `"${key}" must be ${expected}, not ${jsonType(v)}.`, this.at(key), {
      hint: `Write ${key} as ${expected}.`,
    });
    return undefined;
  }

  string(key: string): string | undefined {
    return this.#typed(key, 'a string', isString);
  }

  boolean(key: string): boolean | undefined {
    return this.#typed(key, 'a boolean (true or false)', isBoolean);
  }

  number(key: string, rule: NumberRule = NO_RULE): number | undefined {
    // the type check inline, not a closure over `rule` per call (a tool has a few numbers, a catalog 10,000 tools)
    const v = this.raw(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || (rule.integer && !Number.isInteger(v))) {
      const expected = rule.integer ? 'an integer' : 'a number';
      this.context.report('TYPE_MISMATCH', `"${key}" must be ${expected}, not ${jsonType(v)}.`, this.at(key), {
        hint: `Write ${key} as ${expected}.`,
      });
      return undefined;
    }
    const n = v;
    if ((rule.min !== undefined && n < rule.min) || (rule.max !== undefined && n > rule.max)) {
      const range = `${rule.min ?? '-∞'} to ${rule.max ?? '∞'}`;
      this.context.report('INVALID_VALUE', `"${key}" is ${n}, outside ${range}.`, this.at(key), {
        hint: `Use a value from ${range}.`,
      });
      return undefined;
    }
    return n;
  }

  /** An array of strings; non-string items are reported and skipped. */
  strings(key: string): string[] | undefined {
    const v = this.#typed(key, 'an array of strings', isArray);
    if (v === undefined) return undefined;
    const out: string[] = [];
    v.forEach((item, i) => {
      if (typeof item === 'string') out.push(item);
      else
        this.context.report('TYPE_MISMATCH', `"${key}[${i}]" must be a string, not ${jsonType(item)}.`, joinPointer(this.at(key), i));
    });
    return out;
  }

  /** A string from a closed vocabulary; other strings get UNKNOWN_ENUM_VALUE. */
  enumValue<T extends string>(key: string, vocabulary: readonly T[]): T | undefined {
    const v = this.string(key);
    if (v === undefined) return undefined;
    if (isMember(vocabulary, v)) return v;
    this.context.report('UNKNOWN_ENUM_VALUE', `"${key}" is "${v}", which is not one of: ${vocabulary.join(', ')}.`, this.at(key), {
      hint: `Use one of: ${vocabulary.join(', ')}.`,
    });
    return undefined;
  }

  /** An array of vocabulary members; unknown items are reported and skipped. */
  enumValues<T extends string>(key: string, vocabulary: readonly T[]): T[] | undefined {
    const items = this.strings(key);
    if (items === undefined) return undefined;
    return items.filter((item, i): item is T => {
      if (isMember(vocabulary, item)) return true;
      this.context.report('UNKNOWN_ENUM_VALUE', `"${key}[${i}]" is "${item}", which is not one of: ${vocabulary.join(', ')}.`, joinPointer(this.at(key), i), {
        hint: `Use one of: ${vocabulary.join(', ')}.`,
      });
      return false;
    });
  }

  /** A nested object as its own reader. */
  object(key: string): ObjectReader | undefined {
    const v = this.raw(key);
    if (v === undefined) return undefined;
    return ObjectReader.of(this.context, v, this.at(key), `"${key}"`);
  }

  /** An array, items unchecked. */
  array(key: string): unknown[] | undefined {
    return this.#typed(key, 'an array', isArray);
  }

  /** Mark keys as handled without reading them. */
  consume(...keys: string[]): void {
    for (const k of keys) this.#consumed.push(k);
  }

  /**
   * The keys not read, verbatim, or undefined when there are none. Each is
   * reported as UNKNOWN_FIELD (a warning) unless `quiet`.
   */
  rest(options: { quiet?: boolean; where?: string } = {}): Record<string, unknown> | undefined {
    let out: Record<string, unknown> | undefined;
    const list = this.#consumed;
    const consumed = list.length > 32 ? new Set(list) : undefined;
    // for-in with an own-key check: the keys of Object.keys, in its order, without a key array per object
    for (const key in this.value) {
      if (!Object.prototype.hasOwnProperty.call(this.value, key)) continue;
      if (consumed ? consumed.has(key) : list.includes(key)) continue;
      out ??= {};
      out[key] = this.value[key];
      if (!options.quiet)
        this.context.report(
          'UNKNOWN_FIELD',
          `Unknown field "${key}"${options.where ? ` in ${options.where}` : ''}; it is kept as an extension.`,
          this.at(key),
          { key: true, hint: 'Check the spelling; unknown fields are carried through but have no effect.' },
        );
    }
    return out;
  }
}
