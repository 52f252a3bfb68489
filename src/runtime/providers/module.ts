/**
 * The `module` provider type: run a tool as a JavaScript function exported by
 * an ES module (or a CommonJS module Node can import).
 *
 * Config (all optional when the tool has `implementation.module`):
 *
 * - `module`: a path (relative to the environment's `baseDir`, absolute, or a
 *   `file:` URL) or a package name (resolved from `baseDir`). It must lie
 *   inside `baseDir` or a `trustedModuleDirs` folder (module-paths.ts);
 *   otherwise the provider is unavailable with the reason and nothing runs.
 * - `export`: the export to run, default `default` (falls back to
 *   `implementation.export`).
 * - `isolation`: `worker` or `inline` (falls back to
 *   `implementation.isolation`, then the environment's `moduleIsolation`,
 *   then `worker`). See module-worker.ts and module-inline.ts.
 * - `healthCheck`: the name of an exported check function `(signal) =>
 *   boolean | HealthCheckResult | void` used by `check()`.
 * - `healthCheckIntervalSec`: seconds between active checks.
 *
 * The export may be a function `(args, ctx) => result`, a class whose
 * instances have a `run` or `call` method (instantiated once per loaded
 * version), or an object with a `run` or `call` method (module-runner.ts).
 *
 * Before every call the provider takes the code's identity
 * (module-identity.ts: the file and its local imports; a `stat` each when
 * unchanged); when it differs from the loaded version's, the old executor
 * retires and a new one loads the code afresh. An edit goes live at the next
 * call, and `codeIdentity()` names the code that call runs.
 * @module
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Provider, Tool } from '../../model/schema.js';
import { errorMessage } from '../../model/errors.js';
import { envAllowList } from '../containment/child-env.js';
import { readResourceLimits, type ResourceLimitName } from '../containment/resource-limits.js';
import { declaredEnvNames } from './declared-env.js';
import { codeIdentityOf } from './identity.js';
import { abortedError, type ModuleExecutor, type ModuleTarget } from './module-executor.js';
import { moduleCodeIdentity, fileDigest } from './module-identity.js';
import { InlineExecutor } from './module-inline.js';
import { moduleAllowed, type ModuleVerdict } from '../../load/module-paths.js';
import { WorkerExecutor } from './module-worker.js';
import { readModuleConfig, type ModuleIsolation, type ModuleProviderConfig } from './module-config.js';
import {
  ProviderError,
  type HealthCheckResult,
  type ProviderCallContext,
  type ProviderEnvironment,
  type ProviderInstance,
  type ProviderType,
} from './types.js';

export type { ModuleIsolation, ModuleProviderConfig } from './module-config.js';

/** The executor of the version of the code last called. */
interface Current {
  identity: string;
  executor: ModuleExecutor;
}

class ModuleInstance implements ProviderInstance {
  readonly type = 'module';
  /** A worker's heap is capped at `memoryMb`; inline code shares the server's thread and is held to nothing. */
  readonly enforcedResourceLimits: readonly ResourceLimitName[];
  declare readonly healthCheckIntervalSec?: number;
  declare readonly check?: (signal: AbortSignal) => Promise<HealthCheckResult>;
  readonly #config: ModuleProviderConfig;
  readonly #baseDir: string;
  readonly #trusted: readonly string[];
  readonly #isolation: ModuleIsolation;
  readonly #memoryMb: number | undefined;
  /** What a worker's code sees as process.env: a small base plus the variables the manifest declares. */
  readonly #env: Record<string, string>;
  readonly #verdict: ModuleVerdict;
  readonly #describe: string;
  #current: Current | undefined;

  constructor(
    readonly name: string,
    config: ModuleProviderConfig,
    tool: Tool,
    environment: ProviderEnvironment,
  ) {
    this.#config = config;
    this.#baseDir = environment.baseDir;
    this.#trusted = environment.trustedModuleDirs ?? [];
    this.#isolation = config.isolation ?? environment.moduleIsolation ?? 'worker';
    this.#memoryMb = readResourceLimits(tool.execution?.resources).limits.memoryMb;
    this.enforcedResourceLimits = this.#isolation === 'worker' ? ['memoryMb'] : [];
    this.#env = envAllowList({ base: environment.env, declared: declaredEnvNames(tool) });
    this.#verdict = moduleAllowed(config.module, this.#baseDir, this.#trusted);
    this.#describe = `export "${config.export}" of module "${config.module}"`;
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
    const healthCheck = config.healthCheck;
    if (healthCheck !== undefined) this.check = (signal) => this.#runCheck(healthCheck, signal);
  }

  /** The identity of the code on disk now, or why there is none to run. */
  #identity(): { identity: string } | { refused: string } {
    if (!this.#verdict.ok) return { refused: this.#verdict.reason };
    return { identity: moduleCodeIdentity(this.#verdict.entry, this.#config.export) };
  }

  /** The executor of the code on disk now: the current one, or a fresh one when the code changed or its worker ended. */
  #executor(): ModuleExecutor {
    const now = this.#identity();
    if ('refused' in now) throw new ProviderError('PROVIDER_UNAVAILABLE', now.refused, true);
    const current = this.#current;
    if (current !== undefined && current.identity === now.identity && current.executor.alive) return current.executor;
    // Checked again per version: the file may have been swapped for a symlink leading outside.
    const verdict = moduleAllowed(this.#config.module, this.#baseDir, this.#trusted);
    if (!verdict.ok) throw new ProviderError('PROVIDER_UNAVAILABLE', verdict.reason, true);
    current?.executor.retire();
    const url = pathToFileURL(verdict.entry.path);
    const target: ModuleTarget = { url: url.href, spec: this.#config.module, exportName: this.#config.export };
    let executor: ModuleExecutor;
    if (this.#isolation === 'inline') {
      // Each version its own URL: ESM caches by URL, and this one must be imported afresh.
      url.searchParams.set('code', fileDigest(verdict.entry.path) ?? 'missing');
      executor = new InlineExecutor({ ...target, url: url.href });
    } else {
      executor = new WorkerExecutor(target, { env: this.#env, ...(this.#memoryMb !== undefined ? { memoryMb: this.#memoryMb } : {}) });
    }
    this.#current = { identity: now.identity, executor };
    return executor;
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    if (context.signal.aborted) throw abortedError(context.signal, this.#describe, true);
    return this.#executor().call(args, context);
  }

  ready(): HealthCheckResult {
    if (!this.#verdict.ok) return { healthy: false, reason: this.#verdict.reason };
    const { entry } = this.#verdict;
    if (entry.kind === 'file' && !existsSync(entry.path)) return { healthy: false, reason: `module file not found: ${entry.path}` };
    const failure = this.#current?.executor.loadFailure;
    // A failure of older code says nothing about the code on disk now.
    if (failure !== undefined && this.#current?.identity === moduleCodeIdentity(entry, this.#config.export)) return { healthy: false, reason: failure };
    return { healthy: true };
  }

  /** `module:sha256:…` over the export name, the module file and its local imports (packages by version). */
  async codeIdentity(): Promise<string> {
    const now = this.#identity();
    // Refused code never runs; its identity still changes when the reason does.
    return 'refused' in now ? codeIdentityOf('module', { export: this.#config.export, refused: now.refused }) : now.identity;
  }

  async close(): Promise<void> {
    await this.#current?.executor.close();
    this.#current = undefined;
  }

  async #runCheck(name: string, signal: AbortSignal): Promise<HealthCheckResult> {
    try {
      const result = await this.#executor().check(name, signal);
      if (result === undefined || result === true) return { healthy: true };
      if (result === false) return { healthy: false, reason: `health check "${name}" returned false` };
      if (typeof result === 'object' && result !== null && typeof (result as HealthCheckResult).healthy === 'boolean') {
        const r = result as HealthCheckResult;
        return r.reason === undefined ? { healthy: r.healthy } : { healthy: r.healthy, reason: String(r.reason) };
      }
      return { healthy: true };
    } catch (err) {
      return { healthy: false, reason: errorMessage(err) };
    }
  }
}

/** The `module` provider type. */
export const moduleProviderType: ProviderType = {
  type: 'module',
  create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
    return new ModuleInstance(entry.name, readModuleConfig(entry, tool), tool, environment);
  },
};
