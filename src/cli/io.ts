/**
 * What a command may touch: output streams and the file system root.
 * Injected, so the CLI runs in-process in tests.
 * @module
 */
import { closeSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Stops a long-running command (serve). Without it, serve stops on SIGINT or SIGTERM. */
  signal?: AbortSignal;
  /** Environment variables read (TOOLCAP_API_KEY). @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The process's own streams. */
export const processIO: CliIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** One line for the log or the terminal (its owner is model/log-line.ts, where the config editor uses it too). */
export { logLine } from '../model/log-line.js';

/** Text of a value in JSON or YAML, ending with a newline. */
export function serialize(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * Write a file, creating its folder: one text, or a text in pieces (a JSON
 * text too large to be one string, json-chunks.ts). Returns the problem
 * instead of throwing (EISDIR, ENOTDIR, ENAMETOOLONG, ...).
 */
export function writeOut(path: string, text: string | Iterable<string>): string | undefined {
  try {
    mkdirSync(dirname(path), { recursive: true });
    if (typeof text === 'string') writeFileSync(path, text);
    else {
      const fd = openSync(path, 'w');
      try {
        for (const piece of text) writeSync(fd, piece);
      } finally {
        closeSync(fd);
      }
    }
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `cannot write ${path}${code ? ` (${code})` : ''}`;
  }
}

/** What is at a path: nothing, a folder, or something else. */
export function pathKind(path: string): 'none' | 'folder' | 'other' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch {
    return 'none';
  }
}
