/**
 * Watching the config file: one watcher, one debounce, and one read of the
 * file per burst of saves. What to do with the new config is the caller's
 * (the host reconnects MCP servers when their settings changed).
 * @module
 */
import { resolve } from 'node:path';
import { debounce, DEFAULT_DEBOUNCE_MS, watchFiles, type ChangeSource } from '../registry/watch.js';
import { errorMessage } from '../model/errors.js';
import { loadConfig, type ConfigResult } from './config.js';

/** A running watch of one config file. */
export interface ConfigWatcher {
  /** The absolute path watched. */
  readonly path: string;
  /** Read the file now (skipping the quiet period) and hand the result on; resolves once handled. */
  reload(): Promise<void>;
  /** Stop watching; waits for a change being handled. */
  close(): Promise<void>;
}

export interface ConfigWatchOptions {
  /** Quiet time after the last change before the file is read. @default DEFAULT_DEBOUNCE_MS (200) */
  debounceMs?: number;
  /** What says the file may have changed. @default watchFiles([path]) (chokidar) */
  changes?: ChangeSource;
}

/**
 * Watch a config file; after each burst of changes, read it once and call
 * `onChange` with what reading it gave (a broken config included: the
 * caller decides whether to keep what it has; it reports its own failures). Changes are handled one at a
 * time, in order. Resolves once changes made after it are seen.
 * @example
 * const watcher = await watchConfig('toolcap.config.yaml', ({ config }) => { if (config) apply(config.mcp); });
 * await watcher.close();
 */
export async function watchConfig(path: string, onChange: (result: ConfigResult) => Promise<void> | void, options: ConfigWatchOptions = {}): Promise<ConfigWatcher> {
  const file = resolve(path);
  const changes = options.changes ?? watchFiles([file]);
  let handling: Promise<void> = Promise.resolve();
  let closed = false;
  const reload = () => {
    // one change at a time: a slow reconnect is not overtaken by the next save
    const next = handling.then(async () => {
      if (!closed) await onChange(loadConfig(file));
    });
    handling = next.catch(() => undefined);
    return next;
  };
  // onChange should report its own failures; one that throws anyway is not lost
  const later = debounce(() => void reload().catch((error: unknown) => process.emitWarning(`toolcap config: handling a change failed: ${errorMessage(error)}`)), options.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  await changes.start(() => {
    if (!closed) later.trigger();
  });
  return {
    path: file,
    reload,
    async close() {
      closed = true;
      later.cancel();
      await changes.close();
      await handling;
    },
  };
}
