/**
 * Which argument values a call may record (audit rows, spans, logs), and
 * how arguments are shown where they are shown whole (an approval,
 * {@link shownArguments}). Recorded: only
 * the fields the manifest names in `observability.traceAttrs`, and never a
 * parameter its input schema marks sensitive, at any depth of a recorded
 * value. Values still go through the redactor (./redact.ts) before writing,
 * and are then cut ({@link boundedRecorded}): a recorded argument is the
 * caller's and may be megabytes.
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

/** What a sensitive argument value shows as where arguments are shown whole (an approval to its approvers). */
export const SENSITIVE_MASK = '[SENSITIVE]';
/** What every argument value shows as when the tool's schema is no longer known (which are sensitive cannot be told). */
export const HIDDEN_MASK = '[HIDDEN]';

/** The schemas that say what property `name` of an object is: its own, `additionalProperties`, and those of `allOf`/`anyOf`/`oneOf` branches. */
function propertySchemas(schema: Schema | undefined, name: string, depth: number): unknown[] {
  if (!schema || depth >= MAX_REDACT_DEPTH) return [];
  const own = asSchema(schema['properties'])?.[name];
  const out: unknown[] = own !== undefined ? [own] : schema['additionalProperties'] !== undefined ? [schema['additionalProperties']] : [];
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) out.push(...propertySchemas(asSchema(branch), name, depth + 1));
  }
  return out;
}

/** The schemas of the items of an array, with those of `allOf`/`anyOf`/`oneOf` branches. */
function itemSchemas(schema: Schema | undefined, depth: number): unknown[] {
  if (!schema || depth >= MAX_REDACT_DEPTH) return [];
  const out: unknown[] = schema['items'] !== undefined ? [schema['items']] : [];
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const branches = schema[key];
    if (Array.isArray(branches)) for (const branch of branches) out.push(...itemSchemas(asSchema(branch), depth + 1));
  }
  return out;
}

/** `value` with every part one of `schemas` marks sensitive replaced by {@link SENSITIVE_MASK} (a copy). */
function mask(value: unknown, schemas: unknown[], depth: number): unknown {
  if (schemas.some(isSensitiveSchema)) return SENSITIVE_MASK;
  if (typeof value !== 'object' || value === null) return value;
  // past the depth a schema is followed, nothing is shown: what lies there cannot be told apart
  if (depth >= MAX_REDACT_DEPTH) return '[Truncated]';
  const objects = schemas.map(asSchema).filter((s): s is Schema => s !== undefined);
  if (Array.isArray(value)) {
    const items = objects.flatMap((s) => itemSchemas(s, 0));
    return value.map((item) => mask(item, items, depth + 1));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = mask(v, objects.flatMap((s) => propertySchemas(s, k, 0)), depth + 1);
  return out;
}

/**
 * The arguments of a call as shown whole to people who review it (an
 * approval's approvers; the requester too): every value its input schema
 * marks sensitive ({@link isSensitiveSchema}, at any depth, in `allOf`,
 * `anyOf` and `oneOf` branches too) is {@link SENSITIVE_MASK}. Keys stay,
 * so the reviewer sees that a secret was given and where. `$ref`s are not
 * followed, as for recorded arguments.
 * @example
 * shownArguments({ properties: { token: { type: 'string', 'x-sensitive': true } } }, { repo: 'acme/api', token: 'ghp_…' });
 * // { repo: 'acme/api', token: '[SENSITIVE]' }
 */
export function shownArguments(inputSchema: unknown, args: unknown): unknown {
  return mask(args, [inputSchema], 0);
}

/** Largest recorded argument value, in characters: a string, or the JSON text of any other value (spans and audit rows alike). */
export const MAX_RECORDED_VALUE = 256;

/** `text` cut to {@link MAX_RECORDED_VALUE} characters, `…` marking a cut. */
export const cutRecorded = (text: string): string => (text.length > MAX_RECORDED_VALUE ? `${text.slice(0, MAX_RECORDED_VALUE)}…` : text);

/**
 * Recorded arguments (already redacted: redact first, then cut, or a secret
 * on the cut keeps its start) with every value bounded: a long string is cut,
 * an object or array whose JSON text is longer than {@link MAX_RECORDED_VALUE}
 * becomes that text cut; numbers, booleans, null and small values stay as they are.
 * @example boundedRecorded({ body: 'x'.repeat(5_000_000), n: 1 }) // { body: 'xxx…(256)…', n: 1 }
 */
export function boundedRecorded(recorded: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(recorded)) {
    if (typeof value === 'string') out[name] = cutRecorded(value);
    else if (typeof value !== 'object' || value === null) out[name] = value;
    else {
      const text = JSON.stringify(value) ?? 'null';
      out[name] = text.length > MAX_RECORDED_VALUE ? cutRecorded(text) : value;
    }
  }
  return out;
}
