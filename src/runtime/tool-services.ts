/**
 * What a tool gets besides its arguments, and what its result is held to:
 * its configuration values (tool-configurations.ts), its own SQL database
 * (tool-storage.ts), and the check of its result against its declared
 * output schema (result-check.ts). The runtime asks {@link ToolServices.forCall}
 * before routing a call, and {@link ToolServices.checkResult} after it.
 * @module
 */
import { dirname, isAbsolute, join } from 'node:path';
import type { Tool } from '../model/schema.js';
import type { Store } from '../store/types.js';
import type { ToolDatabaseLocation, ToolSql } from '../store/tool-db.js';
import { CallError } from './errors.js';
import { ResultChecker, type ResultDrift, type ResultPolicy } from './result-check.js';
import { resolveConfiguration, type ResolvedConfiguration, type ToolSettings } from './tool-configurations.js';
import { ToolStorage } from './tool-storage.js';

export type { ResultDrift, ResultPolicy } from './result-check.js';
export type { ToolSettings } from './tool-configurations.js';

/** How the services are set up (from the config's `tools` section and `runtime.results`). */
export interface ToolServicesOptions {
  /** Per tool name, the operator's settings. @default {} */
  settings?: Readonly<Record<string, ToolSettings>>;
  /** Where `{ env: NAME }` values are read. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** A result that does not match `outputSchema`: counted (`warn`), or also failing the call (`fail`). @default 'warn' */
  results?: ResultPolicy;
  /** Where tools' own databases are kept; absent: tools declaring SQL tables are unavailable. */
  databases?: ToolDatabaseLocation;
  clock?: () => number;
}

/**
 * Where tools' databases go for a runtime given no services: beside an
 * SQLite store's file (`tools/`); none for another store (its location
 * names no folder, and a PostgreSQL URL is not kept with its password).
 * @example defaultToolDatabases(store) // { kind: 'sqlite', dir: '/srv/app/.toolcap/tools' }
 */
export function defaultToolDatabases(store: Pick<Store, 'kind' | 'location' | 'sqliteDriver'>): ToolDatabaseLocation | undefined {
  if (store.kind !== 'sqlite' || !isAbsolute(store.location)) return undefined;
  const dir = join(dirname(store.location), 'tools');
  // the store's driver, so one process never runs the two side by side
  return store.sqliteDriver === undefined ? { kind: 'sqlite', dir } : { kind: 'sqlite', dir, driver: store.sqliteDriver };
}

/** What a provider gets for a call besides the arguments (fields of ProviderCallContext). */
export interface ToolExtras {
  configurations?: Readonly<Record<string, unknown>>;
  sql?: ToolSql;
}

/**
 * The per-tool services of a runtime.
 * @example
 * const services = new ToolServices({ settings: config.tools.settings, databases: { kind: 'sqlite', dir } });
 * const extras = await services.forCall(tool); // { configurations, sql }
 */
export class ToolServices {
  readonly #settings: Readonly<Record<string, ToolSettings>>;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #policy: ResultPolicy;
  readonly #storage: ToolStorage;
  readonly #results: ResultChecker;
  readonly #resolved = new WeakMap<Tool, ResolvedConfiguration>();

  constructor(options: ToolServicesOptions = {}) {
    this.#settings = options.settings ?? {};
    this.#env = options.env ?? process.env;
    this.#policy = options.results ?? 'warn';
    this.#storage = new ToolStorage(options.databases);
    this.#results = new ResultChecker(options.clock);
  }

  /** The resolved configuration of a frozen tool (once per tool). */
  configuration(tool: Tool): ResolvedConfiguration {
    let r = this.#resolved.get(tool);
    if (!r) this.#resolved.set(tool, (r = resolveConfiguration(tool, this.#settings[tool.name], this.#env)));
    return r;
  }

  /** Why `tool` cannot run for want of configuration, or undefined. */
  unavailable(tool: Tool): string | undefined {
    const { problems } = this.configuration(tool);
    if (problems.length === 0) return undefined;
    return `its configuration is incomplete: ${problems.map((p) => p.message).join('; ')} (see tools.${tool.name} in the config)`;
  }

  /** Every configuration value that came from the environment, for the redactor. */
  secrets(tools: Iterable<Tool>): string[] {
    const out: string[] = [];
    for (const tool of tools) if (this.#settings[tool.name] !== undefined) out.push(...this.configuration(tool).secrets);
    return out;
  }

  /**
   * What the provider gets for a call of `tool`. Rejects with
   * NO_HEALTHY_PROVIDER, naming the reason, when the tool cannot run: its
   * configuration is incomplete, or its database or tables cannot be made.
   */
  async forCall(tool: Tool, callId: string): Promise<ToolExtras> {
    const missing = this.unavailable(tool);
    if (missing !== undefined) throw new CallError('NO_HEALTHY_PROVIDER', `"${tool.name}" is unavailable: ${missing}.`, { callId });
    const extras: ToolExtras = {};
    if (tool.configSchema !== undefined || this.#settings[tool.name]?.configurations !== undefined) extras.configurations = Object.freeze(this.configuration(tool).values);
    let sql: ToolSql | undefined;
    try {
      sql = await this.#storage.handle(tool, this.#settings[tool.name]?.sql?.allowAdHoc === true);
    } catch (error) {
      throw new CallError('NO_HEALTHY_PROVIDER', `"${tool.name}" is unavailable: ${error instanceof Error ? error.message : String(error)}.`, { callId }, { cause: error });
    }
    if (sql) extras.sql = sql;
    return extras;
  }

  /**
   * Hold a result to the tool's declared output schema: a mismatch is
   * counted as drift; with `results: fail` it also fails the call with
   * RESULT_MISMATCH (the tool ran: its effects, if any, happened).
   */
  checkResult(tool: Tool, result: unknown, callId: string): void {
    const check = this.#results.check(tool, result);
    if (check.ok || this.#policy === 'warn') return;
    const problems = check.problems.map((p) => ({ pointer: p.pointer, message: p.message }));
    throw new CallError('RESULT_MISMATCH', `The result of "${tool.name}" does not match its declared outputSchema: ${problems.map((p) => p.message).join('; ')}.`, { callId, problems, ...(problems[0] ? { pointer: problems[0].pointer } : {}) });
  }

  /** The drift of a tool's results (shown with its health), when any was checked. */
  drift(name: string): ResultDrift | undefined {
    return this.#results.drift(name);
  }

  /** Changes whenever any drift does. */
  get version(): number {
    return this.#results.version;
  }

  /** Close the tools' databases. */
  close(): Promise<void> {
    return this.#storage.close();
  }
}
