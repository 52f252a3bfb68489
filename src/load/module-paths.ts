/**
 * Where a module tool may load from: inside its manifest's folder (the
 * provider environment's `baseDir`) or a folder the config trusts
 * (`runtime.trustedModuleDirs`), nowhere else. Symlinks are followed before
 * the check, so a link inside the folder that leads outside is refused, and
 * Node built-ins (`node:os`, `fs`) and non-file URLs are refused outright.
 *
 * It lives in the load layer because two stages apply the one rule: the
 * load-time diagnostic (validate/module-paths.ts, MODULE_PATH_REFUSED) and
 * the module provider before every import (runtime/providers/module.ts).
 * @module
 */
import { existsSync, realpathSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a module specifier names, once resolved. */
export type ModuleEntry =
  /** A file named by a path or `file:` URL. */
  | { kind: 'file'; path: string }
  /** A package name, resolved from the manifest's folder to its entry file. */
  | { kind: 'package'; name: string; path: string };

/**
 * Why a module may not load: a Node built-in, a non-file URL, a package that
 * cannot be resolved (not installed: readiness rather than containment), or
 * a real path outside every allowed folder.
 */
export type ModuleRefusal = 'builtin' | 'url' | 'unresolved' | 'outside';

/** The verdict of {@link moduleAllowed}: the entry to load (its real path), or why not. */
export type ModuleVerdict = { ok: true; entry: ModuleEntry } | { ok: false; refusal: ModuleRefusal; reason: string };

/** A path-like specifier (not a package name)? */
function isPathSpecifier(spec: string): boolean {
  return spec.startsWith('.') || isAbsolute(spec) || /^[A-Za-z]:[\\/]/.test(spec);
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageNameOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
}

/**
 * The real path of `path` with symlinks followed. A file that does not exist
 * (yet) is placed by its folder's real path, so a missing file under a
 * symlinked folder is still judged by where the folder really is.
 */
function realPathOf(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  const parent = dirname(path);
  return parent === path ? path : join(realPathOf(parent), basename(path));
}

/** Is `path` the folder `root` or inside it? */
function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

type Refused = { ok: false; refusal: ModuleRefusal; reason: string };
const refused = (refusal: ModuleRefusal, reason: string): Refused => ({ ok: false, refusal, reason });

/** Resolve `spec` from `baseDir` without judging it, or say why it names no file. */
function entryOf(spec: string, baseDir: string): ModuleEntry | Refused {
  if (spec.startsWith('node:') || isBuiltin(spec)) return refused('builtin', `module "${spec}" is a Node built-in; a module tool runs a file of its own`);
  if (spec.startsWith('file:')) return { kind: 'file', path: fileURLToPath(spec) };
  // Two letters or more before the colon: a scheme, not a Windows drive.
  if (/^[A-Za-z][A-Za-z0-9+.-]+:/.test(spec)) {
    return refused('url', `module "${spec}" is a URL; a module tool loads a file or a package`);
  }
  if (isPathSpecifier(spec)) return { kind: 'file', path: resolve(baseDir, spec) };
  try {
    // Resolved as the manifest's folder would import it, so the package must be installed there.
    return { kind: 'package', name: packageNameOf(spec), path: createRequire(join(baseDir, 'noop.js')).resolve(spec) };
  } catch {
    return refused('unresolved', `package "${spec}" cannot be resolved from ${baseDir}`);
  }
}

/**
 * May a module tool load `spec`? Relative paths resolve from `baseDir` (the
 * manifest's folder), package names are resolved from there too, and the
 * real path of what they name must lie inside `baseDir` or one of `trusted`
 * (absolute folders). A missing file inside an allowed folder is allowed
 * here: whether it exists is readiness, not containment.
 * @example
 * moduleAllowed('./tools/echo.mjs', '/srv/manifests', []) // { ok: true, entry: { kind: 'file', path: '/srv/manifests/tools/echo.mjs' } }
 * moduleAllowed('../../outside/evil.mjs', '/srv/manifests', []) // { ok: false, reason: 'module "../../outside/evil.mjs" resolves to ...' }
 * moduleAllowed('node:os', '/srv/manifests', []) // { ok: false, reason: 'module "node:os" is a Node built-in; ...' }
 */
export function moduleAllowed(spec: string, baseDir: string, trusted: readonly string[] = []): ModuleVerdict {
  const entry = entryOf(spec, baseDir);
  if ('ok' in entry) return entry;
  const real = realPathOf(entry.path);
  const roots = [baseDir, ...trusted].map((dir) => realPathOf(resolve(dir)));
  if (roots.some((root) => isInside(real, root))) return { ok: true, entry: { ...entry, path: real } };
  const where = real === entry.path ? real : `${real} (through a symlink at ${entry.path})`;
  return refused('outside', `module "${spec}" resolves to ${where}, outside the manifest's folder ${baseDir} and the trusted module folders (runtime.trustedModuleDirs)`);
}
