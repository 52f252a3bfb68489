/**
 * The `node-sqlite` driver: Node's built-in `node:sqlite` (`DatabaseSync`,
 * `StatementSync`) behind the {@link SqliteDatabase} interface, behaving as
 * better-sqlite3 does where the store can tell: rows are plain objects
 * (not null-prototype), integers numbers (read as BigInt, then converted as
 * better-sqlite3 converts them, so a value past 2^53 is not an error),
 * blobs Buffers, `undefined` binds as NULL, an unused named parameter is
 * ignored, transactions nest with savepoints, and errors carry the
 * `SQLITE_*` code better-sqlite3 gives (sqlite-codes.ts).
 *
 * `node:sqlite` is loaded on first use through `process.getBuiltinModule`,
 * never imported statically (Node 20 has none), and the one
 * ExperimentalWarning it emits on load (Node 22) is not printed.
 * @module
 */
import { sqliteCodeName } from './sqlite-codes.js';
import type { SqliteDatabase, SqliteRunResult, SqliteStatement } from './sqlite-driver-types.js';

/** The part of `node:sqlite`'s StatementSync used here (Node ≥ 22.16). */
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Array<Record<string, unknown>>;
  columns(): unknown[];
  /** The text the statement was compiled from: the given SQL up to the end of its first statement. */
  readonly sourceSQL: string;
  setReadBigInts(on: boolean): void;
  setAllowUnknownNamedParameters(on: boolean): void;
}

/** The part of `node:sqlite`'s DatabaseSync used here. */
interface NodeDatabase {
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  /** Node ≥ 24.12: SQLITE_DBCONFIG_DEFENSIVE on or off. */
  enableDefensive?(on: boolean): void;
}

interface NodeSqlite {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean; timeout?: number; defensive?: boolean }) => NodeDatabase;
  StatementSync: { prototype: object };
}

let loaded: { module: NodeSqlite } | { missing: string } | undefined;

/** `node:sqlite`, loaded once, with its load-time ExperimentalWarning kept from being printed. */
function load(): { module: NodeSqlite } | { missing: string } {
  if (loaded) return loaded;
  const emitWarning = process.emitWarning;
  let module: NodeSqlite | undefined;
  try {
    process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
      const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
      const text = typeof warning === 'string' ? warning : warning.message;
      if (type === 'ExperimentalWarning' && /SQLite/.test(text)) return;
      (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    module = process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
  } catch {
    module = undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  if (!module) return (loaded = { missing: `Node ${process.versions.node} has no node:sqlite (it needs Node 22.16 or later)` });
  const proto = module.StatementSync.prototype as Partial<NodeStatement>;
  let probe: NodeDatabase | undefined;
  try {
    probe = new module.DatabaseSync(':memory:');
  } catch {
    // no in-memory database: reported below
  }
  const hasIsTransaction = typeof probe?.isTransaction === 'boolean' && typeof probe.isOpen === 'boolean';
  probe?.close();
  if (typeof proto.columns !== 'function' || typeof proto.setAllowUnknownNamedParameters !== 'function' || !hasIsTransaction) {
    return (loaded = { missing: `node:sqlite in Node ${process.versions.node} lacks StatementSync#columns or DatabaseSync#isTransaction/isOpen (it needs Node 22.16 or later)` });
  }
  return (loaded = { module });
}

/** Why the node-sqlite driver cannot run on this Node, or undefined when it can. */
export function nodeSqliteMissing(): string | undefined {
  const l = load();
  return 'missing' in l ? l.missing : undefined;
}

/** An error as better-sqlite3 throws it: `code` is the `SQLITE_*` name; the original is the cause. */
export class SqliteDriverError extends Error {
  override readonly name = 'SqliteError';
  constructor(
    message: string,
    readonly code: string,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** Run `fn`, turning a `node:sqlite` error (`ERR_SQLITE_ERROR` with a numeric `errcode`) into a {@link SqliteDriverError}. */
function mapped<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const errcode = (err as { errcode?: unknown } | null)?.errcode;
    if (typeof errcode === 'number' && err instanceof Error) throw new SqliteDriverError(err.message, sqliteCodeName(errcode), { cause: err });
    throw err;
  }
}

/**
 * What may follow the one statement a prepare compiles: white space, comments
 * and empty statements (a block comment cannot run past its first `*\/`; one
 * left open runs to the end, as SQLite reads it).
 */
const TRIVIA = /^(?:\s|;|--[^\n]*(?:\n|$)|\/\*(?:[^*]|\*(?!\/))*(?:\*\/|$))*$/;

/**
 * `db.prepare(sql)`, refusing SQL with more than one statement as
 * better-sqlite3 does: node:sqlite compiles the first statement and drops
 * the rest without a word (Node 22), so a tool's `SELECT 1; DROP …` ran its
 * first statement where the other driver refused it.
 */
function prepareOne(db: NodeDatabase, sql: string): NodeStatement {
  const s = mapped(() => db.prepare(sql));
  const tail = sql.slice(s.sourceSQL.length);
  if (tail !== '' && !TRIVIA.test(tail)) throw new RangeError('The supplied SQL string contains more than one statement');
  return s;
}

/** better-sqlite3 binds `undefined` as NULL; node:sqlite refuses it. */
function bindable(params: unknown[]): unknown[] {
  if (!params.includes(undefined)) return params;
  return params.map((p) => (p === undefined ? null : p));
}

/** A plain-object copy of a row: bigints as numbers, Uint8Arrays as Buffers (as better-sqlite3 gives them). */
function plain(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in row) {
    const v = row[key];
    out[key] = typeof v === 'bigint' ? Number(v) : v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
  }
  return out;
}

function statement(s: NodeStatement): SqliteStatement {
  s.setReadBigInts(true);
  s.setAllowUnknownNamedParameters(true);
  const reader = s.columns().length > 0;
  return {
    reader,
    run: (...params): SqliteRunResult =>
      mapped(() => {
        const r = s.run(...bindable(params));
        return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
      }),
    get: (...params) =>
      mapped(() => {
        const row = s.get(...bindable(params));
        return row === undefined ? undefined : plain(row);
      }),
    all: (...params) => mapped(() => s.all(...bindable(params)).map(plain)),
  };
}

/** Open `path` with `node:sqlite`. */
export function openNodeSqlite(path: string, options: { readonly: boolean; timeout: number }): SqliteDatabase {
  const l = load();
  if ('missing' in l) throw new Error(`the node-sqlite driver cannot run: ${l.missing}`);
  const db = mapped(() => new l.module.DatabaseSync(path, { defensive: true, ...(options.readonly ? { readOnly: true } : {}) }));
  // defensive mode as better-sqlite3 has it, where this Node can turn it on (24.12+); else the connection says it is off
  const defensive = typeof db.enableDefensive === 'function';
  if (defensive) mapped(() => db.enableDefensive!(true));
  // better-sqlite3's `timeout` option is this pragma (node:sqlite's own option is newer than 22.16)
  mapped(() => db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.timeout))}`));
  // prepared once: better-sqlite3's transaction statements (its savepoint name too)
  const tx = new Map<string, NodeStatement>();
  const control = (sql: string): void => {
    let s = tx.get(sql);
    if (!s) tx.set(sql, (s = mapped(() => db.prepare(sql))));
    mapped(() => s.run());
  };
  const SAVEPOINT = '`\t_bs3.\t`';
  return {
    driver: 'node-sqlite',
    defensive,
    get open() {
      return db.isOpen;
    },
    get inTransaction() {
      return db.isOpen && db.isTransaction;
    },
    prepare: (sql) => statement(prepareOne(db, sql)),
    exec: (sql) => mapped(() => db.exec(sql)),
    pragma(source, pragmaOptions) {
      const rows = mapped(() => db.prepare(`PRAGMA ${source}`).all()).map(plain);
      if (pragmaOptions?.simple !== true) return rows;
      const first = rows[0];
      return first === undefined ? undefined : Object.values(first)[0];
    },
    transaction<T>(fn: () => T): () => T {
      return () => {
        const nested = db.isTransaction;
        control(nested ? `SAVEPOINT ${SAVEPOINT}` : 'BEGIN');
        try {
          const result = fn();
          if (result !== null && typeof (result as { then?: unknown } | undefined)?.then === 'function') throw new TypeError('Transaction function cannot return a promise');
          control(nested ? `RELEASE ${SAVEPOINT}` : 'COMMIT');
          return result;
        } catch (err) {
          if (db.isTransaction) {
            control(nested ? `ROLLBACK TO ${SAVEPOINT}` : 'ROLLBACK');
            if (nested) control(`RELEASE ${SAVEPOINT}`);
          }
          throw err;
        }
      };
    },
    close: () => {
      tx.clear();
      db.close();
    },
  };
}
