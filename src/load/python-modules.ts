/**
 * Python tools (Pylot's `module` + `class_name`): which tools are Python,
 * where their project root is, and which file a module path names. Two
 * stages apply these rules: the load-time import check
 * (validate/python-imports.ts, MODULE_NOT_IMPORTABLE) and the `python`
 * provider (runtime/providers/python.ts), so they live below both.
 *
 * A module path is a Python import path, absolute from the project root
 * (`src.bridge.tools.git_status`) or package-relative to it, with one
 * leading dot (`.tools.word_count`, the same module as `tools.word_count`).
 * The project root is the folder a `python` entry's `config.root` names
 * (relative to the manifest's folder); else, Pylot's layout, the parent of
 * a manifest folder named `config` (`<project>/config/tool_manifest.json`);
 * else the manifest's folder.
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Provider, Tool } from '../model/schema.js';

/** `implementation.language` values that mean Python. */
const PYTHON_LANGUAGES = new Set(['python', 'python3', 'py']);

/** A Python import path: dotted identifiers, optionally package-relative (leading dots). */
export const PYTHON_MODULE_PATH = /^\.*[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;

/**
 * True when the tool's implementation is Python (`implementation.language`
 * is `python`, as the Pylot dialect sets it), so a tool without providers
 * runs through the `python` provider type rather than `module`.
 * @example isPythonImplementation({ name: 'wc', implementation: { module: 'tools.wc', language: 'python' } }) // true
 */
export function isPythonImplementation(tool: Tool): boolean {
  const language = tool.implementation?.language;
  return language !== undefined && PYTHON_LANGUAGES.has(language.toLowerCase());
}

/** True when a provider entry is of the `python` type (`config.type: python`, or named `python` without a type). */
export function isPythonEntry(entry: Provider): boolean {
  const type = entry.config?.['type'];
  return typeof type === 'string' && type !== '' ? type === 'python' : entry.name === 'python';
}

/** What one Python tool imports: the module path, the class (absent: the first subclass of `Tool`), and the root override. */
export interface PythonTarget {
  module: string;
  className?: string;
  /** `config.root` of a `python` entry, relative to the manifest's folder. */
  root?: string;
  /** Where the manifest names the module: the canonical field and the pointer below it. */
  field: string;
  below?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The Python modules the runtime would import for `tool`: one per `python`
 * provider entry (its `config.module`, else `implementation.module`), or,
 * for a Python tool without providers, `implementation.module`.
 */
export function pythonTargets(tool: Tool): PythonTarget[] {
  const impl = tool.implementation;
  const fromImpl = (): Omit<PythonTarget, 'root'> | undefined => {
    const module = str(impl?.module);
    if (module === undefined) return undefined;
    const className = str(impl?.export);
    return { module, field: 'implementation.module', ...(className !== undefined ? { className } : {}) };
  };
  const providers = tool.providers ?? [];
  if (providers.length === 0) {
    const own = isPythonImplementation(tool) ? fromImpl() : undefined;
    return own ? [own] : [];
  }
  return providers.flatMap((entry, i): PythonTarget[] => {
    if (!isPythonEntry(entry)) return [];
    const c = entry.config ?? {};
    const root = str(c['root']);
    const module = str(c['module']);
    const className = str(c['class_name']) ?? str(c['className']);
    const base = module !== undefined ? { module, field: 'providers', below: `/${i}/config/module`, ...(className !== undefined ? { className } : {}) } : fromImpl();
    if (base === undefined) return [];
    return [{ ...base, ...(className !== undefined ? { className } : {}), ...(root !== undefined ? { root } : {}) }];
  });
}

/**
 * The project root Python modules resolve from.
 * @example pythonProjectRoot('/srv/pylot/config') // '/srv/pylot'
 * @example pythonProjectRoot('/srv/manifests', '../code') // '/srv/code'
 */
export function pythonProjectRoot(manifestDir: string, root?: string): string {
  if (root !== undefined) return resolve(manifestDir, root);
  const dir = resolve(manifestDir);
  return basename(dir) === 'config' ? dirname(dir) : dir;
}

/**
 * The file a module path names under `root` (`a/b.py` or `a/b/__init__.py`),
 * or undefined when it is not there or the path is not one (the runner says
 * why). Static, for health and code identity; the import check asks Python.
 * @example pythonModuleFile('/srv/pylot', '.tools.word_count') // '/srv/pylot/tools/word_count.py'
 */
export function pythonModuleFile(root: string, module: string): string | undefined {
  if (!PYTHON_MODULE_PATH.test(module)) return undefined;
  const dots = module.length - module.replace(/^\.+/, '').length;
  if (dots > 1) return undefined;
  const parts = module.slice(dots).split('.');
  const base = join(root, ...parts);
  for (const candidate of [`${base}.py`, join(base, '__init__.py')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** The `__init__.py` files of the packages above a module's file, inside `root`. */
export function packageInits(root: string, file: string): string[] {
  const out: string[] = [];
  let dir = dirname(file);
  const top = resolve(root);
  while (dir.startsWith(top) && dir !== top) {
    const init = join(dir, '__init__.py');
    if (init !== file && existsSync(init)) out.push(init);
    dir = dirname(dir);
  }
  return out;
}
