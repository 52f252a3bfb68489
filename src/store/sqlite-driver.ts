/**
 * The SQLite driver behind the store and the tools' own databases: one small
 * interface ({@link SqliteDatabase}, the subset of better-sqlite3's API the
 * store uses) and two implementations, `better-sqlite3` (the native addon)
 * and `node-sqlite` (Node's built-in `node:sqlite`, see sqlite-node.ts).
 *
 * Which one: the `driver` option, else `TOOLCAP_SQLITE_DRIVER`, else
 * `node-sqlite` on Node 24 and later (better-sqlite3 12, the last line that
 * runs on Node 20, aborts the process there when V8 finalizes a statement:
 * WiseLibs/better-sqlite3#1515) and `better-sqlite3` before. Neither is
 * loaded until a database is opened with it, so on Node 24 the addon is
 * never loaded, and on Node 20 `node:sqlite` is never asked for.
 * See docs/store.md.
 * @module
 */
import { createRequire } from 'node:module';
import { SQLITE_DRIVERS, type SqliteDatabase, type SqliteDriverName } from './sqlite-driver-types.js';
import { nodeSqliteMissing, openNodeSqlite } from './sqlite-node.js';

export { SQLITE_DRIVERS, type SqliteDatabase, type SqliteDriverName, type SqliteRunResult, type SqliteStatement } from './sqlite-driver-types.js';

/** The environment variable that picks the driver when no option does. */
export const SQLITE_DRIVER_ENV = 'TOOLCAP_SQLITE_DRIVER';

export interface OpenSqliteOptions {
  /** The driver; default {@link defaultSqliteDriver}. */
  driver?: SqliteDriverName | undefined;
  /** Open read-only (the file must exist). */
  readonly?: boolean;
  /** The busy timeout in ms. @default 5000 (better-sqlite3's own default) */
  timeout?: number;
}

/**
 * Why `driver` cannot run on this Node, or undefined when it can. better-sqlite3
 * before 13 cannot run on Node 24 and later: it aborts the process there
 * (WiseLibs/better-sqlite3#1515), so it is refused rather than loaded.
 */
export function sqliteDriverMissing(driver: SqliteDriverName, nodeVersion: string = process.versions.node): string | undefined {
  if (driver === 'node-sqlite') return nodeSqliteMissing();
  let version: string;
  try {
    version = (load('better-sqlite3/package.json') as { version: string }).version;
  } catch (err) {
    return `better-sqlite3 is not installed (${err instanceof Error ? err.message : String(err)})`;
  }
  if (major(nodeVersion) >= 24 && major(version) < 13) {
    return `better-sqlite3 ${version} aborts the process on Node ${nodeVersion} (WiseLibs/better-sqlite3#1515); use node-sqlite there`;
  }
  return undefined;
}

const major = (version: string): number => Number(version.split('.')[0]);

/** The drivers that can run on this Node, in {@link SQLITE_DRIVERS} order (on Node 20: better-sqlite3 only). */
export function availableSqliteDrivers(): SqliteDriverName[] {
  return SQLITE_DRIVERS.filter((d) => sqliteDriverMissing(d) === undefined);
}

/** The driver used when nothing names one: node-sqlite from Node 24 on, better-sqlite3 before. */
export function defaultSqliteDriver(version: string = process.versions.node): SqliteDriverName {
  return major(version) >= 24 ? 'node-sqlite' : 'better-sqlite3';
}

/**
 * The driver to use: `explicit`, else `$TOOLCAP_SQLITE_DRIVER`, else the
 * default. Throws a TypeError for an unknown name.
 * @example resolveSqliteDriver(undefined, { TOOLCAP_SQLITE_DRIVER: 'node-sqlite' }) // 'node-sqlite'
 */
export function resolveSqliteDriver(explicit?: string, env: NodeJS.ProcessEnv = process.env): SqliteDriverName {
  const named = explicit ?? (env[SQLITE_DRIVER_ENV] || undefined);
  if (named === undefined) return defaultSqliteDriver();
  if ((SQLITE_DRIVERS as readonly string[]).includes(named)) return named as SqliteDriverName;
  throw new TypeError(`unknown SQLite driver "${named}"${explicit === undefined ? ` in ${SQLITE_DRIVER_ENV}` : ''}; use ${SQLITE_DRIVERS.join(' or ')}`);
}

/**
 * Open (creating unless read-only) the SQLite file at `path` with the
 * resolved driver. Throws the driver's error (with a `SQLITE_*` code) when
 * the file cannot be opened, or an Error saying why the driver cannot run here.
 */
export function openSqlite(path: string, options: OpenSqliteOptions = {}): SqliteDatabase {
  const driver = resolveSqliteDriver(options.driver);
  const timeout = options.timeout ?? 5000;
  if (driver === 'node-sqlite') return openNodeSqlite(path, { readonly: options.readonly === true, timeout });
  const missing = sqliteDriverMissing(driver);
  if (missing !== undefined) throw new Error(`the better-sqlite3 driver cannot run: ${missing}`);
  return openBetterSqlite(path, options.readonly === true, timeout);
}

type BetterSqlite3 = typeof import('better-sqlite3');

let requireHere: NodeJS.Require | undefined;
/** `require` for better-sqlite3, made on first use (in a CommonJS bundle, where `import.meta.url` is empty, the bundle's own). */
function load(id: string): unknown {
  requireHere ??= typeof require === 'function' ? require : createRequire(import.meta.url);
  return requireHere(id);
}

/** better-sqlite3, loaded on first use only. */
function betterSqlite3(): BetterSqlite3 {
  return load('better-sqlite3') as BetterSqlite3;
}

function openBetterSqlite(path: string, readonly: boolean, timeout: number): SqliteDatabase {
  const Database = betterSqlite3();
  const db = new Database(path, { readonly, fileMustExist: readonly, timeout });
  return {
    driver: 'better-sqlite3',
    defensive: true, // better-sqlite3 opens every connection in defensive mode
    get open() {
      return db.open;
    },
    get inTransaction() {
      return db.inTransaction;
    },
    prepare: (sql) => db.prepare(sql),
    exec: (sql) => {
      db.exec(sql);
    },
    pragma: (source, options) => db.pragma(source, options),
    transaction: <T>(fn: () => T) => db.transaction(fn) as unknown as () => T,
    close: () => {
      db.close();
    },
  };
}
