/**
 * Reading a manifest file's bytes within the size limit: the one reading the
 * loader, referenced files and the registry's change detection share.
 *
 * The file is opened once and everything is judged on that open file: a name
 * that is a regular file when looked at and a FIFO or a 2 GB file a moment
 * later (a watched folder changes under us) cannot make the read block or
 * run past the limit. The open does not wait for a FIFO's writer (O_NONBLOCK),
 * and no more than the limit (plus one byte, to see that there is more) is
 * ever read.
 * @module
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** The file's bytes, or why there are none: not a regular file, over `maxBytes` (its size as far as known), or not readable. */
export type FileBytes =
  | { readonly ok: true; readonly bytes: Buffer }
  | { readonly ok: false; readonly problem: 'not-a-file' }
  | { readonly ok: false; readonly problem: 'too-large'; readonly size: number }
  | { readonly ok: false; readonly problem: 'unreadable'; readonly code?: string };

/** Opening for reading without waiting for a FIFO's writer (no such flag on Windows, where there are no FIFOs to open). */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** Bytes read per call once past the size the file said it had. */
const CHUNK = 64 * 1024;

const unreadable = (error: unknown): FileBytes => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === undefined ? { ok: false, problem: 'unreadable' } : { ok: false, problem: 'unreadable', code };
};

/**
 * The bytes of the regular file at `path`, at most `maxBytes` of them.
 * Never throws.
 * @example const read = readFileLimited('tools.yaml', DEFAULT_LIMITS.maxBytes); if (read.ok) parse(read.bytes.toString('utf8'));
 */
export function readFileLimited(path: string, maxBytes: number): FileBytes {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    return unreadable(error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { ok: false, problem: 'not-a-file' };
    if (stat.size > maxBytes) return { ok: false, problem: 'too-large', size: stat.size };
    return collect(stat.size, maxBytes, (buffer, offset, length, position) => readSync(fd, buffer, offset, length, position));
  } catch (error) {
    return unreadable(error);
  } finally {
    closeSync(fd);
  }
}

/** {@link readFileLimited} on the thread pool. */
export async function readFileLimitedAsync(path: string, maxBytes: number): Promise<FileBytes> {
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    return unreadable(error);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, problem: 'not-a-file' };
    if (stat.size > maxBytes) return { ok: false, problem: 'too-large', size: stat.size };
    let buffer: Buffer = Buffer.allocUnsafe(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) [buffer, length] = grow(buffer, length, maxBytes);
      if (length > maxBytes) return { ok: false, problem: 'too-large', size: length };
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) return { ok: true, bytes: buffer.subarray(0, length) };
      length += bytesRead;
    }
  } catch (error) {
    return unreadable(error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

type ReadAt = (buffer: Buffer, offset: number, length: number, position: number) => number;

/**
 * Read from offset 0 to the end. The buffer holds the size the file said it
 * had plus one byte, so the usual file is one read and one read of nothing;
 * a file that grew since is read on in chunks, never past `maxBytes` + 1.
 */
function collect(size: number, maxBytes: number, readAt: ReadAt): FileBytes {
  let buffer: Buffer = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) [buffer, length] = grow(buffer, length, maxBytes);
    if (length > maxBytes) return { ok: false, problem: 'too-large', size: length };
    const bytesRead = readAt(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return { ok: true, bytes: buffer.subarray(0, length) };
    length += bytesRead;
  }
}

/** A full buffer made a chunk larger (at most `maxBytes` + 1), or left as it is when it already holds more than `maxBytes`. */
function grow(buffer: Buffer, length: number, maxBytes: number): [Buffer, number] {
  if (length > maxBytes) return [buffer, length];
  const bigger = Buffer.allocUnsafe(Math.min(buffer.length + CHUNK, maxBytes + 1));
  buffer.copy(bigger, 0, 0, length);
  return [bigger, length];
}
