/**
 * The names a target's name rule changed on export (`convert --to openai`:
 * `notes.append` -> `notes_append`): each is told on stderr, and with
 * `--out` the mapping is written next to the output as `<name>.names.json`
 * (`{ "notes_append": "notes.append", ... }`: safe name -> canonical name,
 * every tool of the file), so results and calls can be mapped back.
 * @module
 */
import type { ExportedFile } from '../dialects/types.js';
import type { CliIO } from './io.js';

/** Tell every changed name on stderr, as a warning. */
export function reportNameChanges(files: readonly ExportedFile[], target: string, io: CliIO): void {
  for (const file of files) for (const line of file.nameNotes ?? []) io.stderr(`toolcap: warning: ${target} names: ${line}\n`);
}

/** Where the mapping of an output file goes: `tools.json` -> `tools.names.json`. */
export const namesPathOf = (path: string): string => `${path.replace(/\.(json|ya?ml)$/i, '')}.names.json`;

/** The mapping files to write besides `files`, as exported files (relative paths, as the files'). */
export function nameFiles(files: readonly ExportedFile[]): ExportedFile[] {
  return files.filter((f) => f.names !== undefined).map((f) => ({ path: namesPathOf(f.path), format: 'json', value: f.names }));
}
