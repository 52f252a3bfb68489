/**
 * The `command` provider type: run a tool as a child process, without a
 * shell. The arguments go to stdin as one JSON document; the result is the
 * JSON document the process writes to stdout.
 *
 * Config: `command` (a program on PATH, or a path relative to `baseDir`),
 * `args` (fixed argv), `cwd` (relative to `baseDir`; default `baseDir`),
 * `env` (extra variables; `${VAR}` in values is expanded from the
 * environment, nothing else), `maxOutputBytes` (stdout limit, default
 * 10 MiB), `killGraceMs` (SIGTERM -> SIGKILL delay on abort, default 2000),
 * `healthCheckIntervalSec`.
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
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

export const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
export const DEFAULT_KILL_GRACE_MS = 2000;
const STDERR_TAIL_BYTES = 2048;
const VAR_PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Read and check the config of one `command` entry. */
function readCommandConfig(entry: Provider, tool: Tool): CommandProviderConfig {
  const c = entry.config ?? {};
  const fail = (msg: string): never => {
    throw new ProviderConfigError(`provider "${entry.name}" of tool "${tool.name}": ${msg}`);
  };
  const command = c['command'];
  if (typeof command !== 'string' || command === '') return fail('config.command must be a non-empty string');
  const args = c['args'] ?? [];
  if (!Array.isArray(args) || !args.every((a): a is string => typeof a === 'string')) fail('config.args must be an array of strings');
  const env: Record<string, string> = {};
  const rawEnv = c['env'];
  if (rawEnv !== undefined) {
    if (typeof rawEnv !== 'object' || rawEnv === null || Array.isArray(rawEnv)) fail('config.env must be an object of strings');
    for (const [k, v] of Object.entries(rawEnv as Record<string, unknown>)) {
      if (typeof v !== 'string') fail(`config.env.${k} must be a string`);
      env[k] = v as string;
    }
  }
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

/** Variables a config's env values refer to that the environment does not set. */
function missingVars(config: CommandProviderConfig, env: ProviderEnvironment['env']): string[] {
  const missing = new Set<string>();
  for (const value of Object.values(config.env)) {
    for (const m of value.matchAll(VAR_PATTERN)) if (env[m[1] as string] === undefined) missing.add(m[1] as string);
  }
  return [...missing];
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
  if (isAbsolute(command) || hasPathSeparator(command)) {
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

/** Keeps the last `limit` bytes written to it. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0] as Buffer).length >= this.limit) {
      this.size -= (this.chunks.shift() as Buffer).length;
    }
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit)).toString('utf8');
  }
}

class CommandInstance implements ProviderInstance {
  readonly type = 'command';
  declare readonly healthCheckIntervalSec?: number;
  private readonly running = new Set<ChildProcess>();
  private readonly program: string;
  private readonly cwd: string;

  constructor(
    readonly name: string,
    readonly config: CommandProviderConfig,
    private readonly environment: ProviderEnvironment,
  ) {
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
    const c = config.command;
    this.program = isAbsolute(c) || hasPathSeparator(c) ? resolve(environment.baseDir, c) : c;
    this.cwd = resolve(environment.baseDir, config.cwd ?? '.');
  }

  ready(): HealthCheckResult {
    const missing = missingVars(this.config, this.environment.env);
    if (missing.length > 0) return { healthy: false, reason: `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set` };
    if (resolveCommand(this.config.command, this.environment.baseDir, this.environment.env) === undefined) {
      return {
        healthy: false,
        reason: hasPathSeparator(this.config.command) || isAbsolute(this.config.command)
          ? `command not found or not executable: ${this.program}`
          : `command "${this.config.command}" not found on PATH`,
      };
    }
    return { healthy: true };
  }

  private childEnv(): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.environment.env)) if (v !== undefined) env[k] = v;
    for (const [k, v] of Object.entries(this.config.env)) {
      env[k] = v.replace(VAR_PATTERN, (_, name: string) => this.environment.env[name] ?? '');
    }
    return env;
  }

  call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const { signal } = context;
    const what = `command "${this.config.command}"`;
    if (signal.aborted) return Promise.reject(new ProviderError('ABORTED', `${what}: aborted before it started`, true, { cause: signal.reason }));
    const missing = missingVars(this.config, this.environment.env);
    if (missing.length > 0) {
      return Promise.reject(new ProviderError('PROVIDER_UNAVAILABLE', `${what}: ${missing.join(', ')} not set`, true));
    }
    let input: string;
    try {
      input = JSON.stringify(args);
    } catch (err) {
      return Promise.reject(new ProviderError('PROVIDER_ERROR', `${what}: arguments are not JSON: ${(err as Error).message}`, true, { cause: err }));
    }

    return new Promise<unknown>((resolvePromise, reject) => {
      let settled = false;
      let killTimer: NodeJS.Timeout | undefined;
      let oversized = false;
      const stdout: Buffer[] = [];
      let stdoutSize = 0;
      const stderr = new Tail(STDERR_TAIL_BYTES);

      const child = spawn(this.program, this.config.args, {
        cwd: this.cwd,
        env: this.childEnv(),
        shell: false,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      this.running.add(child);

      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        fn();
      };
      const terminate = () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        killTimer ??= setTimeout(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        }, this.config.killGraceMs);
      };
      const onAbort = () => {
        terminate();
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
          terminate();
          return;
        }
        stdout.push(chunk);
      });
      child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

      child.on('close', (code, exitSignal) => {
        this.running.delete(child);
        if (killTimer) clearTimeout(killTimer);
        if (oversized) {
          settle(() =>
            reject(new ProviderError('BAD_RESPONSE', `${what}: output exceeded ${this.config.maxOutputBytes} bytes; process killed`, false, { detail: { maxOutputBytes: this.config.maxOutputBytes } })),
          );
          return;
        }
        if (code !== 0) {
          const tail = stderr.text();
          const status = code ?? undefined;
          settle(() =>
            reject(
              new ProviderError(
                'PROVIDER_ERROR',
                `${what}: ${code !== null ? `exited with code ${code}` : `killed by ${exitSignal ?? 'a signal'}`}${tail.trim() ? `: ${lastLine(tail)}` : ''}`,
                false,
                { ...(status !== undefined ? { status } : {}), detail: { exitCode: code, signal: exitSignal, stderr: tail } },
              ),
            ),
          );
          return;
        }
        const text = Buffer.concat(stdout).toString('utf8');
        try {
          if (text.trim() === '') throw new SyntaxError('stdout is empty');
          const value: unknown = JSON.parse(text);
          settle(() => resolvePromise(value));
        } catch (err) {
          settle(() =>
            reject(
              new ProviderError('BAD_RESPONSE', `${what}: stdout is not JSON: ${(err as Error).message}`, false, {
                cause: err,
                detail: { stdout: text.slice(0, STDERR_TAIL_BYTES), stderr: stderr.text() },
              }),
            ),
          );
        }
      });

      child.stdin?.end(input);
    });
  }

  async close(): Promise<void> {
    const waits = [...this.running].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          const timer = setTimeout(() => child.kill('SIGKILL'), this.config.killGraceMs);
          child.once('close', () => {
            clearTimeout(timer);
            done();
          });
          child.kill('SIGTERM');
        }),
    );
    await Promise.all(waits);
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
    return new CommandInstance(entry.name, readCommandConfig(entry, tool), environment);
  },
};
