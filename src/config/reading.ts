/**
 * What every config section reader is handed: the file's top-level reader,
 * the import context that collects located diagnostics, and the path rules
 * of a config (relative to its folder, and checked to exist), so a section
 * reports a bad path with the same code and wording as every other section.
 * @module
 */
import { Type } from '@sinclair/typebox';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ImportContext } from '../source/context.js';
import { displayPath } from '../source/paths.js';
import { jsonType, type ObjectReader } from '../source/reader.js';
import type { SourceFile } from '../source/source.js';

/** One config document being read: shared by the section readers, in file order. */
export interface ConfigReading {
  /** The top-level mapping of the config. */
  readonly top: ObjectReader;
  readonly context: ImportContext;
  readonly file: SourceFile;
  /** Absolute folder of the config file: relative paths resolve from here. */
  readonly root: string;
  /** Report a finding at a pointer of the config file. */
  readonly report: ImportContext['report'];
  /** An absolute path from a config value, or undefined after reporting why it is not one. */
  pathString(value: unknown, pointer: string, what: string): string | undefined;
  /** Whether `path` is a file or a folder; undefined after reporting that it does not exist. */
  exists(path: string, pointer: string, what: string): 'file' | 'folder' | undefined;
}

/** The reading kit for one config document. */
export function configReading(top: ObjectReader, context: ImportContext, file: SourceFile, root: string): ConfigReading {
  const report = context.report.bind(context);
  return {
    top,
    context,
    file,
    root,
    report,
    pathString(value, pointer, what) {
      if (typeof value !== 'string') {
        report('TYPE_MISMATCH', `The ${what} must be a path (a string), not ${jsonType(value)}.`, pointer, { hint: 'Write the path relative to the config file.' });
        return undefined;
      }
      if (value.trim() === '' || value.includes('\u0000')) {
        report('INVALID_VALUE', `The ${what} "${value}" is not a usable path.`, pointer, { hint: 'Write the path relative to the config file.' });
        return undefined;
      }
      return resolve(root, value);
    },
    exists(path, pointer, what) {
      try {
        return statSync(path).isDirectory() ? 'folder' : 'file';
      } catch {
        report('PATH_NOT_FOUND', `The ${what} ${displayPath(path)} does not exist.`, pointer, { hint: 'Paths in a config are relative to the folder of the config file.' });
        return undefined;
      }
    },
  };
}

/** The schema of a path field: a non-empty string, relative to the config file. */
export const PathString = (description: string) => Type.String({ minLength: 1, description });
