/**
 * The SQLite store's disk syncs off the event loop (`synchronous: full`).
 *
 * Both SQLite drivers are synchronous: with `PRAGMA synchronous=FULL` every
 * commit waits for an fsync of the WAL on the server's only thread, so the
 * write-behind record of a read (nobody waits for it) still stopped every
 * other request for the length of a disk sync (about 1.3 ms on the bench
 * machine, more on a busy disk: the next call of a sequential client
 * arrived while the loop was blocked). Here the connection commits with
 * `synchronous=NORMAL` (WAL frames written, not synced) and the store
 * resolves a method that wrote only after an `fdatasync` of the WAL file,
 * run on libuv's thread pool: the same durability for what is acknowledged,
 * without the loop waiting.
 *
 * Why it is as safe as `FULL`: in WAL mode `FULL` differs from `NORMAL` only
 * by that sync of the WAL after each commit. The WAL is append-only until a
 * checkpoint has copied it into the database; a checkpoint syncs the WAL
 * before copying and the database after (NORMAL too), so frames are durable
 * either in the WAL or in the database by the time the WAL is reused. An
 * fsync covers every frame written to the file before it started, so one
 * sync that starts after a commit's frames were written makes that commit
 * durable; several commits share one (group sync). A commit is visible to
 * readers before its sync ends (with FULL, after): a reader may see a record
 * a power cut can still take, but nothing is acknowledged before it is
 * synced, and anything with effects first commits a record of its own that
 * waits for a sync, which covers every frame before it.
 * @module
 */
import { constants, fdatasync, fstatSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Syncs the file at `path` (its data, as fdatasync does); rejects with the system error. */
export type DataSync = (path: string) => Promise<void>;

/** Opens `path` for reading (the sync needs no write access). */
export type OpenForSync = (path: string) => Promise<FileHandle>;

const openReadOnly: OpenForSync = (path) => open(path, constants.O_RDONLY);

/** fdatasync of `path` on the thread pool: open, sync, close. */
export const datasyncFile: DataSync = async (path) => {
  const handle = await openReadOnly(path);
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
};

/**
 * fdatasync through a handle kept open between syncs: one thread-pool job
 * per sync instead of three (open, sync, close), each a wake-up of a pool
 * thread and of the event loop.
 *
 * Why the handle still syncs the file SQLite writes: SQLite removes the WAL
 * only when the last connection to the database closes (it checkpoints it
 * first), and the store's own connection stays open as long as this handle;
 * a checkpoint that restarts or truncates the WAL writes the same file.
 * Should the file at `path` be removed or replaced all the same (another
 * program, a person), the held file has no name left (`nlink` 0, read with
 * one `fstat` before each sync, which does not wait for the disk): it is
 * closed and `path` opened again, so a sync covers the file a recovery
 * would read. (SQLite goes on writing the removed file through its own
 * descriptor until its connection closes; those frames have no name, and a
 * crash loses them whatever is synced.) A sync asked for after {@link close} opens and closes the
 * file as {@link datasyncFile} does.
 * @example
 * const held = new HeldDatasync();
 * const wal = new WalSync(`${file}-wal`, held.sync);
 * … await held.close();
 */
export class HeldDatasync {
  readonly #open: OpenForSync;
  #held: { path: string; handle: FileHandle } | undefined;
  #closed = false;
  /** The sync running on the held handle's descriptor, if any. */
  #syncing: Promise<void> | undefined;

  constructor(open: OpenForSync = openReadOnly) {
    this.#open = open;
  }

  /** fdatasync of `path` (one at a time: {@link WalSync} never runs two at once). */
  readonly sync: DataSync = async (path) => {
    if (this.#closed) return datasyncFile(path);
    let held = this.#held;
    if (held && (held.path !== path || fstatSync(held.handle.fd).nlink === 0)) {
      this.#held = undefined;
      await held.handle.close();
      held = undefined;
    }
    if (!held) {
      held = { path, handle: await this.#open(path) };
      if (this.#closed) {
        // closed while it opened: sync this once, keep nothing
        try {
          return await held.handle.datasync();
        } finally {
          await held.handle.close();
        }
      }
      this.#held = held;
    }
    // on the handle's descriptor through the callback API: FileHandle.datasync() wraps the same thread-pool job in
    // promise and reference-count bookkeeping that cost the event loop more than the job's dispatch (profiles of
    // `toolcap serve`); close() waits for this sync itself, since the handle does not know of it
    const fd = held.handle.fd;
    const running = new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
    this.#syncing = running;
    try {
      await running;
    } finally {
      if (this.#syncing === running) this.#syncing = undefined;
    }
  };

  /** Close the held file (after any sync still running on it); later syncs open the file each time. */
  async close(): Promise<void> {
    this.#closed = true;
    const held = this.#held;
    this.#held = undefined;
    await this.#syncing?.catch(() => undefined);
    await held?.handle.close();
  }
}

/**
 * Group syncs of one file: {@link sync} resolves once a sync that started
 * after the call has finished. A call made while a sync runs waits for the
 * next one (its frames may have been written after that one began), which
 * every call made meanwhile shares.
 * @example
 * const wal = new WalSync(`${file}-wal`);
 * commit(); await wal.sync(); // durable now
 */
export class WalSync {
  readonly #path: string;
  readonly #datasync: DataSync;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(path: string, datasync: DataSync = datasyncFile) {
    this.#path = path;
    this.#datasync = datasync;
  }

  /** Resolves after a sync of the file that began after this call; rejects with its error. */
  sync(): Promise<void> {
    if (!this.#running) return this.#start();
    if (!this.#next) {
      const after = () => {
        this.#next = undefined;
        return this.#start();
      };
      this.#next = this.#running.then(after, after);
    }
    return this.#next;
  }

  #start(): Promise<void> {
    const run: Promise<void> = this.#datasync(this.#path).finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }
}
