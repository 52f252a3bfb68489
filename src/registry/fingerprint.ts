/**
 * Change detection for the registry: which files a build reads (the loader's
 * folder-walk rules), each with a content hash, and whether any changed since
 * the last build, so a reload without a real change is skipped.
 * @module
 */
import { createHash, webcrypto } from 'node:crypto';
import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { displayPath, isManifestFileName, isWalkedFolder, layerPath, type LayerInput } from '../load/loader.js';
import { readFileLimitedAsync } from '../source/read-file.js';
import { DEFAULT_LIMITS } from '../source/source.js';

/** A file changed less than this before a fingerprint may change again with the same mtime (coarse file systems): hash it again. */
const RACY_MS = 2_000;
/** Files stat'ed and read at once: each await of one file at a time is a round trip through the thread pool and the event loop. */
const AT_ONCE = 8;

interface Stamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  hash: string;
}

/** Every file a build would read, by absolute path, with a content hash; null: a path that could not be read. */
export interface Fingerprint {
  takenAt: number;
  files: Map<string, Stamp | null>;
}

/**
 * Stamp every file a build would read. A file over `maxBytes` (the build's
 * `limits.maxBytes`) is not read: the build refuses it unread (FILE_TOO_LARGE),
 * so its size and times stand for its content; reading it whole to hash it
 * held a 600 MB file in memory twice on every reload.
 */
export async function takeFingerprint(paths: readonly LayerInput[], previous: Fingerprint | undefined, maxBytes: number = DEFAULT_LIMITS.maxBytes): Promise<Fingerprint> {
  const takenAt = Date.now(); // wall time, compared with file mtimes: not the injectable clock
  const files = new Map<string, Stamp | null>();
  // the files found by the walk, stamped AT_ONCE at a time after it; each holds its place in `files` meanwhile
  const found: string[] = [];
  const stampFile = async (path: string, st: Stats) => {
    const old = previous?.files.get(path);
    const trusted = old && previous && old.size === st.size && old.mtimeMs === st.mtimeMs && old.ctimeMs === st.ctimeMs && old.ino === st.ino && st.mtimeMs < previous.takenAt - RACY_MS;
    if (trusted) return void files.set(path, old);
    const read = await readFileLimitedAsync(path, maxBytes);
    if (!read.ok) {
      // over the limit: what the build will say about it changes only with these; else the build reports it unreadable
      const hash = read.problem === 'too-large' ? `too-large:${read.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : undefined;
      return void files.set(path, hash === undefined ? null : { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, hash });
    }
    try {
      // WebCrypto's digest runs on the thread pool: the main thread does not hash megabytes in one go
      const hash = Buffer.from(await webcrypto.subtle.digest('SHA-256', read.bytes)).toString('hex');
      files.set(path, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, hash });
    } catch {
      files.set(path, null);
    }
  };
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return void files.set(dir, null);
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (isWalkedFolder(entry.name)) await walk(full);
      } else if (entry.isFile() && isManifestFileName(entry.name)) {
        files.set(full, null);
        found.push(full);
      }
    }
  };
  for (const input of paths) {
    if (typeof input !== 'string' && input.texts) {
      // an in-memory layer (learned tools): its texts are its content
      const texts = input.texts();
      const hash = createHash('sha256').update(JSON.stringify(texts)).digest('hex');
      files.set(`(${input.path})`, { size: texts.length, mtimeMs: 0, ctimeMs: 0, ino: 0, hash });
      continue;
    }
    const abs = resolve(layerPath(input));
    let st: Stats;
    try {
      st = await stat(abs);
    } catch {
      files.set(abs, null);
      continue;
    }
    if (st.isDirectory()) await walk(abs);
    else await stampFile(abs, st);
  }
  let next = 0;
  const stampFound = async () => {
    while (next < found.length) {
      const path = found[next++]!;
      try {
        await stampFile(path, await stat(path));
      } catch {
        files.set(path, null);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, found.length) }, stampFound));
  return { takenAt, files };
}

export function sameFingerprint(a: Fingerprint, b: Fingerprint): boolean {
  if (a.files.size !== b.files.size) return false;
  for (const [path, stamp] of a.files) {
    if (!b.files.has(path)) return false;
    const other = b.files.get(path);
    if ((stamp?.hash ?? null) !== (other?.hash ?? null)) return false;
  }
  return true;
}

export function changedFiles(a: Fingerprint, b: Fingerprint): string[] {
  const out = new Set<string>();
  for (const [path, stamp] of a.files) if (!b.files.has(path) || (stamp?.hash ?? null) !== (b.files.get(path)?.hash ?? null)) out.add(path);
  for (const path of b.files.keys()) if (!a.files.has(path)) out.add(path);
  return [...out].sort().map(displayPath);
}

/**
 * The content hash of every file a fingerprint read (absolute path -> sha256
 * hex of its bytes), for `LoadOptions.knownHashes`: a build then does not read
 * or hash again a file whose import it already holds under that hash.
 */
export function fileHashes(print: Fingerprint): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, stamp] of print.files) if (stamp && !path.startsWith('(')) out.set(path, stamp.hash);
  return out;
}
