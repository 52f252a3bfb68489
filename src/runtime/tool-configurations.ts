/**
 * A tool's configuration values (Shinkai's `configurations`; canonical
 * `configSchema`): what the operator gives in the config
 * (`tools.<name>.configurations`), with `{ env: NAME }` standing for the
 * value of an environment variable (the way secrets are given), checked
 * against the tool's declared schema. A tool whose values do not check out
 * (a required one missing, a wrong type, an unset variable) is unavailable,
 * with the reasons; it is never called with half its configuration.
 * @module
 */
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../model/validator.js';
import type { Tool } from '../model/schema.js';

/** What the operator says about one tool (config `tools.<name>`). */
export interface ToolSettings {
  /** Values by configuration key; `{ env: NAME }` anywhere is the variable's value (a secret: redacted wherever toolcap writes). */
  configurations?: Record<string, unknown>;
  /** The tool's own SQL database (tools that declare `storage.sqlTables`). */
  sql?: {
    /** Besides its declared queries, the tool may run statements of its own (`context.sql.execute`), checked the same way. @default false */
    allowAdHoc?: boolean;
  };
}

/** One problem with a tool's configuration values: where (a pointer into `configurations`) and what. */
export interface ConfigurationProblem {
  pointer: string;
  message: string;
  /** How to fix it, when the general advice (give the value in the config) is not it. */
  hint?: string;
}

/** A tool's resolved configuration: the values, the secrets among them, and what is wrong. */
export interface ResolvedConfiguration {
  values: Record<string, unknown>;
  /** Values that came from the environment: redacted in logs, audit and problem bodies. */
  secrets: string[];
  /** Empty when the tool may run. */
  problems: ConfigurationProblem[];
}

/** `{ env: NAME }`: a reference to an environment variable. */
export function envReference(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const name = (value as { env?: unknown }).env;
  return keys.length === 1 && typeof name === 'string' ? name : undefined;
}

const MAX_DEPTH = 16;

/** `value` with every `{ env: NAME }` replaced by the variable's value; unset ones become problems. */
function resolveValue(value: unknown, pointer: string, env: Readonly<Record<string, string | undefined>>, out: ResolvedConfiguration, depth: number): unknown {
  const name = envReference(value);
  if (name !== undefined) {
    const v = env[name];
    if (v === undefined || v === '') {
      out.problems.push({ pointer, message: `the environment variable ${name} is not set`, hint: `Set ${name} in the environment toolcap runs in.` });
      return undefined;
    }
    out.secrets.push(v);
    return v;
  }
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((v, i) => resolveValue(v, `${pointer}/${i}`, env, out, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, env, out, depth + 1)]));
}

/**
 * Resolve and check the configuration values of `tool`. Shinkai's
 * `default`s are documentation (the seed: "NOT APPLIED"), so none is filled
 * in; its `nullable: true` lets a value be null.
 * @example resolveConfiguration(tool, { configurations: { apiKey: { env: 'NOTES_KEY' } } }, process.env)
 */
export function resolveConfiguration(tool: Tool, settings: ToolSettings | undefined, env: Readonly<Record<string, string | undefined>>, validator = configurationValidator): ResolvedConfiguration {
  const out: ResolvedConfiguration = { values: {}, secrets: [], problems: [] };
  const given = settings?.configurations ?? {};
  out.values = resolveValue(given, '', env, out, 0) as Record<string, unknown>;
  const schema = tool.configSchema;
  if (schema === undefined) return out;
  const check = validator(tool);
  if (check instanceof Error) {
    out.problems.push({ pointer: '', message: `the tool's configuration schema cannot be compiled: ${check.message}` });
    return out;
  }
  // values left unresolved (unset variables) are reported once, above
  const unresolved = new Set(out.problems.map((p) => p.pointer));
  if (!check(out.values)) {
    for (const e of check.errors ?? []) {
      const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : undefined;
      const pointer = missing !== undefined ? `${e.instancePath}/${missing}` : e.instancePath;
      if (unresolved.has(pointer)) continue;
      const message = missing !== undefined ? `the required configuration "${missing}" is not given` : `${pointer || 'the configurations'} ${e.message ?? 'is invalid'}`;
      out.problems.push({ pointer, message });
    }
  }
  return out;
}

const validators = new WeakMap<Tool, ValidateFunction | Error>();
const ajv = createAjv();

/** The compiled configuration schema of a frozen tool (once per tool); Shinkai's `nullable` is honoured. */
export function configurationValidator(tool: Tool): ValidateFunction | Error {
  let v = validators.get(tool);
  if (!v) {
    try {
      const { $schema: _s, $id: _i, ...schema } = nullableAware(tool.configSchema ?? {}) as Record<string, unknown>;
      v = ajv.compile(schema);
    } catch (error) {
      v = error instanceof Error ? error : new Error(String(error));
    }
    validators.set(tool, v);
  }
  return v;
}

/** A copy of a Shinkai schema where `nullable: true` also admits null (OpenAPI's meaning of the keyword). */
export function nullableAware(schema: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH || typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map((s) => nullableAware(s, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'examples' ? v : nullableAware(v, depth + 1);
  if (out['nullable'] === true && typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
  return out;
}
