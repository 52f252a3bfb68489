/**
 * SQLite's result codes by name (https://sqlite.org/rescode.html), so an
 * error from `node:sqlite` (which gives the number) carries the same
 * `SQLITE_*` code as better-sqlite3 gives, and sqlite-errors.ts explains it
 * alike whichever driver runs.
 * @module
 */

const PRIMARY: Readonly<Record<number, string>> = {
  1: 'ERROR', 2: 'INTERNAL', 3: 'PERM', 4: 'ABORT', 5: 'BUSY', 6: 'LOCKED', 7: 'NOMEM', 8: 'READONLY', 9: 'INTERRUPT',
  10: 'IOERR', 11: 'CORRUPT', 12: 'NOTFOUND', 13: 'FULL', 14: 'CANTOPEN', 15: 'PROTOCOL', 16: 'EMPTY', 17: 'SCHEMA',
  18: 'TOOBIG', 19: 'CONSTRAINT', 20: 'MISMATCH', 21: 'MISUSE', 22: 'NOLFS', 23: 'AUTH', 24: 'FORMAT', 25: 'RANGE',
  26: 'NOTADB', 27: 'NOTICE', 28: 'WARNING', 100: 'ROW', 101: 'DONE',
};

/** Extended codes: the primary code plus `n << 8`. */
const EXTENDED: Readonly<Record<number, string>> = {
  261: 'BUSY_RECOVERY', 517: 'BUSY_SNAPSHOT', 773: 'BUSY_TIMEOUT',
  262: 'LOCKED_SHAREDCACHE', 518: 'LOCKED_VTAB',
  264: 'READONLY_RECOVERY', 520: 'READONLY_CANTLOCK', 776: 'READONLY_ROLLBACK', 1032: 'READONLY_DBMOVED', 1288: 'READONLY_CANTINIT', 1544: 'READONLY_DIRECTORY',
  270: 'CANTOPEN_NOTEMPDIR', 526: 'CANTOPEN_ISDIR', 782: 'CANTOPEN_FULLPATH', 1038: 'CANTOPEN_CONVPATH', 1550: 'CANTOPEN_SYMLINK',
  267: 'CORRUPT_VTAB', 523: 'CORRUPT_SEQUENCE', 779: 'CORRUPT_INDEX',
  266: 'IOERR_READ', 522: 'IOERR_SHORT_READ', 778: 'IOERR_WRITE', 1034: 'IOERR_FSYNC', 1290: 'IOERR_DIR_FSYNC', 1546: 'IOERR_TRUNCATE',
  1802: 'IOERR_FSTAT', 2058: 'IOERR_UNLOCK', 2314: 'IOERR_RDLOCK', 2570: 'IOERR_DELETE', 3082: 'IOERR_NOMEM', 3338: 'IOERR_ACCESS',
  3594: 'IOERR_CHECKRESERVEDLOCK', 3850: 'IOERR_LOCK', 4106: 'IOERR_CLOSE', 4618: 'IOERR_SHMOPEN', 4874: 'IOERR_SHMSIZE',
  5130: 'IOERR_SHMLOCK', 5386: 'IOERR_SHMMAP', 5642: 'IOERR_SEEK', 5898: 'IOERR_DELETE_NOENT', 6154: 'IOERR_MMAP',
  275: 'CONSTRAINT_CHECK', 531: 'CONSTRAINT_COMMITHOOK', 787: 'CONSTRAINT_FOREIGNKEY', 1043: 'CONSTRAINT_FUNCTION',
  1299: 'CONSTRAINT_NOTNULL', 1555: 'CONSTRAINT_PRIMARYKEY', 1811: 'CONSTRAINT_TRIGGER', 2067: 'CONSTRAINT_UNIQUE',
  2323: 'CONSTRAINT_VTAB', 2579: 'CONSTRAINT_ROWID', 2835: 'CONSTRAINT_PINNED', 3091: 'CONSTRAINT_DATATYPE',
  279: 'AUTH_USER', 516: 'ABORT_ROLLBACK',
};

/**
 * The `SQLITE_*` name of a result code; an extended code not in the table
 * falls back to its primary name (so `startsWith('SQLITE_IOERR')` still holds).
 * @example sqliteCodeName(2067) // 'SQLITE_CONSTRAINT_UNIQUE'
 */
export function sqliteCodeName(code: number): string {
  const name = EXTENDED[code] ?? PRIMARY[code & 0xff];
  return name === undefined ? `SQLITE_UNKNOWN_${code}` : `SQLITE_${name}`;
}
