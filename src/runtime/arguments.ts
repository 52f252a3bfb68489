/**
 * Checking a call's arguments against the tool's `inputSchema`, compiled
 * once per tool. One Ajv compiler serves one snapshot: when a newer snapshot
 * is served the compiler is replaced, so the compiled schemas of old
 * snapshots can be collected with them.
 * @module
 */
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../model/validator.js';
import type { Tool } from '../model/schema.js';
import type { Snapshot } from '../registry/snapshot.js';
import { CallError } from './errors.js';

/**
 * Validates arguments per tool of a snapshot.
 * @example
 * const checked = new ArgumentChecker().check(snapshot, tool, { path: 'README.md' });
 */
export class ArgumentChecker {
  readonly #validators = new WeakMap<Tool, ValidateFunction | Error>();
  #ajv = createAjv();
  #snapshot: Snapshot | undefined;

  /**
   * The arguments, typed, when they match the input schema of `tool` (of
   * `snapshot`); otherwise INVALID_ARGUMENTS with every problem and its
   * JSON pointer, or INVALID_TOOL_SCHEMA when the schema does not compile
   * (the call is refused rather than run unchecked).
   */
  check(snapshot: Snapshot, tool: Tool, args: unknown): Record<string, unknown> {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      throw new CallError('INVALID_ARGUMENTS', `Arguments must be a JSON object, not ${args === null ? 'null' : Array.isArray(args) ? 'an array' : typeof args}.`, { pointer: '' });
    }
    const check = this.#validator(snapshot, tool);
    if (check instanceof Error) throw new CallError('INVALID_TOOL_SCHEMA', `The input schema of "${tool.name}" cannot be compiled (${check.message}); the call is refused rather than run unchecked.`);
    if (!check(args)) {
      const problems = (check.errors ?? []).map((e) => ({
        pointer: e.instancePath,
        message: `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''}`,
      }));
      const first = problems[0];
      throw new CallError('INVALID_ARGUMENTS', `The arguments do not match the input schema of "${tool.name}": ${problems.map((p) => p.message).join('; ')}.`, {
        pointer: first?.pointer ?? '',
        problems,
      });
    }
    return args as Record<string, unknown>;
  }

  #validator(snapshot: Snapshot, tool: Tool): ValidateFunction | Error {
    if (snapshot !== this.#snapshot) {
      this.#ajv = createAjv();
      this.#snapshot = snapshot;
    }
    let v = this.#validators.get(tool);
    if (!v) {
      try {
        // $schema and $id are dropped so draft-07 schemas compile and two tools may share an $id
        const { $schema: _ignored, $id: _id, ...schema } = (tool.inputSchema ?? { type: 'object' }) as Record<string, unknown>;
        v = this.#ajv.compile(schema);
      } catch (error) {
        v = error instanceof Error ? error : new Error(String(error));
      }
      this.#validators.set(tool, v);
    }
    return v;
  }
}
