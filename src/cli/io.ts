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

/**
 * Line breaks and other control characters (C0 but the tab, DEL, C1, the Unicode line and paragraph separators),
 * and the bidirectional embeddings, overrides and isolates, which make a terminal show text in another order than
 * it is (U+202E turns "gnp.exe" around).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A message for the log, or a line for the terminal, as one line: line breaks and other control characters written
 * escaped (`\n`, `\u001b`).
 * The log is text, a message a line, and messages carry what untrusted parties said (an MCP server's error, a
 * caller's tool name, an upstream's answer): a newline in one wrote lines that read as toolcap's own (a reload, an
 * approval), an ANSI escape rewrote the operator's terminal. What the CLI prints of a manifest (diagnostics, inspect)
 * passes here too: the manifest may come from anyone.
 * @example logLine('nope\n[x] reloaded') // 'nope\\n[x] reloaded'
 */
export function logLine(message: string): string {
  return message.replace(CONTROL, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

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
