/**
 * The SQLite drivers (src/store/sqlite-driver.ts): every driver this Node can
 * run behaves as better-sqlite3 does where the store can tell — transactions
 * (rollback on throw, nesting with savepoints), the busy timeout between two
 * connections, integers, blobs, parameters, rows, errors and their codes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../helpers/child-bundle.js';
import { SQLITE_DRIVERS, availableSqliteDrivers, defaultSqliteDriver, openSqlite, resolveSqliteDriver, sqliteDriverMissing, type SqliteDatabase, type SqliteDriverName } from '../../src/store/sqlite-driver.js';
import { sqliteCodeName } from '../../src/store/sqlite-codes.js';

const BETTER_SQLITE3 = fileURLToPath(new URL('../../node_modules/better-sqlite3', import.meta.url));

const root = mkdtempSync(join(tmpdir(), 'toolcap-sqlite-driver-'));
const open: SqliteDatabase[] = [];
afterAll(() => {
  for (const db of open) if (db.open) db.close();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
function fresh(driver: SqliteDriverName, options: { timeout?: number } = {}): { db: SqliteDatabase; path: string } {
  n += 1;
  const path = join(root, `db-${n}.db`);
  const db = openSqlite(path, { driver, ...options });
  open.push(db);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, v)');
  return { db, path };
}

const names = (db: SqliteDatabase): unknown[] => db.prepare('SELECT name FROM t ORDER BY id').all().map((r) => (r as { name: unknown }).name);

/** node:sqlite is unflagged with the API the driver needs from Node 22.16 (and in every 24). */
function nodeSqliteExpected(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 23 || (major === 22 && minor >= 16);
}

describe('which SQLite driver', () => {
  it('every driver this Node can run is available: better-sqlite3 before Node 24, node-sqlite where node:sqlite has what it needs', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(availableSqliteDrivers()).toEqual([...(major < 24 ? ['better-sqlite3'] : []), ...(nodeSqliteExpected() ? ['node-sqlite'] : [])]);
    if (!nodeSqliteExpected()) expect(sqliteDriverMissing('node-sqlite')).toMatch(/node:sqlite/);
  });

  it.each([
    ['20.19.0', undefined],
    ['22.12.0', undefined],
    ['24.0.0', /better-sqlite3 12\.\d+\.\d+ aborts the process on Node 24\.0\.0 \(WiseLibs\/better-sqlite3#1515\); use node-sqlite there/],
  ] as const)('better-sqlite3 12 on Node %s: %s', (version, why) => {
    const missing = sqliteDriverMissing('better-sqlite3', version);
    if (why === undefined) expect(missing).toBeUndefined();
    else expect(missing).toMatch(why);
  });

  it.each([
    ['20.19.0', 'better-sqlite3'],
    ['22.12.0', 'better-sqlite3'],
    ['23.11.0', 'better-sqlite3'],
    ['24.0.0', 'node-sqlite'],
    ['25.2.1', 'node-sqlite'],
  ] as const)('on Node %s the default is %s', (version, driver) => {
    expect(defaultSqliteDriver(version)).toBe(driver);
  });

  it.each([
    [undefined, {}, defaultSqliteDriver()],
    [undefined, { TOOLCAP_SQLITE_DRIVER: 'node-sqlite' }, 'node-sqlite'],
    [undefined, { TOOLCAP_SQLITE_DRIVER: 'better-sqlite3' }, 'better-sqlite3'],
    [undefined, { TOOLCAP_SQLITE_DRIVER: '' }, defaultSqliteDriver()],
    ['better-sqlite3', { TOOLCAP_SQLITE_DRIVER: 'node-sqlite' }, 'better-sqlite3'],
  ] as const)('option %s with env %j resolves to %s', (explicit, env, driver) => {
    expect(resolveSqliteDriver(explicit, env)).toBe(driver);
  });

  it('refuses an unknown driver name, saying where it came from and what to use', () => {
    expect(() => resolveSqliteDriver(undefined, { TOOLCAP_SQLITE_DRIVER: 'sqlite3' })).toThrow(/unknown SQLite driver "sqlite3" in TOOLCAP_SQLITE_DRIVER; use better-sqlite3 or node-sqlite/);
  });

  it.each([
    [5, 'SQLITE_BUSY'],
    [517, 'SQLITE_BUSY_SNAPSHOT'],
    [2067, 'SQLITE_CONSTRAINT_UNIQUE'],
    [26, 'SQLITE_NOTADB'],
    [10 | (99 << 8), 'SQLITE_IOERR'],
    [8 | (99 << 8), 'SQLITE_READONLY'],
  ])('result code %i is %s', (code, name) => {
    expect(sqliteCodeName(code)).toBe(name);
  });

  it('knows both drivers by name', () => {
    expect(SQLITE_DRIVERS).toEqual(['better-sqlite3', 'node-sqlite']);
  });
});

describe.each(availableSqliteDrivers())('SQLite driver %s', (driver) => {
  it('commits a transaction when its function returns, and gives its value', () => {
    const { db } = fresh(driver);
    const insert = db.prepare('INSERT INTO t (name) VALUES (?)');
    expect(db.transaction(() => (insert.run('a'), insert.run('b'), 'done'))()).toBe('done');
    expect(db.inTransaction).toBe(false);
    expect(names(db)).toEqual(['a', 'b']);
  });

  it('rolls a transaction back when its function throws, and rethrows the same error', () => {
    const { db } = fresh(driver);
    const insert = db.prepare('INSERT INTO t (name) VALUES (?)');
    const boom = new Error('boom');
    expect(() =>
      db.transaction(() => {
        insert.run('a');
        throw boom;
      })(),
    ).toThrow(boom);
    expect(db.inTransaction).toBe(false);
    expect(names(db)).toEqual([]);
  });

  it('rolls back when a statement inside fails, with the SQLite code', () => {
    const { db } = fresh(driver);
    const insert = db.prepare('INSERT INTO t (name) VALUES (?)');
    insert.run('taken');
    let caught: unknown;
    try {
      db.transaction(() => {
        insert.run('new');
        insert.run('taken');
      })();
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: string }).code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect((caught as Error).message).toMatch(/UNIQUE constraint failed: t\.name/);
    expect(names(db)).toEqual(['taken']);
  });

  it('nests with a savepoint: an inner failure undoes only the inner part', () => {
    const { db } = fresh(driver);
    const insert = db.prepare('INSERT INTO t (name) VALUES (?)');
    db.transaction(() => {
      insert.run('outer');
      expect(() =>
        db.transaction(() => {
          insert.run('inner');
          throw new Error('inner fails');
        })(),
      ).toThrow('inner fails');
      expect(db.inTransaction).toBe(true);
      db.transaction(() => insert.run('inner kept'))();
    })();
    expect(names(db)).toEqual(['outer', 'inner kept']);
  });

  it('an outer failure undoes a committed inner transaction too', () => {
    const { db } = fresh(driver);
    const insert = db.prepare('INSERT INTO t (name) VALUES (?)');
    expect(() =>
      db.transaction(() => {
        db.transaction(() => insert.run('inner'))();
        throw new Error('outer fails');
      })(),
    ).toThrow('outer fails');
    expect(names(db)).toEqual([]);
  });

  it('refuses a transaction function that returns a promise, and rolls it back', () => {
    const { db } = fresh(driver);
    const insert = db.prepare('INSERT INTO t (name) VALUES (?)');
    expect(() => db.transaction(() => (insert.run('a'), Promise.resolve()))()).toThrow(/cannot return a promise/);
    expect(names(db)).toEqual([]);
  });

  it('waits for the busy timeout, then fails with SQLITE_BUSY; writes again once the lock is gone', () => {
    const { path } = fresh(driver);
    const holder = openSqlite(path, { driver });
    const writer = openSqlite(path, { driver, timeout: 30 });
    open.push(holder, writer);
    holder.exec('BEGIN IMMEDIATE');
    let caught: unknown;
    try {
      writer.prepare('INSERT INTO t (name) VALUES (?)').run('blocked');
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    holder.exec('ROLLBACK');
    expect(writer.prepare('INSERT INTO t (name) VALUES (?)').run('after').changes).toBe(1);
    expect(writer.pragma('busy_timeout', { simple: true })).toBe(30);
  });

  it('a write waiting within the busy timeout goes through when the holder (another process) commits', async () => {
    const { db, path } = fresh(driver, { timeout: 10_000 });
    // the holder: node:sqlite where this Node has it, else better-sqlite3; it commits 300 ms after taking the lock
    const script = `const s = process.getBuiltinModule?.('node:sqlite');
      const db = s?.DatabaseSync ? new s.DatabaseSync(${JSON.stringify(path)}) : new (require(${JSON.stringify(BETTER_SQLITE3)}))(${JSON.stringify(path)});
      db.exec('BEGIN IMMEDIATE'); db.exec("INSERT INTO t (name) VALUES ('holder')");
      process.stdout.write('held\\n'); setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`;
    const child = spawn(process.execPath, ['--no-warnings', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    for await (const line of createInterface({ input: child.stdout })) if (line === 'held') break;
    // blocks in SQLite's busy handler until the holder commits
    db.prepare('INSERT INTO t (name) VALUES (?)').run('waiter');
    expect(await exited).toBe(0);
    expect(names(db)).toEqual(['holder', 'waiter']);
  });

  it('binds numbers, strings, bigints, Buffers, null and undefined (as NULL); reads integers as numbers and blobs as Buffers', () => {
    const { db } = fresh(driver);
    const insert = db.prepare('INSERT INTO t (name, v) VALUES (?, ?)');
    insert.run('int', 42);
    insert.run('big', 2n ** 53n + 2n);
    insert.run('real', 1.5);
    insert.run('blob', Buffer.from([1, 2, 3]));
    insert.run('null', null);
    insert.run('undef', undefined);
    const rows = db.prepare('SELECT name, v FROM t ORDER BY id').all() as Array<{ name: string; v: unknown }>;
    expect(rows.map((r) => [r.name, r.v])).toEqual([
      ['int', 42],
      ['big', 2 ** 53 + 2],
      ['real', 1.5],
      ['blob', Buffer.from([1, 2, 3])],
      ['null', null],
      ['undef', null],
    ]);
    expect(Buffer.isBuffer(rows[3]?.v)).toBe(true);
    expect(db.prepare('SELECT v FROM t WHERE name = ?').get('big')).toEqual({ v: 9007199254740994 });
  });

  it('gives plain-object rows, undefined for no row, and changes and lastInsertRowid from run', () => {
    const { db } = fresh(driver);
    const first = db.prepare('INSERT INTO t (name) VALUES (?)').run('a');
    expect(first).toMatchObject({ changes: 1, lastInsertRowid: 1 });
    db.prepare('INSERT INTO t (name) VALUES (?)').run('b');
    expect(db.prepare('UPDATE t SET v = 1').run().changes).toBe(2);
    const row = db.prepare('SELECT id, name FROM t WHERE name = ?').get('a');
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row).toStrictEqual({ id: 1, name: 'a' });
    expect(db.prepare('SELECT id FROM t WHERE name = ?').get('none')).toBeUndefined();
  });

  it.each([
    ['@x', { x: 'a' }],
    [':x', { x: 'a' }],
    ['$x', { x: 'a' }],
  ])('binds named parameters (%s) from bare keys, ignoring keys the statement does not use', (param, values) => {
    const { db } = fresh(driver);
    db.prepare('INSERT INTO t (name) VALUES (?)').run('a');
    expect(db.prepare(`SELECT name FROM t WHERE name = ${param}`).all({ ...values, unused: 1 })).toEqual([{ name: 'a' }]);
  });

  it.each([
    ['a second statement', 'SELECT 1; CREATE TABLE sneaky (x INTEGER)', false],
    ['a second statement after a comment', 'SELECT 1; /* c */ DROP TABLE t', false],
    ['a trailing semicolon and space', 'SELECT 1;  \n', true],
    ['empty statements and comments after it', 'SELECT 1;; -- done\n/* really */ ;', true],
    ['a comment left open at the end', 'SELECT 1; /* to the end', true],
  ])('prepares one statement, refusing more: %s', (_label, sql, accepted) => {
    const { db } = fresh(driver);
    if (accepted) expect(db.prepare(sql).all()).toEqual([{ 1: 1 }]);
    else expect(() => db.prepare(sql)).toThrow(/more than one statement/);
    // nothing after the first statement ever ran
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'sneaky'").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'").get()).toEqual({ n: 1 });
  });

  it('tells a statement that returns rows (SELECT, RETURNING) from one that does not', () => {
    const { db } = fresh(driver);
    expect(db.prepare('SELECT 1').reader).toBe(true);
    expect(db.prepare('INSERT INTO t (name) VALUES (?) RETURNING id').reader).toBe(true);
    expect(db.prepare('INSERT INTO t (name) VALUES (?)').reader).toBe(false);
    expect(db.prepare('INSERT INTO t (name) VALUES (?) RETURNING id').get('r')).toEqual({ id: 1 });
  });

  it('reads pragmas as rows, or simple as one value', () => {
    const { db } = fresh(driver);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('journal_mode')).toEqual([{ journal_mode: 'wal' }]);
  });

  it('opens read-only: reads work, a write fails with SQLITE_READONLY', () => {
    const { db, path } = fresh(driver);
    db.prepare('INSERT INTO t (name) VALUES (?)').run('a');
    const reader = openSqlite(path, { driver, readonly: true });
    open.push(reader);
    expect(names(reader)).toEqual(['a']);
    expect(() => reader.prepare('INSERT INTO t (name) VALUES (?)').run('b')).toThrow(expect.objectContaining({ code: expect.stringMatching(/^SQLITE_READONLY/) }));
  });

  it('says a file is not a database with SQLITE_NOTADB', () => {
    const path = join(root, 'not-a-db.db');
    rmSync(path, { force: true });
    spawnSync(process.execPath, ['-e', `require('node:fs').writeFileSync(${JSON.stringify(path)}, 'x'.repeat(4096))`]);
    let caught: unknown;
    try {
      const db = openSqlite(path, { driver });
      open.push(db);
      db.pragma('journal_mode = WAL');
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: string }).code).toBe('SQLITE_NOTADB');
  });

  it('is the driver it says, and closes', () => {
    const { db } = fresh(driver);
    expect(db.driver).toBe(driver);
    db.close();
    expect(db.open).toBe(false);
  });
});

describe('node:sqlite loading', () => {
  it('prints no ExperimentalWarning for node:sqlite, and lets other warnings through', async () => {
    // bundled and run with node: vite-node would transpile the sources first (seconds on a loaded machine)
    const bundle = await bundleChild(new URL('./sqlite-driver-child.ts', import.meta.url));
    let child;
    try {
      child = spawnSync(process.execPath, [bundle.file], { encoding: 'utf8', timeout: 60_000 });
    } finally {
      bundle.remove();
    }
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout.trim()).toBe(availableSqliteDrivers().join(' '));
    expect(child.stderr).not.toMatch(/SQLite is an experimental feature/);
    expect(child.stderr).toMatch(/ExperimentalWarning: something else/);
  });
});
