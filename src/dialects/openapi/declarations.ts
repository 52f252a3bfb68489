/**
 * `x-toolcap-<field>` extensions on an operation: canonical tool fields
 * written straight into the OpenAPI document, e.g.
 * `x-toolcap-effects: { mode: read }` or `x-toolcap-approval: { required: true }`.
 * `<field>` is any canonical tool field (`effects`, `approval`, `execution`,
 * `cost`, `latency`, `surface`, `capabilities`, `alternatives`, `name`, ...).
 * They are declarations: they override what the import infers and are never
 * listed in `derived`. Each value is checked against the canonical schema of
 * its field; a failing part is reported at its pointer and left out.
 * @module
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { joinPointer } from '../../model/diagnostics.js';
import { ToolSchema, type Tool } from '../../model/schema.js';
import { createAjv, describeAjvError } from '../../model/validator.js';
import { isPlainObject } from '../../source/reader.js';
import type { ImportContext } from '../types.js';
import { child, type Place } from './refs.js';

/** The extension prefix. */
export const PREFIX = 'x-toolcap-';

/** Fields toolcap keeps for itself: an OpenAPI document cannot declare them. */
const RESERVED = new Set(['derived', 'extensions']);

const validators = new Map<string, ValidateFunction>();

/** The compiled check of one canonical field (compiled on first use). */
function validatorFor(field: string): ValidateFunction | undefined {
  if (RESERVED.has(field) || !Object.prototype.hasOwnProperty.call(ToolSchema.properties, field)) return undefined;
  let validate = validators.get(field);
  if (validate === undefined) {
    const schema = JSON.parse(JSON.stringify(ToolSchema.properties[field as keyof typeof ToolSchema.properties])) as object;
    validate = createAjv().compile(schema);
    validators.set(field, validate);
  }
  return validate;
}

/**
 * The canonical fields an operation declares. Unknown `x-toolcap-*` keys are
 * UNKNOWN_FIELD warnings; values the canonical schema rejects are reported
 * (TYPE_MISMATCH, UNKNOWN_ENUM_VALUE, ...) at their pointer.
 */
export function readDeclarations(context: ImportContext, op: Record<string, unknown>, place: Place): Partial<Tool> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(op)) {
    if (!key.startsWith(PREFIX)) continue;
    const field = key.slice(PREFIX.length);
    const at = child(place, key);
    const validate = validatorFor(field);
    if (validate === undefined) {
      context.report('UNKNOWN_FIELD', `"${key}" names no canonical tool field; it is ignored.`, at.anchor, {
        key: true,
        hint: 'Use x-toolcap- followed by a canonical field name, e.g. x-toolcap-effects.',
      });
      continue;
    }
    const value = checked(context, validate, knownKeys(context, field, op[key], at.anchor), at.anchor);
    if (value !== undefined) out[field] = value;
  }
  return out as Partial<Tool>;
}

/**
 * The value with every failing part left out: the offending property of an
 * object (its first pointer token), or the whole value otherwise.
 */
function checked(context: ImportContext, validate: ValidateFunction, value: unknown, pointer: string): unknown {
  if (validate(value)) return value;
  const drop = new Set<string>();
  let whole = false;
  for (const error of validate.errors ?? []) {
    const described = describeAjvError(error);
    context.report(described.code, described.message, pointer + described.pointer, { hint: 'See `toolcap schema` for the canonical fields.' });
    const first = described.pointer.split('/')[1];
    if (first === undefined || !isPlainObject(value)) whole = true;
    else drop.add(first.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  if (whole || !isPlainObject(value)) return undefined;
  const kept = Object.fromEntries(Object.entries(value).filter(([k]) => !drop.has(k)));
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** The value without keys its canonical group does not have (`x-toolcap-effects: { mood: ... }`), each reported. */
function knownKeys(context: ImportContext, field: string, value: unknown, pointer: string): unknown {
  const schema: unknown = ToolSchema.properties[field as keyof typeof ToolSchema.properties];
  const known = isPlainObject(schema) && isPlainObject(schema['properties']) ? schema['properties'] : undefined;
  if (known === undefined || !isPlainObject(value)) return value;
  const unknown = Object.keys(value).filter((key) => !Object.prototype.hasOwnProperty.call(known, key));
  if (unknown.length === 0) return value;
  for (const key of unknown) {
    context.report('UNKNOWN_FIELD', `"${key}" is not a field of ${field}; it is ignored.`, joinPointer(pointer, key), { key: true, hint: 'Check the spelling against `toolcap schema`.' });
  }
  return Object.fromEntries(Object.entries(value).filter(([key]) => !unknown.includes(key)));
}
