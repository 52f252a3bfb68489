/**
 * Which argument values a call may record (audit rows, spans, logs): only
 * the fields the manifest names in `observability.traceAttrs`, and never a
 * parameter its input schema marks sensitive, at any depth of a recorded
 * value. Values still go through the redactor (./redact.ts) before writing.
 *
 * Sensitive means `sensitive: true` or `x-sensitive: true` on the
 * parameter's schema, and also `format: "password"` and `writeOnly: true`,
 * the JSON Schema / OpenAPI ways of saying the same. `$ref`s are not
 * followed: mark the parameter where it is used.
 * @module
 */
import type { Tool } from '../../model/schema.js';
import { MAX_REDACT_DEPTH } from './redact.js';

type Schema = Record<string, unknown>;

const asSchema = (value: unknown): Schema | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;

/** True when a parameter's schema says its value must never be recorded. */
export function isSensitiveSchema(schema: unknown): boolean {
  const s = asSchema(schema);
  if (!s) return false;
  return s['sensitive'] === true || s['x-sensitive'] === true || s['format'] === 'password' || s['writeOnly'] === true;
}

/** The schema of property `name` of an object schema, from `properties` or `additionalProperties`. */
function propertySchema(schema: Schema | undefined, name: string): unknown {
  const own = asSchema(schema?.['properties'])?.[name];
  return own ?? schema?.['additionalProperties'];
}

/** `value` without the parts its schema marks sensitive (a copy; undefined when the whole is). */
function prune(value: unknown, schema: unknown, depth: number): unknown {
  if (isSensitiveSchema(schema)) return undefined;
  const s = asSchema(schema);
  if (!s || typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_REDACT_DEPTH) return '[Truncated]';
  if (Array.isArray(value)) return value.map((item) => prune(item, s['items'], depth + 1) ?? null);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const kept = prune(v, propertySchema(s, k), depth + 1);
    if (kept !== undefined) out[k] = kept;
  }
  return out;
}

/**
 * The arguments a call may record: the `traceAttrs` fields present in
 * `args`, without sensitive parameters or sensitive parts of them.
 * @example
 * recordedArguments(
 *   { observability: { traceAttrs: ['repo', 'token'] }, inputSchema: { properties: { token: { type: 'string', 'x-sensitive': true } } } },
 *   { repo: 'acme/api', token: 'ghp_…', body: '…' },
 * ); // { repo: 'acme/api' }
 */
export function recordedArguments(tool: Pick<Tool, 'observability' | 'inputSchema'>, args: Record<string, unknown>): Record<string, unknown> {
  const schema = asSchema(tool.inputSchema);
  const out: Record<string, unknown> = {};
  for (const name of tool.observability?.traceAttrs ?? []) {
    if (!Object.hasOwn(args, name)) continue;
    const kept = prune(args[name], propertySchema(schema, name), 0);
    if (kept !== undefined) out[name] = kept;
  }
  return out;
}
