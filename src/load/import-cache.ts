/**
 * Parse and import results kept per file by content hash, so a rebuild
 * after a one-file change parses and imports that one file (the registry's
 * reloads, registry/build-memo.ts). A file is a hit when its bytes hash the
 * same as last time and it is read the same way (dialect, limits, root,
 * persona, explicit or walked); a file whose import read other files
 * (`inputSchemaRef`, `$ref`) depends on more than its own bytes and is never
 * kept.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Diagnostic } from '../model/diagnostics.js';

/** One file as last imported. */
interface CachedImport<D> {
  hash: string;
  /** How the file was read (see {@link ImportCache.key}). */
  how: string;
  /** Undefined: the file gave no document (not a manifest, a parse error): its diagnostics still repeat. */
  doc: D | undefined;
  diagnostics: readonly Diagnostic[];
}

/** How often the cache answered, since it was made. */
export interface ImportCacheStats {
  /** Files whose import was reused. */
  hits: number;
  /** Files parsed and imported. */
  misses: number;
}

/** sha256 hex of a text (its UTF-8 bytes). */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * sha256 hex of a file's bytes: the content hash files are cached by, the
 * same one the registry's change detection takes (registry/fingerprint.ts),
 * so a build can be told a file's hash instead of reading it again.
 */
export function bytesHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Per-file parse and import results (`D`: the loader's document), by content hash.
 * @example
 * const cache = new ImportCache();
 * loadLayers(['manifests/'], { cache }); loadLayers(['manifests/'], { cache });
 * cache.stats // { hits: <files>, misses: <files> }
 */
export class ImportCache<D = unknown> {
  readonly #entries = new Map<string, CachedImport<D>>();
  /** Paths looked up during the current build: what `sweep()` keeps. */
  #seen = new Set<string>();
  readonly stats: ImportCacheStats = { hits: 0, misses: 0 };

  /** The reading options that decide what a file imports to, as one string. */
  static key(parts: Record<string, unknown>): string {
    return JSON.stringify(parts);
  }

  /**
   * The cached import of `path` when its text hashes to `hash` and it was read
   * the same way, else undefined (and a miss is counted).
   */
  get(path: string, hash: string, how: string): { doc: D | undefined; diagnostics: readonly Diagnostic[] } | undefined {
    this.#seen.add(path);
    const entry = this.#entries.get(path);
    if (entry && entry.hash === hash && entry.how === how) {
      this.stats.hits++;
      return entry;
    }
    this.stats.misses++;
    return undefined;
  }

  /** Keep the import of `path` (call after a miss). */
  set(path: string, hash: string, how: string, doc: D | undefined, diagnostics: readonly Diagnostic[]): void {
    this.#seen.add(path);
    this.#entries.set(path, { hash, how, doc, diagnostics });
  }

  /**
   * The cached import of `path` if it is held for exactly this hash and way
   * of reading, without counting a miss when not (the caller then reads the
   * file and asks {@link ImportCache.get}).
   */
  peek(path: string, hash: string, how: string): { doc: D | undefined; diagnostics: readonly Diagnostic[] } | undefined {
    const entry = this.#entries.get(path);
    if (!entry || entry.hash !== hash || entry.how !== how) return undefined;
    this.#seen.add(path);
    this.stats.hits++;
    return entry;
  }

  /** Forget `path` (its import read other files, so its own hash does not decide it). */
  delete(path: string): void {
    this.#entries.delete(path);
  }

  /** End of a build: forget files it did not read (removed or renamed), so the cache stays the size of the catalog. */
  sweep(): void {
    for (const path of this.#entries.keys()) if (!this.#seen.has(path)) this.#entries.delete(path);
    this.#seen = new Set();
  }

  /** Files held. */
  get size(): number {
    return this.#entries.size;
  }
}
