/**
 * The load-time import check of Python tools (validate/python-imports.ts
 * asks; this answers): one runner process in `check` mode per project root
 * imports every module of that root and looks up each class, no instance
 * made. The process gets the environment allow-list a tool gets (nothing
 * the tools declare: importing needs no credentials), and is bounded by a
 * timeout the runner keeps itself (it answers what it has so far) and that
 * toolcap enforces too (SIGKILL).
 * @module
 */
import { spawnSync } from 'node:child_process';
import { errorMessage } from '../../model/errors.js';
import type { PythonImportAnswer, PythonImportChecker, PythonImportItem, PythonImportOutcome } from '../../validate/python-imports.js';
import { envAllowList } from '../containment/child-env.js';
import { findPython, PYTHON_FLAGS, pythonCommand, runnerPath } from './python-runner.js';

/** Default bound on one project's check. @default 15000 */
export const DEFAULT_IMPORT_CHECK_MS = 15_000;

/** Options of {@link createPythonImportChecker}. */
export interface PythonImportCheckOptions {
  /** Where PATH and the base variables come from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** The interpreter (a name on PATH or an absolute path). @default the project's .venv, else python3 */
  python?: string;
  /** Bound on one project root's check, milliseconds. @default DEFAULT_IMPORT_CHECK_MS */
  timeoutMs?: number;
}

interface RunnerResult {
  key: string;
  ok: boolean;
  class_name?: string;
  error?: { kind?: string; message?: string; type?: string };
}

/**
 * A checker for catalogs (`CatalogOptions.pythonImports`).
 * @example buildCatalog(['examples/pylot/config'], { pythonImports: createPythonImportChecker() })
 */
export function createPythonImportChecker(options: PythonImportCheckOptions = {}): PythonImportChecker {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? DEFAULT_IMPORT_CHECK_MS;
  return (root, items, trusted) => checkRoot(root, items, trusted, env, timeoutMs, options.python);
}

function checkRoot(
  root: string,
  items: readonly PythonImportItem[],
  trusted: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
  python: string | undefined,
): PythonImportAnswer {
  const command = pythonCommand(python, root, root);
  const found = findPython(command, root, env);
  if (found === undefined) return { unavailable: `the Python interpreter "${command}" was not found${command.includes('/') ? '' : ' on PATH'}` };
  const request = { root, allow: trusted, tools: items.map((i) => ({ key: i.key, module: i.module, ...(i.className !== undefined ? { class_name: i.className } : {}) })) };
  let run;
  try {
    run = spawnSync(found, [...PYTHON_FLAGS, runnerPath(), 'check', String(timeoutMs / 1000)], {
      input: JSON.stringify(request),
      cwd: root,
      env: envAllowList({ base: env, declared: [] }),
      // the runner answers at its own deadline; this is the backstop
      timeout: timeoutMs + 2_000,
      killSignal: 'SIGKILL',
      maxBuffer: 8 * 1024 * 1024,
      windowsHide: true,
    });
  } catch (error) {
    return { unavailable: `the check could not start: ${errorMessage(error)}` };
  }
  if (run.error !== undefined) return { unavailable: `the check could not run: ${errorMessage(run.error)}` };
  const text = run.stdout.toString('utf8').trim().split('\n').pop() ?? '';
  let parsed: { results?: RunnerResult[]; complete?: boolean };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    const why = run.signal !== null ? `killed by ${run.signal} after ${timeoutMs} ms` : `exited with code ${run.status} without an answer`;
    return { unavailable: `the check ${why}` };
  }
  const outcomes = new Map<string, PythonImportOutcome>();
  for (const r of parsed.results ?? []) {
    if (r.ok) outcomes.set(r.key, { ok: true, className: r.class_name ?? '' });
    else outcomes.set(r.key, { ok: false, kind: r.error?.kind ?? 'import', message: r.error?.message ?? 'the import failed', ...(r.error?.type ? { type: r.error.type } : {}) });
  }
  // the deadline came first: the module under import when it struck is the one that hangs
  const next = items.find((i) => !outcomes.has(i.key));
  if (parsed.complete === false && next !== undefined) {
    outcomes.set(next.key, { ok: false, kind: 'import', message: `importing '${next.module}' did not finish within ${timeoutMs} ms` });
  }
  return { outcomes };
}
