/**
 * The SQLite store (better-sqlite3 or `node:sqlite`, sqlite-driver.ts): the embedded default, one file
 * (`.toolcap/toolcap.db`) in WAL mode; with `synchronous: full` (the
 * default) a method resolves only after its write is committed and the WAL
 * synced, a sync run off the event loop (wal-sync.ts). Several processes
 * may share the file: writers wait for each other up to the busy timeout.
 *
 * Both drivers are synchronous; the methods are async to match the Store
 * interface, and every database error becomes a rejected
 * {@link StoreUnavailableError} (with the driver's error as `cause`), never a
 * crash. See docs/store.md.
 *
 * This module opens and migrates the file and wraps every query; the
 * queries live per concern in sqlite-approvals.ts, sqlite-audit.ts,
 * sqlite-calls.ts and sqlite-keys.ts, the shared statements in
 * sqlite-statements.ts.
 * @module
 */
import { mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { GroupedStore } from './methods.js';
import { MIGRATIONS_TABLE, pendingMigrations } from './migrations.js';
import { sqliteApprovals } from './sqlite-approvals.js';
import { sqliteAudit } from './sqlite-audit.js';
import { sqliteCalls } from './sqlite-calls.js';
import { openSqlite, type SqliteDatabase, type SqliteDriverName, type SqliteStatement } from './sqlite-driver.js';
import { unavailable } from './sqlite-errors.js';
import { sqliteKeys } from './sqlite-keys.js';
import { sqliteOAuth } from './sqlite-oauth.js';
import type { OAuthTokenStore } from './oauth-tokens.js';
import { sqliteInbox } from './sqlite-inbox.js';
import type { InboxStore, WorkflowInbox } from './workflow-inbox.js';
import { sqliteLearned } from './sqlite-learned.js';
import { datasyncFile, HeldDatasync, WalSync, type DataSync } from './wal-sync.js';
import type { LearnedToolStore } from './learned-tools.js';
import {
  StoreUnavailableError,
  StoreVersionError,
  type KeyStore,
  type Store,
} from './types.js';

export { SQLITE_STATEMENTS } from './sqlite-statements.js';

export interface SqliteStoreOptions {
  /** How long a write waits for another process holding the write lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * `full` (default): every commit is synced to disk, so it survives a power
   * loss too. `normal`: commits survive the process being killed (WAL keeps
   * them) but the last ones may be lost to a power cut or OS crash; writes
   * are an order of magnitude cheaper.
   */
  synchronous?: SqliteSynchronous;
  /** The SQLite driver; default `$TOOLCAP_SQLITE_DRIVER`, else node-sqlite on Node ≥ 24 and better-sqlite3 before (sqlite-driver.ts). */
  driver?: SqliteDriverName;
  /**
   * How a `full` store syncs the WAL after a commit (wal-sync.ts), off the
   * event loop. For tests. @default fdatasync of the `-wal` file on the thread pool, through a handle the store keeps open until it closes
   */
  datasync?: DataSync;
}

export type SqliteSynchronous = 'full' | 'normal';

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * The pragmas every connection runs at open, in order: the single source for
 * the store and for the crash test's child process.
 */
export function sqlitePragmas(busyTimeoutMs: number = DEFAULT_BUSY_TIMEOUT_MS, synchronous: SqliteSynchronous = 'full'): string[] {
  return ['journal_mode = WAL', `synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`, `busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`, 'foreign_keys = ON'];
}

/** Open (creating if needed) the SQLite store at `path`, applying pending migrations. */
export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<Store & KeyStore & OAuthTokenStore & InboxStore & LearnedToolStore> {
  const file = resolve(path);
  let db: SqliteDatabase | undefined;
  let real = file;
  let held: HeldDatasync | undefined;
  try {
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (err) {
      throw unavailable(file, `creating its folder ${dirname(file)}`, err);
    }
    let isDir = false;
    try {
      isDir = statSync(file).isDirectory();
    } catch {
      // absent: created below
    }
    if (isDir) throw new StoreUnavailableError(`SQLite store ${file} is a directory, not a database file; opening it failed`);
    try {
      db = openSqlite(file, { driver: options.driver, timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
      // full: the connection commits as NORMAL and the store syncs the WAL itself, off the event loop (wal-sync.ts)
      for (const pragma of sqlitePragmas(options.busyTimeoutMs, 'normal')) db.pragma(pragma);
      const mode = db.pragma('journal_mode', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') throw new Error(`journal_mode is ${String(mode)}, not wal`);
      // SQLite keeps the WAL next to the file a symbolic link points to: sync that one, not a name beside the link
      real = realpathSync(file);
    } catch (err) {
      throw unavailable(file, 'opening it', err);
    }
    migrate(db, file);
    const full = (options.synchronous ?? 'full') === 'full';
    held = full && !options.datasync ? new HeldDatasync() : undefined;
    const wal = full ? new WalSync(`${real}-wal`, options.datasync ?? walOrDatabase(real, held)) : undefined;
    // the migrations committed unsynced: synced before the store is handed out
    if (wal) await wal.sync().catch((err: unknown) => Promise.reject(unavailable(file, 'syncing it after migration', err)));
    return new SqliteStore(db, file, wal, held);
  } catch (err) {
    try {
      db?.close();
    } catch {
      // already failing
    }
    await held?.close().catch(() => undefined);
    throw err;
  }
}

/** Sync the WAL (through the held handle when there is one), or the database file when there is no WAL (nothing written through it yet). */
function walOrDatabase(file: string, held: HeldDatasync | undefined): DataSync {
  const syncWal = held?.sync ?? datasyncFile;
  return async (wal) => {
    try {
      await syncWal(wal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await datasyncFile(file);
    }
  };
}

/** Apply pending migrations in one IMMEDIATE transaction (the write lock serialises concurrent openers). */
function migrate(db: SqliteDatabase, file: string): void {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    throw unavailable(file, 'starting the migration transaction', err);
  }
  try {
    db.exec(MIGRATIONS_TABLE.sqlite);
    const row = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM toolcap_migrations').get() as { v: number };
    const record = db.prepare('INSERT INTO toolcap_migrations (version, applied_at) VALUES (?, ?)');
    for (const m of pendingMigrations(Number(row.v), file)) {
      for (const sql of m.sqlite) db.exec(sql);
      record.run(m.version, new Date().toISOString());
    }
    db.exec('COMMIT');
  } catch (err) {
    try {
      if (db.inTransaction) db.exec('ROLLBACK');
    } catch {
      // the original error matters
    }
    if (err instanceof StoreVersionError) throw err;
    throw unavailable(file, 'migrating its schema', err);
  }
}

class SqliteStore extends GroupedStore implements Store, KeyStore, OAuthTokenStore, InboxStore {
  readonly kind = 'sqlite' as const;
  readonly workflowInbox: WorkflowInbox;
  readonly location: string;
  readonly sqliteDriver: SqliteDriverName;
  #db: SqliteDatabase;
  #closed = false;
  /** The error of a failed WAL sync: every later method is refused (wal-sync.ts). */
  #syncFailed: unknown;
  #statements = new Map<string, SqliteStatement>();
  /** `synchronous: full`: the WAL sync a method that wrote waits for; undefined for `normal`. */
  readonly #wal: WalSync | undefined;
  /** The WAL's file handle the syncs go through, kept open until {@link close}. */
  readonly #held: HeldDatasync | undefined;
  /** `SELECT total_changes()`: tells a method that wrote from one that only read. */
  readonly #changes: SqliteStatement | undefined;

  constructor(db: SqliteDatabase, file: string, wal?: WalSync, held?: HeldDatasync) {
    super();
    this.#db = db;
    this.#wal = wal;
    this.#held = held;
    this.#changes = wal ? db.prepare('SELECT total_changes() AS n') : undefined;
    this.location = file;
    this.sqliteDriver = db.driver;
    const run = <T>(what: string, fn: () => T): Promise<T> => this.#run(what, fn);
    const stmt = (sql: string): SqliteStatement => this.#stmt(sql);
    this.useGroups({
      approvals: sqliteApprovals(run, stmt),
      audit: sqliteAudit(run, stmt),
      calls: sqliteCalls(run, stmt, (fn) => this.#db.transaction(fn)()),
      keys: sqliteKeys(run, stmt),
      oauth: sqliteOAuth(run, stmt),
      learned: sqliteLearned(run, stmt),
    });
    this.workflowInbox = sqliteInbox(run, stmt, (fn) => this.#db.transaction(fn)());
  }

  #stmt(sql: string): SqliteStatement {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /**
   * Run `fn` against the open database; any error becomes a
   * StoreUnavailableError. With `synchronous: full`, a method that changed
   * rows resolves once the WAL is synced (wal-sync.ts).
   */
  #run<T>(what: string, fn: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError(`SQLite store ${this.location} is closed; ${what} refused`));
    if (this.#syncFailed !== undefined) return Promise.reject(unavailable(this.location, `${what} refused: a disk sync failed earlier, so nothing this connection writes can be acknowledged as durable; reopen the store`, this.#syncFailed));
    try {
      const before = this.#changed();
      const value = fn();
      if (this.#wal === undefined || this.#changed() === before) return Promise.resolve(value);
      return this.#wal.sync().then(
        () => value,
        (err: unknown) => {
          // the commit is visible yet not known durable, and after a failed fsync the kernel may report later ones clean: stop here
          this.#syncFailed ??= err;
          return Promise.reject(unavailable(this.location, `${what} (syncing the WAL to disk after the commit; the write may be visible although it was not acknowledged)`, err));
        },
      );
    } catch (err) {
      return Promise.reject(unavailable(this.location, what, err));
    }
  }

  /** Rows changed through this connection so far (0 without a WAL sync to decide). */
  #changed(): number {
    return this.#changes ? Number((this.#changes.get() as { n: number | bigint }).n) : 0;
  }

















  ping(): Promise<void> {
    return this.#run('ping', () => {
      this.#stmt('SELECT COUNT(*) FROM toolcap_migrations').get();
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#statements.clear();
    // a sync still running finishes on the held handle, which closes after it; one still queued opens the file itself
    const released = this.#held?.close().catch(() => undefined) ?? Promise.resolve();
    try {
      this.#db.close();
      return released;
    } catch (err) {
      return released.then(() => Promise.reject(unavailable(this.location, 'closing it', err)));
    }
  }
}
