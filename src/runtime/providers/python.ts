/**
 * The `python` provider type: run a Pylot-style Python tool, a class with
 * `run(**inputs)`, in a long-lived worker process (python-worker.ts, the
 * runner `runners/pylot_runner.py` in `serve` mode). A Pylot tool (its
 * `implementation.language` is `python`) without providers runs through it
 * with no config at all.
 *
 * Config (all optional for a Pylot tool):
 * - `module`: the Python import path (default `implementation.module`),
 *   absolute from the project root or with one leading dot (see
 *   load/python-modules.ts); `class_name` (default `implementation.export`;
 *   absent: the first subclass of `Tool` in the module);
 * - `root`: the project root, relative to the manifest's folder (default:
 *   the parent of a `config/` manifest folder, else the manifest's folder);
 * - `python`: the interpreter (default `<root>/.venv`'s, else `python3`);
 * - `concurrency`: calls one worker runs at once (default 1, or 4 when
 *   `execution.allowParallel`); `env`, `requiredEnv`, `maxOutputBytes`,
 *   `killGraceMs`, `healthCheckIntervalSec` as for `command`.
 *
 * Containment is the command provider's: own process group, environment
 * allow-list, `prlimit` for `memoryMb` and `openFiles` (`cpuSec` would
 * count the worker's whole life, so it is reported as not enforced; the
 * timeout bounds each call). The module's top-level package must lie in the
 * project root or a `runtime.trustedModuleDirs` folder, never the standard
 * library or site-packages. What a tool prints is kept apart from the
 * protocol, bounded and redacted: it goes to `onOutput` (default: the
 * server's stderr) and, on failure, into the error's detail.
 *
 * Before every call the provider takes the code's identity (a stat of the
 * module's files); when it changed, a new worker loads the code afresh.
 * @module
 */
import { dirname, join, relative } from 'node:path';
import { readdirSync, statSync } from 'node:fs';
import type { Provider, Tool } from '../../model/schema.js';
import { packageInits, pythonModuleFile, pythonProjectRoot } from '../../load/python-modules.js';
import { createRedactor } from '../containment/redact.js';
import { findPrlimit, readResourceLimits, withResourceLimits, type ResourceLimitName } from '../containment/resource-limits.js';
import { childEnvOf, missingVars } from './command-config.js';
import { declaredEnvNames } from './declared-env.js';
import { codeIdentityOf, fileSha256 } from './identity.js';
import { readPythonConfig, type PythonProviderConfig } from './python-config.js';
import { findPython, PYTHON_FLAGS, pythonCommand, runnerPath } from './python-runner.js';
import { PythonWorker } from './python-worker.js';
import { ProviderError, type HealthCheckResult, type ProviderCallContext, type ProviderEnvironment, type ProviderInstance, type ProviderType } from './types.js';

export { readPythonConfig, type PythonProviderConfig } from './python-config.js';

/** Most sibling files a code identity hashes. */
const MAX_IDENTITY_FILES = 200;

/** Options of {@link createPythonProviderType}. */
export interface PythonProviderOptions {
  /** Where a tool's printed output goes (already bounded and redacted). @default a line on the server's stderr */
  onOutput?: (tool: string, output: string) => void;
}

const stderrOutput = (tool: string, output: string) => process.stderr.write(`toolcap: python tool "${tool}" printed:\n${output.replace(/\n?$/, '\n')}`);

class PythonInstance implements ProviderInstance {
  readonly type = 'python';
  /** Per process, through prlimit; `cpuSec` would bound the worker's whole life, so it is reported as not enforced (containment/resource-report.ts). */
  readonly enforcedResourceLimits: readonly ResourceLimitName[] = ['memoryMb', 'openFiles'];
  declare readonly healthCheckIntervalSec?: number;
  readonly #config: PythonProviderConfig;
  readonly #tool: string;
  readonly #environment: ProviderEnvironment;
  readonly #root: string;
  readonly #command: string;
  readonly #declared: string[];
  readonly #resources: Readonly<Record<string, unknown>> | undefined;
  readonly #prlimit: string | null;
  readonly #warnings: string[];
  readonly #redact: (text: string) => string;
  readonly #onOutput: (tool: string, output: string) => void;
  readonly #describe: string;
  #current: { stamp: string; worker: PythonWorker } | undefined;

  constructor(readonly name: string, config: PythonProviderConfig, tool: Tool, entry: Provider, environment: ProviderEnvironment, options: PythonProviderOptions) {
    this.#config = config;
    this.#tool = tool.name;
    this.#environment = environment;
    this.#root = pythonProjectRoot(environment.baseDir, config.root);
    this.#command = pythonCommand(config.python, this.#root, environment.baseDir);
    this.#declared = declaredEnvNames(tool, entry);
    this.#onOutput = options.onOutput ?? stderrOutput;
    this.#describe = `python tool "${tool.name}" (${config.module}${config.className ? `:${config.className}` : ''})`;
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
    // cpuSec would bound the worker's whole life, not a call: the timeout does that
    const { limits, problems } = readResourceLimits(tool.execution?.resources);
    const { cpuSec: _lifetime, ...perProcess } = limits;
    this.#resources = Object.keys(perProcess).length > 0 ? perProcess : undefined;
    this.#prlimit = findPrlimit() ?? null;
    const { unenforced } = withResourceLimits(this.#command, [], perProcess, this.#prlimit);
    this.#warnings = [
      ...problems,
      ...unenforced.map((l) => `execution.resources ${l} is not enforced here (no prlimit)`),
    ];
    // the worker sees the declared variables: their values are what it could leak
    const env = this.#childEnv();
    this.#redact = createRedactor({ secrets: this.#declared.map((n) => env[n]).concat(Object.keys(config.env).map((k) => env[k])) }).redactText;
  }

  #childEnv(): Record<string, string> {
    return childEnvOf(this.#environment.env, this.#declared, this.#config.env);
  }

  /** The module's file under the project root, else under a trusted folder (where the runner looks, in that order). */
  #moduleFile(): string | undefined {
    for (const dir of [this.#root, ...(this.#environment.trustedModuleDirs ?? [])]) {
      const file = pythonModuleFile(dir, this.#config.module);
      if (file !== undefined) return file;
    }
    return undefined;
  }

  /** The module's file, its packages' `__init__.py` and the `.py` files beside it, in a stable order. */
  #files(): string[] {
    const file = this.#moduleFile();
    if (file === undefined) return [];
    let siblings: string[] = [];
    try {
      siblings = readdirSync(dirname(file)).filter((f) => f.endsWith('.py')).sort().slice(0, MAX_IDENTITY_FILES).map((f) => join(dirname(file), f));
    } catch {
      // gone meanwhile: the module file alone
    }
    return [...new Set([file, ...packageInits(this.#root, file), ...siblings])];
  }

  /** `python:sha256:…` over the module, class, root, interpreter and the module's files' sha256. */
  async codeIdentity(): Promise<string> {
    const files: Record<string, string | null> = {};
    for (const f of this.#files()) files[relative(this.#root, f)] = (await fileSha256(f)) ?? null;
    const python = findPython(this.#command, this.#environment.baseDir, this.#environment.env) ?? null;
    return codeIdentityOf('python', { module: this.#config.module, className: this.#config.className ?? null, root: this.#root, python, files });
  }

  ready(): HealthCheckResult {
    const missing = missingVars(this.#config, this.#environment.env);
    if (missing.length > 0) return { healthy: false, reason: `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set` };
    if (findPython(this.#command, this.#environment.baseDir, this.#environment.env) === undefined) {
      return { healthy: false, reason: `the Python interpreter "${this.#command}" was not found${this.#command.includes('/') ? '' : ' on PATH'}` };
    }
    if (this.#moduleFile() === undefined) return { healthy: false, reason: `module "${this.#config.module}" is not under the project root ${this.#root} (or a runtime.trustedModuleDirs folder)` };
    const failure = this.#current?.worker.loadFailure;
    if (failure !== undefined && this.#current?.stamp === this.#stamp()) return { healthy: false, reason: failure };
    return this.#warnings.length > 0 ? { healthy: true, warnings: [...this.#warnings] } : { healthy: true };
  }

  /** Active check: the worker loads the class and answers a ping. */
  async check(signal: AbortSignal): Promise<HealthCheckResult> {
    try {
      await this.#worker().ping(signal);
      return this.ready();
    } catch (err) {
      return { healthy: false, reason: err instanceof Error ? err.message : String(err) };
    }
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    if (context.signal.aborted) throw new ProviderError('ABORTED', `${this.#describe}: aborted before it started`, true, { cause: context.signal.reason });
    const missing = missingVars(this.#config, this.#environment.env);
    if (missing.length > 0) throw new ProviderError('PROVIDER_UNAVAILABLE', `${this.#describe}: ${missing.join(', ')} not set`, true);
    const { result, output } = await this.#worker().call(args, context.signal);
    if (output !== '') this.#onOutput(this.#tool, output);
    return result;
  }

  /** A cheap stamp of the code on disk: size and mtime of each file. */
  #stamp(): string {
    return this.#files()
      .map((f) => {
        try {
          const s = statSync(f);
          return `${f}:${s.size}:${s.mtimeMs}`;
        } catch {
          return `${f}:-`;
        }
      })
      .join('|');
  }

  /** The worker of the code on disk now: the current one, or a new one when the code changed or the worker ended. */
  #worker(): PythonWorker {
    const stamp = this.#stamp();
    const current = this.#current;
    if (current !== undefined && current.stamp === stamp) {
      if (current.worker.loadFailure !== undefined) throw new ProviderError('PROVIDER_UNAVAILABLE', current.worker.loadFailure, true);
      if (current.worker.alive) return current.worker;
    }
    current?.worker.retire();
    const python = findPython(this.#command, this.#environment.baseDir, this.#environment.env);
    if (python === undefined) throw new ProviderError('PROVIDER_UNAVAILABLE', `${this.#describe}: the Python interpreter "${this.#command}" was not found`, true);
    const spec = {
      root: this.#root,
      module: this.#config.module,
      allow: this.#environment.trustedModuleDirs ?? [],
      concurrency: this.#config.concurrency,
      ...(this.#config.className !== undefined ? { class_name: this.#config.className } : {}),
    };
    const worker = new PythonWorker({
      python,
      args: [...PYTHON_FLAGS, runnerPath(), 'serve', JSON.stringify(spec)],
      env: this.#childEnv(),
      cwd: this.#root,
      ...(this.#resources !== undefined ? { resources: this.#resources } : {}),
      prlimit: this.#prlimit,
      concurrency: this.#config.concurrency,
      killGraceMs: this.#config.killGraceMs,
      maxLineBytes: this.#config.maxOutputBytes,
      describe: this.#describe,
      redact: this.#redact,
    });
    this.#current = { stamp, worker };
    return worker;
  }

  /** A reload dropped this tool version: its worker ends once its calls finish. */
  retire(): void {
    this.#current?.worker.retire();
    this.#current = undefined;
  }

  async close(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    await current?.worker.close();
  }
}

/**
 * A `python` provider type; `pythonProviderType` is the built-in one.
 * @example new ProviderTypes({ empty: true }).register(createPythonProviderType({ onOutput: (tool, text) => log.info({ tool, text }) }))
 */
export function createPythonProviderType(options: PythonProviderOptions = {}): ProviderType {
  return {
    type: 'python',
    create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
      return new PythonInstance(entry.name, readPythonConfig(entry, tool), tool, entry, environment, options);
    },
  };
}

/** The `python` provider type. */
export const pythonProviderType: ProviderType = createPythonProviderType();
