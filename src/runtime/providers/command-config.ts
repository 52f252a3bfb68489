/**
 * The `command` provider's config: reading and checking one manifest entry,
 * and finding the program it names (on PATH, or relative to `baseDir`).
 * @module
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Provider, Tool } from '../../model/schema.js';
import { envAllowList } from '../containment/child-env.js';
import { ProviderConfigError, type ProviderEnvironment } from './types.js';

/** The `command` entry's config, after validation. */
export interface CommandProviderConfig {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  maxOutputBytes: number;
  killGraceMs: number;
  healthCheckIntervalSec?: number;
}

/** Default stdout limit: 10 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
/** Default SIGTERM -> SIGKILL delay, milliseconds. */
export const DEFAULT_KILL_GRACE_MS = 2000;
/** `${VAR}` in config.env values. */
export const VAR_PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Read and check the config of one `command` entry; throws {@link ProviderConfigError}. */
export function readCommandConfig(entry: Provider, tool: Tool): CommandProviderConfig {
  const c = entry.config ?? {};
  const fail = (msg: string): never => {
    throw new ProviderConfigError(`provider "${entry.name}" of tool "${tool.name}": ${msg}`);
  };
  const command = c['command'];
  if (typeof command !== 'string' || command === '') return fail('config.command must be a non-empty string');
  const args = c['args'] ?? [];
  if (!Array.isArray(args) || !args.every((a): a is string => typeof a === 'string')) fail('config.args must be an array of strings');
  const env = readEnvConfig(c['env'], fail);
  const positive = (key: string, fallback: number): number => {
    const v = c[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return fail(`config.${key} must be a positive number`);
    return v;
  };
  const out: CommandProviderConfig = {
    command,
    args: args as string[],
    env,
    maxOutputBytes: positive('maxOutputBytes', DEFAULT_MAX_OUTPUT_BYTES),
    killGraceMs: positive('killGraceMs', DEFAULT_KILL_GRACE_MS),
  };
  const cwd = c['cwd'];
  if (cwd !== undefined) {
    if (typeof cwd !== 'string' || cwd === '') fail('config.cwd must be a non-empty string');
    out.cwd = cwd as string;
  }
  if (c['healthCheckIntervalSec'] !== undefined) out.healthCheckIntervalSec = positive('healthCheckIntervalSec', 0);
  return out;
}

/**
 * A `config.env` object (variable -> value, `${VAR}` allowed in values);
 * `fail` throws the entry's config error.
 */
export function readEnvConfig(raw: unknown, fail: (msg: string) => never): Record<string, string> {
  const env: Record<string, string> = {};
  if (raw === undefined) return env;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('config.env must be an object of strings');
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'string') fail(`config.env.${k} must be a string`);
    env[k] = v as string;
  }
  return env;
}

/**
 * A child's whole environment: the allow-list (base variables and the
 * `declared` ones, containment/child-env.ts), then `configEnv` with `${VAR}`
 * expanded from `env`, nothing else.
 */
export function childEnvOf(env: ProviderEnvironment['env'], declared: Iterable<string>, configEnv: Readonly<Record<string, string>>): Record<string, string> {
  const out = envAllowList({ base: env, declared });
  for (const [k, v] of Object.entries(configEnv)) out[k] = v.replace(VAR_PATTERN, (_, name: string) => env[name] ?? '');
  return out;
}

/** Variables a config's env values refer to that the environment does not set. */
export function missingVars(config: Pick<CommandProviderConfig, 'env'>, env: ProviderEnvironment['env']): string[] {
  const missing = new Set<string>();
  for (const value of Object.values(config.env)) {
    for (const m of value.matchAll(VAR_PATTERN)) if (env[m[1] as string] === undefined) missing.add(m[1] as string);
  }
  return [...missing];
}

/** True when `command` is a path (relative to `baseDir`) rather than a name to look up on PATH. */
export function isCommandPath(command: string): boolean {
  return isAbsolute(command) || hasPathSeparator(command);
}

function hasPathSeparator(command: string): boolean {
  return command.includes('/') || (process.platform === 'win32' && command.includes('\\'));
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (process.platform !== 'win32') accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The file a command runs, or undefined when it resolves to nothing. */
export function resolveCommand(command: string, baseDir: string, env: ProviderEnvironment['env']): string | undefined {
  if (isCommandPath(command)) {
    const path = resolve(baseDir, command);
    return isExecutableFile(path) ? path : undefined;
  }
  const dirs = (env['PATH'] ?? env['Path'] ?? '').split(delimiter).filter((d) => d !== '');
  const exts = process.platform === 'win32' ? ['', ...(env['PATHEXT'] ?? '.EXE;.CMD;.BAT;.COM').split(';')] : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = join(dir, command + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}
