/**
 * How file paths are shown: relative to the working folder when inside it,
 * with `/` separators, so diagnostics read the same on every platform.
 * @module
 */
import { relative, sep } from 'node:path';

/** Display form of an absolute path. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel.split(sep).join('/') : path.split(sep).join('/');
}
