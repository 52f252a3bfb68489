/**
 * The SQLite driver interface (sqlite-driver.ts picks and opens a driver;
 * sqlite-node.ts is the node:sqlite one): the subset of better-sqlite3's API
 * the store and the tools' databases use.
 * @module
 */

/** The SQLite drivers toolcap can use. */
export const SQLITE_DRIVERS = ['better-sqlite3', 'node-sqlite'] as const;
/** One of {@link SQLITE_DRIVERS}. */
export type SqliteDriverName = (typeof SQLITE_DRIVERS)[number];

/** What `run` reports: the rows changed and the last inserted rowid. */
export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A prepared statement. Rows are plain objects; integers are numbers, blobs Buffers, with either driver. */
export interface SqliteStatement {
  /** Whether the statement returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean;
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** An open SQLite connection: the part of better-sqlite3's `Database` the store uses. */
export interface SqliteDatabase {
  /** The driver this connection runs on. */
  readonly driver: SqliteDriverName;
  /**
   * SQLite's defensive mode is on (SQLITE_DBCONFIG_DEFENSIVE): ordinary SQL
   * cannot write the schema or a virtual table's shadow tables, the route
   * of memory-corruption bugs in FTS and R-Tree. better-sqlite3 turns it on;
   * node:sqlite can only from Node 24.12 (`enableDefensive`).
   */
  readonly defensive: boolean;
  readonly open: boolean;
  /** Whether a transaction is open (SQLite may have rolled one back on an error). */
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  /** Run one or more statements, no parameters, no rows. */
  exec(sql: string): void;
  /** `PRAGMA <source>`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /**
   * Wrap `fn` in a transaction, exactly as better-sqlite3 does: `BEGIN` (or a
   * savepoint when one is already open), `COMMIT` (`RELEASE`) when `fn`
   * returns, `ROLLBACK` (`ROLLBACK TO` and `RELEASE`) when it throws.
   */
  transaction<T>(fn: () => T): () => T;
  close(): void;
}
