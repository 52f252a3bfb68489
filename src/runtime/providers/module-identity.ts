/**
 * The identity of a module tool's code: a sha256 over the module file and
 * every local file it imports, transitively, with each package it imports
 * named by `name@version`. An approval is bound to it, and the provider
 * reloads the module when it changes, so "what was approved" and "what
 * runs" are the same code.
 *
 * Imports are found by a simple scanner over string literals (`import … from
 * '…'`, `import '…'`, `export … from '…'`, `import('…')`, `require('…')`),
 * not a parser: a specifier built at run time is not followed, and a
 * commented-out import is followed needlessly (harmless: one more file in
 * the hash). Files are re-read only when their stat changes, and an
 * identity is reused while the stat of every file it read is unchanged, so
 * checking it before every call costs a `stat` per file. (A package
 * installed later, nearer than the one read, goes unnoticed until a file
 * of the graph changes.)
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeIdentityOf } from './identity.js';
import { packageNameOf, type ModuleEntry } from '../../load/module-paths.js';

/** What is known of one file at one stat. */
interface FileFacts {
  stamp: string;
  digest: string;
  specifiers: string[];
}

const IMPORT_PATTERNS: readonly RegExp[] = [
  /\b(?:import|export)\s[^'"`;]*?\bfrom\s*(['"])([^'"\n]+)\1/g,
  /\bimport\s*(['"])([^'"\n]+)\1/g,
  /\bimport\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
  /\brequire\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
];

/** Extensions tried for an extensionless relative import (CommonJS and bundler habits). */
const EXTENSIONS: readonly string[] = ['', '.js', '.mjs', '.cjs', '.json', '/index.js', '/index.mjs', '/index.cjs'];

const factsCache = new Map<string, FileFacts>();
/** The last identity of each entry and export, with the stat of every file it read: valid while none changed. */
const identityCache = new Map<string, { stamps: Array<[path: string, stamp: string | undefined]>; identity: string }>();
const versionCache = new Map<string, { stamp: string; version: string }>();

/**
 * The module specifiers a source text imports, in order of appearance, without duplicates.
 * @example importSpecifiers("import a from './a.mjs'; export * from 'pkg';") // ['./a.mjs', 'pkg']
 */
export function importSpecifiers(source: string): string[] {
  const found = new Set<string>();
  for (const pattern of IMPORT_PATTERNS) for (const m of source.matchAll(pattern)) if (m[2] !== undefined) found.add(m[2]);
  return [...found];
}

function stampOf(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return s.isFile() ? `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : undefined;
  } catch {
    return undefined;
  }
}

/** Digest and imports of a file, re-read only when its stat changed; undefined when it is not a file. */
function factsOf(path: string): FileFacts | undefined {
  const stamp = stampOf(path);
  if (stamp === undefined) return undefined;
  const cached = factsCache.get(path);
  if (cached?.stamp === stamp) return cached;
  const bytes = readFileSync(path);
  const facts = { stamp, digest: createHash('sha256').update(bytes).digest('hex'), specifiers: importSpecifiers(bytes.toString('utf8')) };
  factsCache.set(path, facts);
  return facts;
}

/**
 * The sha256 (hex) of one file's content, or undefined when it is not a file.
 * @example fileDigest('/srv/manifests/echo.mjs') // 'e3b0c442…'
 */
export function fileDigest(path: string): string | undefined {
  return factsOf(path)?.digest;
}

/** The version in the nearest `node_modules/<name>/package.json` above `fromDir`, or `unresolved`. */
function packageVersion(name: string, fromDir: string, read: Set<string>): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', name, 'package.json');
    const stamp = stampOf(file);
    if (stamp !== undefined) {
      read.add(file);
      const cached = versionCache.get(file);
      if (cached?.stamp === stamp) return cached.version;
      let version = 'unknown';
      try {
        const v = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
        if (typeof v === 'string') version = v;
      } catch {
        // An unreadable package.json still names the package; its version is unknown.
      }
      versionCache.set(file, { stamp, version });
      return version;
    }
    if (dirname(dir) === dir) return 'unresolved';
  }
}

/** The file a local specifier imported from `fromDir` names (the first candidate that exists, else the plain path). */
function localFile(spec: string, fromDir: string): string {
  const base = spec.startsWith('file:') ? fileURLToPath(spec) : resolve(fromDir, spec);
  for (const ext of EXTENSIONS) if (stampOf(base + ext) !== undefined) return base + ext;
  return base;
}

function isLocal(spec: string): boolean {
  return spec.startsWith('.') || spec.startsWith('file:') || isAbsolute(spec);
}

/**
 * The lines the identity hashes for a file entry: each reachable local file
 * (path relative to the entry's folder, so moving the folder keeps the
 * identity) with its digest, each package with its version, sorted.
 */
function graphLines(entryPath: string, read: Set<string>): string[] {
  const root = dirname(entryPath);
  const lines = new Set<string>();
  const seen = new Set<string>();
  const queue = [entryPath];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (seen.has(path)) continue;
    seen.add(path);
    read.add(path);
    const facts = factsOf(path);
    const rel = relative(root, path);
    if (facts === undefined) {
      lines.add(`missing ${rel}`);
      continue;
    }
    lines.add(`file ${rel} ${facts.digest}`);
    for (const spec of facts.specifiers) {
      if (isLocal(spec)) queue.push(localFile(spec, dirname(path)));
      else if (!spec.startsWith('node:') && !isBuiltin(spec)) {
        const name = packageNameOf(spec);
        lines.add(`package ${name}@${packageVersion(name, dirname(path), read)}`);
      }
    }
  }
  return [...lines].sort();
}

/**
 * The identity of the code a module entry runs: `module:sha256:<hex>` (see
 * identity.ts) over the export's name and, for a file, the file and its
 * local imports transitively (packages they import by `name@version`); for
 * a package, its `name@version`. Changes whenever any of those files' content does.
 * @example moduleCodeIdentity({ kind: 'file', path: '/srv/manifests/echo.mjs' }, 'default') // 'module:sha256:9f86d0…'
 */
export function moduleCodeIdentity(entry: ModuleEntry, exportName: string): string {
  const key = `${entry.path}\0${exportName}`;
  const cached = identityCache.get(key);
  if (cached?.stamps.every(([path, stamp]) => stampOf(path) === stamp)) return cached.identity;
  const read = new Set<string>();
  const code =
    entry.kind === 'file' ? graphLines(entry.path, read) : [`package ${entry.name}@${packageVersion(entry.name, dirname(entry.path), read)}`];
  const identity = codeIdentityOf('module', { export: exportName, code });
  identityCache.set(key, { stamps: [...read].map((path) => [path, stampOf(path)]), identity });
  return identity;
}
