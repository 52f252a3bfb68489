/**
 * The `module` provider type: run a tool as a JavaScript function exported by
 * an ES module (or a CommonJS module Node can import).
 *
 * Config (all optional when the tool has `implementation.module`):
 *
 * - `module`: a path (relative to the environment's `baseDir`, absolute, or a
 *   `file:` URL) or a package name (resolved like any `import` from toolcap).
 * - `export`: the export to run, default `default` (falls back to
 *   `implementation.export`).
 * - `healthCheck`: the name of an exported check function `(signal) =>
 *   boolean | HealthCheckResult | void` used by `check()`.
 * - `healthCheckIntervalSec`: seconds between active checks.
 *
 * The export may be a function `(args, ctx) => result`, a class whose
 * instances have a `run` or `call` method (instantiated with `new` once per
 * provider instance), or an object with a `run` or `call` method. The module
 * is imported once per instance (the promise is cached, failure included:
 * Node's module map keeps a failed module failed anyway).
 * @module
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Provider, Tool } from '../../model/schema.js';
import {
  ProviderConfigError,
  ProviderError,
  type HealthCheckResult,
  type ProviderCallContext,
  type ProviderEnvironment,
  type ProviderInstance,
  type ProviderType,
} from './types.js';
import { errorMessage } from '../../model/errors.js';
import { raceAbort } from '../abort.js';

/** The `module` entry's config, after validation. */
export interface ModuleProviderConfig {
  module: string;
  export: string;
  healthCheck?: string;
  healthCheckIntervalSec?: number;
}

/** Implementation languages the module provider can run (`implementation.language`). */
const JS_LANGUAGES = new Set(['javascript', 'typescript', 'js', 'ts', 'node', 'nodejs', 'deno', 'bun']);

type Runner = (args: Record<string, unknown>, context: ProviderCallContext) => unknown;

interface Loaded {
  namespace: Record<string, unknown>;
  run: Runner;
}

/** Read and check the config of one `module` entry (falls back to `tool.implementation`). */
function readModuleConfig(entry: Provider, tool: Tool): ModuleProviderConfig {
  const config = entry.config ?? {};
  const where = `provider "${entry.name}" of tool "${tool.name}"`;
  const str = (key: string): string | undefined => {
    const v = config[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '') throw new ProviderConfigError(`${where}: config.${key} must be a non-empty string`);
    return v;
  };
  const fromConfig = str('module');
  const module = fromConfig ?? tool.implementation?.module;
  if (module === undefined || module === '') {
    throw new ProviderConfigError(`${where}: no module to run (set config.module or implementation.module)`);
  }
  const language = tool.implementation?.language;
  if (fromConfig === undefined && language !== undefined && !JS_LANGUAGES.has(language.toLowerCase())) {
    throw new ProviderConfigError(
      `${where}: implementation.language is "${language}"; the module provider runs JavaScript modules only`,
    );
  }
  const out: ModuleProviderConfig = {
    module,
    export: str('export') ?? (fromConfig === undefined ? tool.implementation?.export : undefined) ?? 'default',
  };
  const healthCheck = str('healthCheck');
  if (healthCheck !== undefined) out.healthCheck = healthCheck;
  const interval = config['healthCheckIntervalSec'];
  if (interval !== undefined) {
    if (typeof interval !== 'number' || !(interval > 0)) {
      throw new ProviderConfigError(`${where}: config.healthCheckIntervalSec must be a positive number`);
    }
    out.healthCheckIntervalSec = interval;
  }
  return out;
}

/** A path-like specifier (not a package name)? */
function isPathSpecifier(spec: string): boolean {
  return spec.startsWith('.') || spec.startsWith('file:') || isAbsolute(spec) || /^[A-Za-z]:[\\/]/.test(spec);
}

/** The file a path specifier names, or undefined for a package name. */
function modulePathOf(spec: string, baseDir: string): string | undefined {
  if (spec.startsWith('file:')) return fileURLToPath(spec);
  if (!isPathSpecifier(spec)) return undefined;
  return resolve(baseDir, spec);
}

function isClass(fn: unknown): fn is new () => unknown {
  return typeof fn === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

function methodOf(target: unknown): Runner | undefined {
  if (target === null || (typeof target !== 'object' && typeof target !== 'function')) return undefined;
  const obj = target as Record<string, unknown>;
  for (const key of ['run', 'call'] as const) {
    const m = obj[key];
    // A plain function's own `call` is Function.prototype.call, not a tool method.
    if (typeof m === 'function' && m !== Function.prototype.call) return (m as Runner).bind(target);
  }
  return undefined;
}

/** Turn an export into something to run, or explain why it cannot be. */
function runnerOf(value: unknown, describe: string): Runner {
  if (isClass(value)) {
    let instance: unknown;
    try {
      instance = new value();
    } catch (err) {
      throw new ProviderConfigError(`${describe}: constructing the class failed: ${messageOf(err)}`, { cause: err });
    }
    const m = methodOf(instance);
    if (!m) throw new ProviderConfigError(`${describe}: instances of the class have no run() or call() method`);
    return m;
  }
  if (typeof value === 'function') return value as Runner;
  const m = methodOf(value);
  if (m) return m;
  throw new ProviderConfigError(`${describe}: is ${value === null ? 'null' : typeof value}, not a function, class or object with run()/call()`);
}

function exportsOf(namespace: Record<string, unknown>): string {
  const names = Object.keys(namespace);
  return names.length === 0 ? '(none)' : names.join(', ');
}

function messageOf(err: unknown): string {
  return errorMessage(err);
}

/** Look `name` up in a namespace; CommonJS named exports Node could not detect are read off `default`. */
function exportOf(namespace: Record<string, unknown>, name: string): unknown {
  if (name in namespace) return namespace[name];
  const def = namespace['default'];
  if (name !== 'default' && def !== null && (typeof def === 'object' || typeof def === 'function')) {
    return (def as Record<string, unknown>)[name];
  }
  return undefined;
}

/** Reject with ABORTED when the signal fires, whatever `work` does. */
function raceAborted<T>(work: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  return raceAbort(work, signal, (before) => abortedError(signal, what, before));
}

function abortedError(signal: AbortSignal, what: string, before: boolean): ProviderError {
  return new ProviderError('ABORTED', `${what}: aborted${before ? ' before it started' : ''}`, before, { cause: signal.reason });
}

class ModuleInstance implements ProviderInstance {
  readonly type = 'module';
  declare readonly healthCheckIntervalSec?: number;
  declare readonly check?: (signal: AbortSignal) => Promise<HealthCheckResult>;
  private loading: Promise<Loaded> | undefined;
  private loadFailure: string | undefined;
  private readonly path: string | undefined;
  private readonly describe: string;

  constructor(
    readonly name: string,
    private readonly config: ModuleProviderConfig,
    environment: ProviderEnvironment,
  ) {
    this.path = modulePathOf(config.module, environment.baseDir);
    this.describe = `export "${config.export}" of module "${config.module}"`;
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
    const healthCheck = config.healthCheck;
    if (healthCheck !== undefined) this.check = (signal) => this.runCheck(healthCheck, signal);
  }

  private load(): Promise<Loaded> {
    this.loading ??= this.doLoad().catch((err: unknown) => {
      this.loadFailure = messageOf(err);
      throw err;
    });
    return this.loading;
  }

  private async doLoad(): Promise<Loaded> {
    const url = this.path !== undefined ? pathToFileURL(this.path).href : this.config.module;
    let namespace: Record<string, unknown>;
    try {
      namespace = (await import(url)) as Record<string, unknown>;
    } catch (err) {
      throw new ProviderError(
        'PROVIDER_UNAVAILABLE',
        `module "${this.config.module}" failed to load: ${messageOf(err)}`,
        true,
        { cause: err },
      );
    }
    const value = exportOf(namespace, this.config.export);
    if (value === undefined) {
      const config = new ProviderConfigError(
        `module "${this.config.module}" has no export "${this.config.export}" (exports: ${exportsOf(namespace)})`,
      );
      throw new ProviderError('PROVIDER_UNAVAILABLE', config.message, true, { cause: config });
    }
    try {
      return { namespace, run: runnerOf(value, this.describe) };
    } catch (err) {
      throw new ProviderError('PROVIDER_UNAVAILABLE', messageOf(err), true, { cause: err });
    }
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const { signal } = context;
    const loaded = await raceAborted(this.load(), signal, this.describe);
    if (signal.aborted) throw abortedError(signal, this.describe, true);
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(loaded.run(args, context));
    } catch (err) {
      pending = Promise.reject(err);
    }
    try {
      return await raceAborted(pending, signal, this.describe);
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (signal.aborted) throw abortedError(signal, this.describe, false);
      throw new ProviderError('PROVIDER_ERROR', messageOf(err), false, { cause: err });
    }
  }

  ready(): HealthCheckResult {
    if (this.path !== undefined && !existsSync(this.path)) {
      return { healthy: false, reason: `module file not found: ${this.path}` };
    }
    if (this.loadFailure !== undefined) return { healthy: false, reason: this.loadFailure };
    return { healthy: true };
  }

  private async runCheck(name: string, signal: AbortSignal): Promise<HealthCheckResult> {
    try {
      const { namespace } = await raceAborted(this.load(), signal, `health check "${name}"`);
      const fn = exportOf(namespace, name);
      if (typeof fn !== 'function') {
        return { healthy: false, reason: `module "${this.config.module}" has no function export "${name}" (exports: ${exportsOf(namespace)})` };
      }
      const result: unknown = await raceAborted(Promise.resolve((fn as (s: AbortSignal) => unknown)(signal)), signal, `health check "${name}"`);
      if (result === undefined || result === true) return { healthy: true };
      if (result === false) return { healthy: false, reason: `health check "${name}" returned false` };
      if (typeof result === 'object' && result !== null && typeof (result as HealthCheckResult).healthy === 'boolean') {
        const r = result as HealthCheckResult;
        return r.reason === undefined ? { healthy: r.healthy } : { healthy: r.healthy, reason: String(r.reason) };
      }
      return { healthy: true };
    } catch (err) {
      return { healthy: false, reason: messageOf(err) };
    }
  }
}

/** The `module` provider type. */
export const moduleProviderType: ProviderType = {
  type: 'module',
  create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
    return new ModuleInstance(entry.name, readModuleConfig(entry, tool), environment);
  },
};
