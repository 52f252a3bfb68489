/**
 * The `command` provider type: run a tool as a child process, without a
 * shell. The arguments go to stdin as one JSON document; the result is the
 * JSON document the process writes to stdout.
 *
 * Config: `command` (a program on PATH, or a path relative to `baseDir`),
 * `args` (fixed argv), `cwd` (relative to `baseDir`; default `baseDir`),
 * `env` (extra variables; `${VAR}` in values is expanded from the
 * environment, nothing else), `maxOutputBytes` (stdout limit, default
 * 10 MiB), `killGraceMs` (SIGTERM -> SIGKILL delay, default 2000),
 * `healthCheckIntervalSec`.
 *
 * Containment (see docs/security.md): the child leads its own process
 * group, and the whole group is ended on timeout, on abort and after every
 * call, so nothing a tool starts outlives its call. Its environment is a
 * small base plus the variables the manifest declares (`declaredEnvNames`)
 * and `config.env`, never the server's whole environment. The tool's
 * `execution.resources` limits run through `prlimit` where there is one;
 * where not, `ready()` carries a warning naming the unenforced limits.
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Provider, Tool } from '../../model/schema.js';
import { containedSpawn, killGroup } from '../containment/process.js';
import { createRedactor } from '../containment/redact.js';
import { findPrlimit, readResourceLimits, RESOURCE_LIMITS, withResourceLimits } from '../containment/resource-limits.js';
import { childEnvOf, isCommandPath, missingVars, readCommandConfig, resolveCommand, VAR_PATTERN, type CommandProviderConfig } from './command-config.js';
import { declaredEnvNames } from './declared-env.js';
import { Tail } from './output-tail.js';
import { codeIdentityOf, fileSha256 } from './identity.js';
import {
  ProviderError,
  type HealthCheckResult,
  type ProviderCallContext,
  type ProviderEnvironment,
  type ProviderInstance,
  type ProviderType,
} from './types.js';

export { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT_BYTES, resolveCommand, type CommandProviderConfig } from './command-config.js';

const STDERR_TAIL_BYTES = 2048;

class CommandInstance implements ProviderInstance {
  readonly type = 'command';
  /** All of them, through prlimit; without prlimit, ready() warns about each (the limits stay declared). */
  readonly enforcedResourceLimits = RESOURCE_LIMITS;
  declare readonly healthCheckIntervalSec?: number;
  /** Children of calls under way, and the group endings not yet finished. */
  private readonly running = new Map<ChildProcess, () => Promise<boolean>>();
  private readonly ending = new Set<Promise<boolean>>();
  private readonly program: string;
  private readonly cwd: string;
  private readonly declared: string[];
  private readonly resources: Readonly<Record<string, unknown>> | undefined;
  private readonly prlimit: string | null;
  /** True when the program starts through `prlimit`. */
  private readonly limited: boolean;
  private readonly warnings: string[];
  /** The child's declared variables and config env values as secrets: its stderr is redacted before its last line is cut. */
  private readonly redact: (text: string) => string;

  constructor(
    readonly name: string,
    readonly config: CommandProviderConfig,
    tool: Tool,
    entry: Provider,
    private readonly environment: ProviderEnvironment,
  ) {
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
    this.program = isCommandPath(config.command) ? resolve(environment.baseDir, config.command) : config.command;
    this.cwd = resolve(environment.baseDir, config.cwd ?? '.');
    this.declared = declaredEnvNames(tool, entry);
    this.resources = tool.execution?.resources;
    this.prlimit = findPrlimit() ?? null;
    const { limits, problems } = readResourceLimits(this.resources);
    const { command, unenforced } = withResourceLimits(this.program, [], limits, this.prlimit);
    this.limited = command !== this.program;
    this.warnings = [...problems, ...unenforced.map((l) => `execution.resources ${l} is not enforced here (no prlimit)`)];
    // what the child sees is what it can print; redacted before the cut, or a secret on the cut would keep its start
    // (a caller who pads its input to put it there reads all but its last characters in the error)
    const env = this.childEnv();
    this.redact = createRedactor({ secrets: this.declared.map((n) => env[n]).concat(Object.keys(config.env).map((k) => env[k])) }).redactText;
  }

  ready(): HealthCheckResult {
    const missing = missingVars(this.config, this.environment.env);
    if (missing.length > 0) return { healthy: false, reason: `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set` };
    if (resolveCommand(this.config.command, this.environment.baseDir, this.environment.env) === undefined) {
      return {
        healthy: false,
        reason: isCommandPath(this.config.command) ? `command not found or not executable: ${this.program}` : `command "${this.config.command}" not found on PATH`,
      };
    }
    return this.warnings.length > 0 ? { healthy: true, warnings: [...this.warnings] } : { healthy: true };
  }

  /**
   * The resolved executable (its real path and sha256), the args, and the
   * sha256 of every arg naming a file from `cwd` (the script in
   * `node tool.mjs`), so an edited script voids pending approvals too.
   */
  async codeIdentity(): Promise<string> {
    const found = resolveCommand(this.config.command, this.environment.baseDir, this.environment.env);
    const executable = found === undefined ? null : await realpath(found).catch(() => found);
    const argFiles: Record<string, string> = {};
    for (const arg of this.config.args) {
      const hash = arg === '' ? undefined : await fileSha256(resolve(this.cwd, arg));
      if (hash !== undefined) argFiles[arg] = hash;
    }
    return codeIdentityOf('command', {
      command: this.config.command,
      executable,
      sha256: executable === null ? null : ((await fileSha256(executable)) ?? null),
      args: this.config.args,
      argFiles,
      cwd: this.cwd,
    });
  }

  /** Base variables, the declared ones, then `config.env` with `${VAR}` expanded. */
  private childEnv(): Record<string, string> {
    return childEnvOf(this.environment.env, this.declared, this.config.env);
  }

  /** End a child's group once; the call (and `close()`) wait on the same ending. */
  private ender(child: ChildProcess): () => Promise<boolean> {
    let ending: Promise<boolean> | undefined;
    return () => {
      if (ending) return ending;
      const started = killGroup(child, { graceMs: this.config.killGraceMs });
      this.ending.add(started);
      ending = started.finally(() => this.ending.delete(started));
      return ending;
    };
  }

  call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const { signal } = context;
    const what = `command "${this.config.command}"`;
    if (signal.aborted) return Promise.reject(new ProviderError('ABORTED', `${what}: aborted before it started`, true, { cause: signal.reason }));
    const missing = missingVars(this.config, this.environment.env);
    if (missing.length > 0) {
      return Promise.reject(new ProviderError('PROVIDER_UNAVAILABLE', `${what}: ${missing.join(', ')} not set`, true));
    }
    // under prlimit a missing program is prlimit's exit status, not a spawn error: look first
    if (this.limited && resolveCommand(this.config.command, this.environment.baseDir, this.environment.env) === undefined) {
      return Promise.reject(new ProviderError('PROVIDER_UNAVAILABLE', `${what}: cannot start: ENOENT (not found or not executable)`, true, { detail: { code: 'ENOENT' } }));
    }
    let input: string;
    try {
      input = JSON.stringify(args);
    } catch (err) {
      return Promise.reject(new ProviderError('PROVIDER_ERROR', `${what}: arguments are not JSON: ${(err as Error).message}`, true, { cause: err }));
    }

    return new Promise<unknown>((resolvePromise, reject) => {
      let settled = false;
      let oversized = false;
      const stdout: Buffer[] = [];
      let stdoutSize = 0;
      const stderr = new Tail(STDERR_TAIL_BYTES);

      const { child } = containedSpawn(this.program, this.config.args, { env: this.childEnv(), cwd: this.cwd, prlimit: this.prlimit, ...(this.resources ? { resources: this.resources } : {}) });
      const end = this.ender(child);
      this.running.set(child, end);

      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = () => {
        void end();
        settle(() => reject(new ProviderError('ABORTED', `${what}: aborted`, false, { cause: signal.reason })));
      };
      signal.addEventListener('abort', onAbort, { once: true });

      child.on('error', (err: NodeJS.ErrnoException) => {
        if (child.pid === undefined) {
          this.running.delete(child);
          settle(() =>
            reject(new ProviderError('PROVIDER_UNAVAILABLE', `${what}: cannot start: ${err.code ?? err.message}`, true, { cause: err, detail: { code: err.code } })),
          );
        }
      });
      // The process may exit without reading stdin (EPIPE); its exit status says what happened.
      child.stdin?.on('error', () => {});
      child.stdout?.on('data', (chunk: Buffer) => {
        if (oversized) return;
        stdoutSize += chunk.length;
        if (stdoutSize > this.config.maxOutputBytes) {
          oversized = true;
          stdout.length = 0;
          void end();
          return;
        }
        stdout.push(chunk);
      });
      child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
      // The leader is done: end what it left behind, which also closes the pipes it holds open.
      child.on('exit', () => void end());

      child.on('close', (code, exitSignal) => {
        void end().then(() => {
          this.running.delete(child);
          if (oversized) {
            const max = this.config.maxOutputBytes;
            settle(() => reject(new ProviderError('RESPONSE_TOO_LARGE', `${what}: output exceeded ${max} bytes; process killed`, false, { detail: { maxOutputBytes: max } })));
          } else if (code !== 0) {
            const tail = this.redact(stderr.text());
            const ended = code !== null ? `exited with code ${code}` : `killed by ${exitSignal ?? 'a signal'}`;
            settle(() =>
              reject(
                new ProviderError('PROVIDER_ERROR', `${what}: ${ended}${tail.trim() ? `: ${lastLine(tail)}` : ''}`, false, {
                  ...(code !== null ? { status: code } : {}),
                  detail: { exitCode: code, signal: exitSignal, stderr: tail },
                }),
              ),
            );
          } else settle(() => this.parse(what, Buffer.concat(stdout).toString('utf8'), stderr, resolvePromise, reject));
        });
      });

      child.stdin?.end(input);
    });
  }

  private parse(what: string, text: string, stderr: Tail, resolvePromise: (v: unknown) => void, reject: (e: unknown) => void): void {
    try {
      if (text.trim() === '') throw new SyntaxError('stdout is empty');
      resolvePromise(JSON.parse(text) as unknown);
    } catch (err) {
      reject(
        new ProviderError('BAD_RESPONSE', `${what}: stdout is not JSON: ${(err as Error).message}`, false, {
          cause: err,
          detail: { stdout: text.slice(0, STDERR_TAIL_BYTES), stderr: stderr.text() },
        }),
      );
    }
  }

  /** End every running call's process group and wait until they are gone. */
  async close(): Promise<void> {
    for (const end of this.running.values()) void end();
    await Promise.all([...this.ending]);
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split(/\r?\n/);
  const last = lines[lines.length - 1] ?? '';
  return last.length > 300 ? `${last.slice(0, 300)}...` : last;
}

/** The `command` provider type. */
export const commandProviderType: ProviderType = {
  type: 'command',
  create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
    return new CommandInstance(entry.name, readCommandConfig(entry, tool), tool, entry, environment);
  },
};
