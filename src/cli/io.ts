/**
 * What a command may touch: output streams and the file system root.
 * Injected, so the CLI runs in-process in tests.
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process's own streams. */
export const processIO: CliIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Text of a value in JSON or YAML, ending with a newline. */
export function serialize(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Write a file, creating its folder. */
export function writeOut(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
