/**
 * Observed against declared, for results: every result is checked against
 * the tool's `outputSchema` (Shinkai's `result`), compiled once per tool. A
 * mismatch is drift: counted per tool and shown beside the tool's health as
 * `resultDrift` (as `staleManifest` shows latency drift), and, when the
 * config says `runtime.results: fail`, the call fails with RESULT_MISMATCH.
 *
 * The check is bounded: a result of more than {@link FULL_CHECK_MAX_NODES}
 * values (counted without serialising it) gets a shallow check, its top-level
 * type and required keys, and is counted as such, so a huge result costs
 * little more than the count.
 * @module
 */
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../model/validator.js';
import type { Tool } from '../model/schema.js';
import { nullableAware } from './tool-configurations.js';

/** What to do when a result does not match the declared schema. @default 'warn' */
export type ResultPolicy = 'warn' | 'fail';

/** Values beyond which a result is checked shallowly. @default 10000 */
export const FULL_CHECK_MAX_NODES = 10_000;

/** Problems kept per mismatch. */
const MAX_PROBLEMS = 5;

/** One result problem: where in the result, and what. */
export interface ResultProblem {
  pointer: string;
  message: string;
}

/** The outcome of one check. */
export type ResultCheck = { ok: true; depth: 'full' | 'shallow' | 'none' } | { ok: false; depth: 'full' | 'shallow'; problems: ResultProblem[] };

/** Observed-vs-declared drift of a tool's results, as health shows it. */
export interface ResultDrift {
  /** Results checked (since start). */
  checked: number;
  /** Results that did not match `outputSchema`. */
  mismatches: number;
  /** The last mismatch: when, and its first problems. */
  last?: { at: string; problems: ResultProblem[] };
}

/**
 * Checks results against declared output schemas and keeps the drift count.
 * @example
 * const check = results.check(tool, value); // { ok: false, depth: 'full', problems: [...] }
 * results.drift(tool.name) // { checked: 1, mismatches: 1, last: {...} }
 */
export class ResultChecker {
  readonly #validators = new WeakMap<Tool, ValidateFunction | Error>();
  readonly #ajv = createAjv();
  readonly #drift = new Map<string, ResultDrift>();
  readonly #clock: () => number;
  #version = 0;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  /** Changes whenever a tool's drift does (for cached bodies). */
  get version(): number {
    return this.#version;
  }

  /** Check `result` against the tool's declared output schema and count the outcome; `none` when the tool declares none. */
  check(tool: Tool, result: unknown): ResultCheck {
    if (tool.outputSchema === undefined) return { ok: true, depth: 'none' };
    const validate = this.#validator(tool);
    // a schema that does not compile was reported at load (INVALID_JSON_SCHEMA): nothing to hold results to
    if (validate instanceof Error) return { ok: true, depth: 'none' };
    const full = withinNodes(result, FULL_CHECK_MAX_NODES);
    const outcome: ResultCheck = full ? fullCheck(validate, result) : shallowCheck(nullableAware(tool.outputSchema), result);
    const drift = this.#drift.get(tool.name) ?? { checked: 0, mismatches: 0 };
    drift.checked++;
    if (!outcome.ok) {
      drift.mismatches++;
      drift.last = { at: new Date(this.#clock()).toISOString(), problems: outcome.problems };
    }
    this.#drift.set(tool.name, drift);
    this.#version++;
    return outcome;
  }

  /** The drift of a tool's results, when any result of it was checked. */
  drift(name: string): ResultDrift | undefined {
    const d = this.#drift.get(name);
    return d === undefined ? undefined : { ...d, ...(d.last ? { last: { ...d.last, problems: [...d.last.problems] } } : {}) };
  }

  #validator(tool: Tool): ValidateFunction | Error {
    let v = this.#validators.get(tool);
    if (!v) {
      try {
        const { $schema: _s, $id: _i, ...schema } = nullableAware(tool.outputSchema) as Record<string, unknown>;
        v = this.#ajv.compile(schema);
      } catch (error) {
        v = error instanceof Error ? error : new Error(String(error));
      }
      this.#validators.set(tool, v);
    }
    return v;
  }
}

function fullCheck(validate: ValidateFunction, result: unknown): ResultCheck {
  if (validate(result)) return { ok: true, depth: 'full' };
  const problems = (validate.errors ?? []).slice(0, MAX_PROBLEMS).map((e) => {
    const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
    return { pointer: missing !== undefined ? `${e.instancePath}/${missing}` : e.instancePath, message: `${e.instancePath || '(result)'} ${e.message ?? 'is invalid'}` };
  });
  return { ok: false, depth: 'full', problems };
}

/** A huge result: its top-level type and the presence of its required keys. */
function shallowCheck(schema: unknown, result: unknown): ResultCheck {
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as { type?: unknown; required?: unknown };
  const problems: ResultProblem[] = [];
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : [];
  if (types.length > 0 && !types.some((t) => typeMatches(t, result))) problems.push({ pointer: '', message: `(result) must be ${types.join(' or ')}` });
  if (Array.isArray(s.required) && typeof result === 'object' && result !== null && !Array.isArray(result)) {
    for (const key of s.required) if (typeof key === 'string' && !(key in result)) problems.push({ pointer: `/${key}`, message: `(result) must have required property '${key}'` });
  }
  return problems.length === 0 ? { ok: true, depth: 'shallow' } : { ok: false, depth: 'shallow', problems: problems.slice(0, MAX_PROBLEMS) };
}

function typeMatches(type: unknown, value: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'null':
      return value === null;
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    default:
      return typeof value === type;
  }
}

/** Whether `value` holds at most `limit` values (objects, arrays and scalars), counted iteratively and stopped at the limit. */
export function withinNodes(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value];
  let count = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (++count > limit) return false;
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      if (count + v.length > limit) return false;
      for (const item of v) stack.push(item);
    } else {
      const values = Object.values(v);
      if (count + values.length > limit) return false;
      for (const item of values) stack.push(item);
    }
  }
  return true;
}
