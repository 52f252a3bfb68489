/**
 * The config of a `python` provider entry (see python.ts for the keys). A
 * Pylot tool without providers gets an entry with no config: everything
 * then comes from the tool (`implementation.module`, `implementation.export`
 * as the class, `execution.allowParallel` for concurrency).
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import { PYTHON_MODULE_PATH } from '../../load/python-modules.js';
import { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT_BYTES, readEnvConfig } from './command-config.js';
import { ProviderConfigError } from './types.js';

/** Calls a parallel tool's worker runs at once unless `config.concurrency` says. @default 4 */
export const DEFAULT_PARALLEL_CONCURRENCY = 4;

/**
 * Calls at once when the entry does not say: 1 for a serial tool; for a
 * parallel one (Pylot `concurrency: parallel`) its `max_concurrency` runtime
 * hint (`execution.resources.max_concurrency`) when a positive integer, else
 * {@link DEFAULT_PARALLEL_CONCURRENCY}.
 */
function defaultConcurrency(tool: Tool): number {
  if (tool.execution?.allowParallel !== true) return 1;
  const hint = tool.execution.resources?.['max_concurrency'] ?? tool.execution.resources?.['maxConcurrency'];
  return typeof hint === 'number' && Number.isInteger(hint) && hint > 0 ? hint : DEFAULT_PARALLEL_CONCURRENCY;
}

/** The `python` entry's config, after validation. */
export interface PythonProviderConfig {
  module: string;
  /** The class to run; absent: the first subclass of `Tool` in the module. */
  className?: string;
  /** The project root, relative to the manifest's folder (absent: Pylot's layout decides). */
  root?: string;
  /** The interpreter (absent: the project's .venv, else python3). */
  python?: string;
  /** Calls one worker runs at once: 1 serialises. */
  concurrency: number;
  /** Extra variables; `${VAR}` expands from the environment. */
  env: Record<string, string>;
  /** Largest answer line read from the worker, bytes. */
  maxOutputBytes: number;
  killGraceMs: number;
  healthCheckIntervalSec?: number;
}

/**
 * Read and check one `python` entry; throws {@link ProviderConfigError}.
 * @example readPythonConfig({ name: 'python' }, { name: 'wc', implementation: { module: 'tools.wc', export: 'WordCount' } })
 * // { module: 'tools.wc', className: 'WordCount', concurrency: 1, env: {}, ... }
 */
export function readPythonConfig(entry: Provider, tool: Tool): PythonProviderConfig {
  const c = entry.config ?? {};
  const fail = (msg: string): never => {
    throw new ProviderConfigError(`provider "${entry.name}" of tool "${tool.name}": ${msg}`);
  };
  const str = (key: string): string | undefined => {
    const v = c[key];
    if (v === undefined) return undefined;
    return typeof v === 'string' && v !== '' ? v : fail(`config.${key} must be a non-empty string`);
  };
  const positive = (key: string, fallback: number, integer = false): number => {
    const v = c[key];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) return fail(`config.${key} must be a positive ${integer ? 'integer' : 'number'}`);
    return v;
  };
  const own = str('module');
  const module = own ?? tool.implementation?.module;
  if (module === undefined || module === '') return fail('no module to run (set config.module or implementation.module)');
  if (!PYTHON_MODULE_PATH.test(module)) return fail(`"${module}" is not a Python import path (dotted identifiers, e.g. tools.word_count)`);
  const className = str('class_name') ?? str('className') ?? (own === undefined ? tool.implementation?.export : undefined);
  const out: PythonProviderConfig = {
    module,
    concurrency: positive('concurrency', defaultConcurrency(tool), true),
    env: readEnvConfig(c['env'], fail),
    maxOutputBytes: positive('maxOutputBytes', DEFAULT_MAX_OUTPUT_BYTES),
    killGraceMs: positive('killGraceMs', DEFAULT_KILL_GRACE_MS),
  };
  if (className !== undefined && className !== '') out.className = className;
  const root = str('root');
  if (root !== undefined) out.root = root;
  const python = str('python');
  if (python !== undefined) out.python = python;
  if (c['healthCheckIntervalSec'] !== undefined) out.healthCheckIntervalSec = positive('healthCheckIntervalSec', 0);
  return out;
}
