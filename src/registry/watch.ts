/**
 * What tells a watcher that files may have changed, and the one debounce
 * that turns a burst of such signals into one reload. The registry watches
 * its manifests with them; the host watches the config file with them.
 * @module
 */
import type { Stats } from 'node:fs';
import { basename, resolve } from 'node:path';
import { watch as watchPaths, type FSWatcher } from 'chokidar';
import { isManifestFileName, isWalkedFolder, layerPath, type LayerInput } from '../load/loader.js';

/** Quiet time after the last file event before a watcher acts (a registry reloads). @default 200 */
export const DEFAULT_DEBOUNCE_MS = 200;

/**
 * Something that says "the sources may have changed" (a file watcher; later
 * perhaps a database notification). Every signal restarts the debounce.
 */
export interface ChangeSource {
  /** Begin; call `onChange` on every possible change. Resolves once changes after it are seen. */
  start(onChange: () => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * The default change source: chokidar on the paths (files and folders),
 * ignoring hidden entries, skipped folders and files with other endings.
 * A watch error (a folder removed, too many watches) counts as a change:
 * the rebuild then says what is wrong with the files.
 */
export function watchFiles(paths: readonly LayerInput[]): ChangeSource {
  const roots = new Set(paths.filter((p) => typeof p === 'string' || !p.texts).map((p) => resolve(layerPath(p))));
  let watcher: FSWatcher | undefined;
  return {
    async start(onChange) {
      const w = watchPaths([...roots], { ignoreInitial: true, ignored: (path: string, stats?: Stats) => !roots.has(path) && ignoredPath(path, stats) });
      watcher = w;
      w.on('all', () => onChange());
      w.on('error', () => onChange());
      await new Promise<void>((ready) => w.once('ready', () => ready()));
    },
    async close() {
      await watcher?.close();
      watcher = undefined;
    },
  };
}

/** An action run once things have been quiet for a while. */
export interface Debounced {
  /** Something happened: (re)start the quiet period. */
  trigger(): void;
  /** Forget a waiting run. */
  cancel(): void;
  /** A run is waiting for quiet. */
  readonly pending: boolean;
}

/**
 * Run `action` once `ms` milliseconds pass without a `trigger()`: the one
 * debounce of every watcher (the registry's manifests, the host's config file),
 * so a burst of saves is one reload.
 * @example const later = debounce(() => void registry.refresh(), DEFAULT_DEBOUNCE_MS); watcher.on('all', later.trigger);
 */
export function debounce(action: () => void, ms: number): Debounced {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cancel = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return {
    trigger() {
      cancel();
      timer = setTimeout(() => {
        timer = undefined;
        action();
      }, ms);
    },
    cancel,
    get pending() {
      return timer !== undefined;
    },
  };
}

function ignoredPath(path: string, stats?: Stats): boolean {
  // the loader's folder-walk rules, so the watcher sees exactly the files a build reads
  const name = basename(path);
  if (!isWalkedFolder(name)) return true;
  return stats?.isFile() === true && !isManifestFileName(name);
}

