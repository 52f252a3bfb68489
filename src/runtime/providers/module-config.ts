/**
 * The config of a `module` provider entry: what to load, which export,
 * where it runs, and its health check (see module.ts for the keys).
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import { ProviderConfigError } from './types.js';

/** The `module` entry's config, after validation. */
export interface ModuleProviderConfig {
  module: string;
  export: string;
  healthCheck?: string;
  healthCheckIntervalSec?: number;
  /** From `config.isolation`, else `implementation.isolation`; absent: the environment decides. */
  isolation?: ModuleIsolation;
}

/** Where a module tool runs: a worker thread of its own, or the server's thread. */
export type ModuleIsolation = 'worker' | 'inline';

const ISOLATIONS: readonly unknown[] = ['worker', 'inline'] satisfies ModuleIsolation[];

/** Implementation languages the module provider can run (`implementation.language`). */
const JS_LANGUAGES = new Set(['javascript', 'typescript', 'js', 'ts', 'node', 'nodejs', 'deno', 'bun']);

/**
 * Read and check the config of one `module` entry (falls back to `tool.implementation`).
 * @example readModuleConfig({ name: 'local', config: { module: './echo.mjs' } }, tool) // { module: './echo.mjs', export: 'default' }
 */
export function readModuleConfig(entry: Provider, tool: Tool): ModuleProviderConfig {
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
  const isolation = config['isolation'] ?? tool.implementation?.isolation;
  if (isolation !== undefined) {
    if (!ISOLATIONS.includes(isolation)) throw new ProviderConfigError(`${where}: isolation must be "worker" or "inline"`);
    out.isolation = isolation as ModuleIsolation;
  }
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
