/**
 * One `functions.json` entry into a canonical tool.
 * @module
 */
import { joinPointer } from '../../model/diagnostics.js';
import { compact, compactRequired } from '../../model/objects.js';
import type { Auth, Execution, Provider, Tool } from '../../model/schema.js';
import { AUTH_TYPES, RISK_LEVELS, SIDE_EFFECTS } from '../../model/vocabulary.js';
import { isPlainObject, jsonType, ObjectReader } from '../../source/reader.js';
import { keep, keepRest, nonEmpty, type Mirror } from './mirror.js';
import { readName } from '../names.js';

/** Real ATLAS fields with no canonical home: kept without a warning. */
const HOMELESS_TOOL_FIELDS = ['requires_flags', 'examples', 'cost_unit'];
const HOMELESS_PROVIDER_FIELDS = ['health_check_interval'];
const HOMELESS_IDEMPOTENCY_FIELDS = ['scope', 'guidance'];

/** A field that must hold a JSON object (kept as is), else TYPE_MISMATCH. */
function readJsonObject(reader: ObjectReader, key: string): Record<string, unknown> | undefined {
  const value = reader.raw(key);
  if (value === undefined) return undefined;
  if (isPlainObject(value)) return value;
  reader.object(key); // reports the mismatch at the key's pointer
  return undefined;
}

/** Canonical paths an entry may have derived (see `derived`). */
type DerivedPath = 'auth.envs';

/**
 * Translate one tool entry. `persona` is the owner implied by the file's
 * folder; it becomes `scope.personas`. Undefined when the entry has no usable
 * name (reported).
 */
export function importTool(reader: ObjectReader, persona: string | undefined): Tool | undefined {
  const name = readName(reader, 'tool');
  if (name === undefined) return undefined;
  const mirror: Mirror = {};
  const derived: DerivedPath[] = [];
  // Fields in canonical order, each read in that order (so findings keep theirs) and set only when
  // present: what compactRequired of one literal gave, without that literal of 15 keys per tool.
  const tool = { name } as Tool;
  put(tool, 'version', reader.string('version'));
  put(tool, 'description', reader.string('description'));
  put(tool, 'enabled', reader.boolean('enabled'));
  put(tool, 'tags', reader.strings('tags'));
  put(tool, 'notes', reader.string('notes'));
  if (persona !== undefined) tool.scope = { personas: [persona] };
  put(tool, 'inputSchema', readJsonObject(reader, 'parameters'));
  put(tool, 'capabilities', reader.strings('capabilities'));
  put(tool, 'effects', readEffects(reader));
  const consent = reader.boolean('requires_consent');
  if (consent !== undefined) tool.approval = { consent };
  put(tool, 'execution', readExecution(reader, mirror));
  put(tool, 'auth', readAuth(reader, mirror, derived));
  put(tool, 'cost', readCost(reader, mirror));
  put(tool, 'providers', readProviders(reader, mirror));
  keep(reader, HOMELESS_TOOL_FIELDS, mirror);
  keepRest(reader, mirror, `tool "${name}"`);
  if (derived.length > 0) tool.derived = derived;
  const extension = nonEmpty(mirror);
  if (extension) tool.extensions = { atlas: extension };
  return tool;
}

/** Set `key` when `value` is defined (as `compact` keeps only defined values). */
function put<K extends keyof Tool>(tool: Tool, key: K, value: Tool[K] | undefined): void {
  if (value !== undefined) tool[key] = value;
}

function readEffects(reader: ObjectReader): Tool['effects'] {
  const sideEffects = reader.enumValue('side_effects', SIDE_EFFECTS);
  const risk = reader.enumValue('safety_level', RISK_LEVELS);
  if (sideEffects === undefined) return risk === undefined ? undefined : { risk };
  return risk === undefined ? { sideEffects } : { sideEffects, risk };
}

/** `default_timeout` must be a whole number of seconds, at least 1 (one shared rule, not an object per tool). */
const TIMEOUT_RULE = Object.freeze({ integer: true, min: 1 });

function readExecution(reader: ObjectReader, mirror: Mirror): Execution | undefined {
  const timeoutSec = readTimeout(reader);
  const allowParallel = reader.boolean('allow_parallel');
  const idempotencyKey = readIdempotencyKey(reader, mirror);
  if (timeoutSec === undefined && allowParallel === undefined && idempotencyKey === undefined) return undefined;
  const execution: Execution = {};
  if (timeoutSec !== undefined) execution.timeoutSec = timeoutSec;
  if (allowParallel !== undefined) execution.allowParallel = allowParallel;
  if (idempotencyKey !== undefined) execution.idempotencyKey = idempotencyKey;
  return execution;
}

/** `default_timeout`: whole seconds, at least 1 (ATLAS validates it as an integer). */
function readTimeout(reader: ObjectReader): number | undefined {
  return reader.number('default_timeout', TIMEOUT_RULE);
}

/**
 * `idempotency_key` is a boolean, or an object `{ required, scope, guidance }`.
 * The object's `required` is the canonical value; the rest stays in the
 * mirror, whose presence also tells export to write the object form again.
 */
function readIdempotencyKey(reader: ObjectReader, mirror: Mirror): boolean | string | undefined {
  const value = reader.raw('idempotency_key');
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  const pointer = reader.at('idempotency_key');
  if (!isPlainObject(value)) {
    reader.context.report('TYPE_MISMATCH', `"idempotency_key" must be a boolean or an object, not ${jsonType(value)}.`, pointer, {
      hint: 'Write true, false, or { "required": true, "scope": "per-url" }.',
    });
    return undefined;
  }
  const sub = new ObjectReader(reader.context, value, pointer);
  const required = sub.boolean('required');
  const rest: Mirror = {};
  keep(sub, HOMELESS_IDEMPOTENCY_FIELDS, rest);
  keepRest(sub, rest, '"idempotency_key"');
  mirror['idempotency_key'] = rest;
  return required;
}

/**
 * `auth`. The singular `env` (one variable, as real ATLAS manifests write it)
 * becomes an `envs` entry only when there is no `envs` map: that entry is
 * inferred, so `auth.envs` is listed as derived and export writes `env` back.
 */
function readAuth(reader: ObjectReader, mirror: Mirror, derived: DerivedPath[]): Auth | undefined {
  const sub = reader.object('auth');
  if (!sub) return undefined;
  const rest: Mirror = {};
  const required = sub.boolean('required');
  let envs = readEnvs(sub, rest);
  const env = sub.string('env');
  if (env !== undefined) {
    rest['env'] = env;
    if (envs === undefined) {
      envs = { [env]: required === undefined ? {} : required ? { required: true } : { optional: true } };
      derived.push('auth.envs');
    }
  }
  const auth = compactRequired<Auth>({
    required,
    type: sub.enumValue('type', AUTH_TYPES),
    scopes: sub.strings('scopes'),
    envs,
    docs: sub.string('docs'),
  });
  keepRest(sub, rest, '"auth"');
  if (nonEmpty(rest)) mirror['auth'] = rest;
  return auth;
}

/** `auth.envs`: `{ NAME: { required | optional, description } }`. */
function readEnvs(auth: ObjectReader, rest: Mirror): NonNullable<Auth['envs']> | undefined {
  const sub = auth.object('envs');
  if (!sub) return undefined;
  const envs: NonNullable<Auth['envs']> = {};
  const extras: Mirror = {};
  for (const name of Object.keys(sub.value)) {
    const entry = ObjectReader.of(auth.context, sub.raw(name), sub.at(name), `auth.envs.${name}`);
    if (!entry) continue;
    envs[name] = compactRequired({
      required: entry.boolean('required'),
      optional: entry.boolean('optional'),
      description: entry.string('description'),
    });
    const unknown = entry.rest({ where: `auth.envs.${name}` });
    if (unknown) extras[name] = unknown;
  }
  if (nonEmpty(extras)) rest['envs'] = extras;
  return envs;
}

/**
 * `cost_per_call` is dollars when `cost_unit` is "USD" or absent. In any
 * other unit it has no canonical home and stays in the mirror verbatim.
 */
function readCost(reader: ObjectReader, mirror: Mirror): Tool['cost'] {
  if (!reader.has('cost_per_call')) return undefined;
  const unit = reader.has('cost_unit') ? reader.raw('cost_unit') : 'USD';
  if (typeof unit !== 'string') {
    reader.context.report('TYPE_MISMATCH', `"cost_unit" must be a string such as "USD", not ${jsonType(unit)}.`, reader.at('cost_unit'), {
      hint: 'Write the currency or unit of cost_per_call as a string.',
    });
  }
  if (unit !== 'USD') {
    keep(reader, ['cost_per_call'], mirror);
    return undefined;
  }
  return compact({ estimatedDollars: reader.number('cost_per_call', { min: 0 }) });
}

/** `providers`: `[{ name, priority, config, health_check_interval }]`, in source order. */
function readProviders(reader: ObjectReader, mirror: Mirror): Provider[] | undefined {
  const list = reader.array('providers');
  if (!list) return undefined;
  const providers: Provider[] = [];
  const extras: Mirror[] = [];
  list.forEach((item, i) => {
    const sub = ObjectReader.of(reader.context, item, joinPointer(reader.at('providers'), i), 'A provider');
    if (!sub) return;
    const name = readName(sub, 'provider');
    if (name === undefined) return;
    providers.push(compactRequired<Provider>({ name, priority: sub.number('priority'), config: readJsonObject(sub, 'config') }));
    const extra: Mirror = {};
    keep(sub, HOMELESS_PROVIDER_FIELDS, extra);
    keepRest(sub, extra, `provider "${name}"`);
    extras.push(extra);
  });
  // Index-aligned with the canonical providers, so export can lay them back.
  if (extras.some((e) => nonEmpty(e))) mirror['providers'] = extras;
  return providers;
}
