/**
 * Starting toolcap's Python runner (`runners/pylot_runner.py`, shipped with
 * the package): where the script is, which interpreter runs it, with which
 * flags and environment. The `python` provider starts it in `serve` mode,
 * the load-time import check in `check` mode.
 * @module
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCommandPath, resolveCommand } from './command-config.js';

/**
 * Interpreter flags: `-E` ignores PYTHON* variables (PYTHONPATH,
 * PYTHONSTARTUP: nothing from the environment decides what is imported),
 * `-B` writes no `__pycache__` into the project, `-u` unbuffered streams,
 * `-X utf8` UTF-8 whatever the locale.
 */
export const PYTHON_FLAGS: readonly string[] = ['-E', '-B', '-u', '-X', 'utf8'];

/** The interpreter used when neither `config.python` nor a project `.venv` names one. */
export const DEFAULT_PYTHON = process.platform === 'win32' ? 'python' : 'python3';

let runner: string | undefined;

/**
 * The runner script: `runners/pylot_runner.py` of the package, found from
 * this file's folder upwards (src/runtime/providers in the repository,
 * dist/runtime/providers when installed).
 */
export function runnerPath(): string {
  if (runner !== undefined) return runner;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'runners', 'pylot_runner.py');
    if (existsSync(candidate)) return (runner = candidate);
    dir = dirname(dir);
  }
  throw new Error('toolcap is installed without runners/pylot_runner.py');
}

/** The interpreter for a project: `configured` (a name on PATH or a path from `baseDir`), else `<root>/.venv`'s, else python3. */
export function pythonCommand(configured: string | undefined, root: string, baseDir: string): string {
  if (configured !== undefined) return isCommandPath(configured) ? resolve(baseDir, configured) : configured;
  for (const venv of [join(root, '.venv', 'bin', 'python'), join(root, '.venv', 'Scripts', 'python.exe')]) if (existsSync(venv)) return venv;
  return DEFAULT_PYTHON;
}

/** The interpreter's file, or undefined when it is not there. */
export function findPython(command: string, baseDir: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  return resolveCommand(command, baseDir, env);
}
