/**
 * Python modules must be importable (Pylot's validation rule 2): at load
 * time, Python itself is asked to import every module a Python tool names
 * and to find its class, and what fails becomes a located diagnostic
 * (MODULE_NOT_IMPORTABLE at the line naming the module, or the class).
 *
 * The asking is done by a {@link PythonImportChecker} the caller hands in
 * (the runtime's, which starts the runner contained, `--check` mode): one
 * Python process per project root checks all its tools, so a catalog of
 * many Python tools costs one interpreter start per project, not per tool.
 * No checker: nothing is asked (a library user reading manifests runs no
 * Python). No Python on the machine: one PYTHON_UNAVAILABLE warning per
 * project root, at its first tool.
 * @module
 */
import { dirname, resolve } from 'node:path';
import { pythonProjectRoot, pythonTargets, type PythonTarget } from '../load/python-modules.js';
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import type { Locate } from './rules.js';

/** One module to check. */
export interface PythonImportItem {
  /** Unique in the batch. */
  key: string;
  module: string;
  className?: string;
}

/** What Python said about one module. */
export type PythonImportOutcome =
  | { ok: true; className: string }
  /** `kind`: absent (not even the top-level package is there), not_found, outside, import, class; `type`: the Python exception's class. */
  | { ok: false; kind: string; message: string; type?: string };

/** The answer for one project root: outcomes by key, or why Python could not be asked. */
export type PythonImportAnswer = { outcomes: ReadonlyMap<string, PythonImportOutcome> } | { unavailable: string };

/**
 * Checks the modules of one project root (`root` on `sys.path`, `trusted`
 * folders after it) in one Python process. Synchronous: catalogs are built
 * synchronously. Must not throw; bounded by its own timeout.
 */
export type PythonImportChecker = (root: string, items: readonly PythonImportItem[], trusted: readonly string[]) => PythonImportAnswer;

/** One Python tool of the catalog, with where its manifest is and how to locate its fields. */
export interface PythonToolUse {
  tool: Tool;
  /** The file that first defined the tool. */
  manifest: string;
  locate: Locate;
}

interface Pending {
  key: string;
  target: PythonTarget;
  use: PythonToolUse;
}

/** Where to report an outcome: a missing class at the class name when the manifest gave one. */
function where(p: Pending, kind: string): ReturnType<Locate> {
  if (kind === 'class' && p.target.className !== undefined && p.target.field === 'implementation.module') return p.use.locate('implementation.export');
  return p.use.locate(p.target.field, p.target.below);
}

const HINTS: Record<string, string> = {
  not_found: 'Check the dotted path from the project root (the folder above config/, or the python entry\'s config.root); package folders need their files, and a leading dot means "from the project root".',
  outside: "A Pylot tool's module lives in the project: not the standard library, not site-packages, not above the project root.",
  import: 'The module raised while being imported: run `python3 -c "import <module>"` from the project root to see why.',
  class: 'Give class_name of a class in the module with a run method, or define a subclass of Tool there.',
  absent: "The project's code is not here (only its manifests): the tool cannot run until it is. Check the project root (the folder above config/, or the python entry's config.root).",
};

/**
 * MODULE_NOT_IMPORTABLE for every Python tool module Python cannot import
 * (or whose class it cannot find); PYTHON_UNAVAILABLE once per project root
 * when Python cannot be asked.
 * @example lintPythonImports([{ tool, manifest: 'proj/config/tool_manifest.json', locate }], checker, [])
 */
export function lintPythonImports(uses: readonly PythonToolUse[], checker: PythonImportChecker, trusted: readonly string[]): Diagnostic[] {
  const byRoot = new Map<string, Pending[]>();
  let n = 0;
  for (const use of uses) {
    for (const target of pythonTargets(use.tool)) {
      const root = pythonProjectRoot(dirname(resolve(use.manifest)), target.root);
      const list = byRoot.get(root) ?? [];
      list.push({ key: String(n++), target, use });
      byRoot.set(root, list);
    }
  }
  const out: Diagnostic[] = [];
  for (const [root, pending] of byRoot) {
    const items = pending.map((p) => ({ key: p.key, module: p.target.module, ...(p.target.className !== undefined ? { className: p.target.className } : {}) }));
    const answer = checker(root, items, trusted);
    if ('unavailable' in answer) {
      const first = pending[0] as Pending;
      out.push(
        diagnostic('PYTHON_UNAVAILABLE', `The Python modules of ${root} (${pending.length} tool${pending.length === 1 ? '' : 's'}) could not be checked: ${answer.unavailable}.`, {
          ...first.use.locate(first.target.field, first.target.below),
          hint: 'Install python3 (or set the python entry\'s config.python), then validate again; until then these tools are unavailable at call time.',
        }),
      );
      continue;
    }
    for (const p of pending) {
      const outcome = answer.outcomes.get(p.key);
      if (outcome === undefined || outcome.ok) continue;
      const type = outcome.type !== undefined && !outcome.message.includes(outcome.type) ? ` (${outcome.type})` : '';
      out.push(
        diagnostic('MODULE_NOT_IMPORTABLE', `Tool "${p.use.tool.name}": ${outcome.message}${type}.`, {
          // a catalog read without its project's code: the tool cannot run here, the manifest is not wrong
          ...(outcome.kind === 'absent' ? { severity: 'warning' as const } : {}),
          ...where(p, outcome.kind),
          hint: HINTS[outcome.kind] ?? (HINTS['import'] as string),
        }),
      );
    }
  }
  return out;
}
