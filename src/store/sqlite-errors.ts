/**
 * SQLite failures in plain words: every driver or file-system error becomes a
 * {@link StoreUnavailableError} naming the file, what was being done, and why.
 * @module
 */
import { errorMessage } from '../model/errors.js';
import { StoreUnavailableError, StoreVersionError } from './types.js';

/** Plain words for SQLite's error codes, for the StoreUnavailableError message. */
function explain(code: string | undefined): string | undefined {
  if (!code) return undefined;
  if (code.startsWith('SQLITE_READONLY')) return 'is read-only (the file or its folder cannot be written)';
  if (code === 'SQLITE_FULL') return 'cannot be written: the disk is full';
  if (code === 'SQLITE_NOTADB') return 'is not a SQLite database (the file holds something else)';
  if (code.startsWith('SQLITE_CORRUPT')) return 'is corrupt';
  if (code.startsWith('SQLITE_CANTOPEN')) return 'cannot be opened (a missing or unwritable folder, or a path that is not a file)';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'is locked by another connection for longer than the busy timeout';
  if (code.startsWith('SQLITE_IOERR')) return 'could not be read or written (an I/O error)';
  if (code === 'SQLITE_PERM' || code === 'EACCES' || code === 'EPERM') return 'cannot be accessed (permission denied)';
  if (code === 'EEXIST' || code === 'ENOTDIR') return 'cannot be created: a file stands where one of its folders should be';
  if (code === 'EROFS') return 'cannot be created: the file system is read-only';
  if (code === 'ENOSPC') return 'cannot be written: the disk is full';
  return undefined;
}

/** The error a failed SQLite operation rejects with (store errors pass through unchanged). */
export function unavailable(path: string, what: string, err: unknown): Error {
  if (err instanceof StoreUnavailableError || err instanceof StoreVersionError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const codeText = typeof code === 'string' ? code : undefined;
  const message = errorMessage(err);
  const plain = explain(codeText);
  const text = plain
    ? `SQLite store ${path} ${plain} (${codeText}: ${message}); ${what} failed`
    : `SQLite store ${path}: ${what} failed: ${message}${codeText ? ` (${codeText})` : ''}`;
  return new StoreUnavailableError(text, { cause: err });
}
