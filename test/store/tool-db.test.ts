/**
 * A tool's own database, SQLite and PostgreSQL, through one contract: tables
 * created from their definitions (idempotently), statements run with their
 * parameters bound, and SQL that would reach past the tool's database refused.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openToolDatabase, toolDatabaseName } from '../../src/store/tool-db.js';
import { toPostgres } from '../../src/store/tool-db-postgres.js';
import type { ToolDatabase, ToolDatabaseLocation } from '../../src/store/tool-db-types.js';
import { availableSqliteDrivers } from '../../src/store/sqlite-driver.js';
import { PG_URL, dropSchema, probePostgres, schemaName } from './pg-helpers.js';

const probe = await probePostgres();
if (!probe.reachable) console.warn(`[toolcap] skipping the PostgreSQL tool database tests: ${probe.reason}`);

const TABLES = [
  { name: 'notes', definition: 'CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, n INTEGER)' },
  { name: 'counters', definition: 'CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)' },
];

interface Harness {
  /** A fresh location (its own folder or schema prefix). */
  location(): ToolDatabaseLocation;
  cleanup(): Promise<void>;
}

function runToolDatabaseContract(name: string, harness: Harness): void {
  describe(`${name}: a tool's own database`, () => {
    const opened: ToolDatabase[] = [];
    const open = async (location: ToolDatabaseLocation, tool = 'notes.keeper') => {
      const db = await openToolDatabase(location, tool);
      opened.push(db);
      return db;
    };
    afterAll(async () => {
      await Promise.all(opened.map((db) => db.close()));
      await harness.cleanup();
    });

    it('creates the declared tables once, and keeps rows across a close and reopen', async () => {
      const location = harness.location();
      const first = await open(location);
      await first.ensureTables(TABLES);
      // a definition without IF NOT EXISTS is not run again for a table that exists
      await first.ensureTables(TABLES);
      await first.run('INSERT INTO notes (id, text, n) VALUES (:id, :text, :n)', { id: 'a', text: 'first', n: 1 });
      await first.close();
      const again = await open(location);
      await again.ensureTables(TABLES);
      expect((await again.run('SELECT id, text, n FROM notes', undefined)).rows).toEqual([{ id: 'a', text: 'first', n: 1 }]);
    });

    it.each([
      ['named (:x)', 'SELECT text FROM notes WHERE id = :id', { id: 'b' }],
      ['named (@x)', 'SELECT text FROM notes WHERE id = @id', { id: 'b' }],
      ['named, prefix in the key', 'SELECT text FROM notes WHERE id = :id', { ':id': 'b' }],
      ['positional (?)', 'SELECT text FROM notes WHERE id = ?', ['b']],
    ])('binds %s parameters', async (_, sql, params) => {
      const db = await open(harness.location());
      await db.ensureTables(TABLES);
      await db.run('INSERT INTO notes (id, text) VALUES (?, ?)', ['b', 'second']);
      expect((await db.run(sql, params)).rows).toEqual([{ text: 'second' }]);
    });

    it('binds a hostile value as a value: nothing is spliced into the statement', async () => {
      const db = await open(harness.location());
      await db.ensureTables(TABLES);
      const hostile = "x'); DROP TABLE notes; --";
      const inserted = await db.run('INSERT INTO notes (id, text) VALUES (:id, :text)', { id: 'h', text: hostile });
      expect(inserted.changes).toBe(1);
      expect((await db.run('SELECT text FROM notes WHERE id = :id', { id: 'h' })).rows).toEqual([{ text: hostile }]);
      expect((await db.run("SELECT text FROM notes WHERE text = ':id'", {})).rows).toEqual([]);
    });

    it('counts the rows a statement changed, and gives RETURNING rows', async () => {
      const db = await open(harness.location());
      await db.ensureTables(TABLES);
      const bump = 'INSERT INTO counters (name, value) VALUES (:name, 1) ON CONFLICT (name) DO UPDATE SET value = counters.value + 1 RETURNING value';
      expect((await db.run(bump, { name: 'c' })).rows).toEqual([{ value: 1 }]);
      expect((await db.run(bump, { name: 'c' })).rows).toEqual([{ value: 2 }]);
      expect((await db.run('UPDATE counters SET value = 0 WHERE name = ?', ['c'])).changes).toBe(1);
    });

    it('runs one statement per call, whatever the guard let through: a second one is an error and never runs', async () => {
      const db = await open(harness.location());
      await db.ensureTables(TABLES);
      for (const params of [undefined, {}, []] as const) {
        await expect(db.run('SELECT 1 AS one; CREATE TABLE sneaky (x INTEGER)', params)).rejects.toThrow();
        await expect(db.run('SELECT x FROM sneaky', undefined)).rejects.toThrow(/sneaky/);
      }
    });

    it('refuses a definition that attaches another database, naming the table', async () => {
      const db = await open(harness.location());
      await expect(db.ensureTables([{ name: 'evil', definition: "ATTACH DATABASE 'other.db' AS other" }])).rejects.toThrow(/table "evil" is refused: ATTACH/);
    });

    it('reports a definition the database rejects, naming the table', async () => {
      const db = await open(harness.location());
      await expect(db.ensureTables([{ name: 'broken', definition: 'CREATE TABLE broken (' }])).rejects.toThrow(/table "broken" failed/);
    });

    it('keeps each tool apart: the same table name in two tools holds different rows', async () => {
      const location = harness.location();
      const a = await open(location, 'tool.a');
      const b = await open(location, 'tool.b');
      await a.ensureTables(TABLES);
      await b.ensureTables(TABLES);
      await a.run('INSERT INTO notes (id, text) VALUES (?, ?)', ['1', 'of a']);
      expect((await b.run('SELECT * FROM notes', undefined)).rows).toEqual([]);
    });
  });
}

describe('tool database names', () => {
  it('are identifiers that keep tools with similar names apart', () => {
    expect(toolDatabaseName('notes.keeper')).toMatch(/^notes_keeper_[0-9a-f]{8}$/);
    expect(toolDatabaseName('notes.keeper')).not.toBe(toolDatabaseName('notes_keeper'));
  });
});

describe('toPostgres: SQLite-style parameters as PostgreSQL numbers them', () => {
  it.each([
    ['SELECT * FROM t WHERE a = ? AND b = ?', [1, 2], 'SELECT * FROM t WHERE a = $1 AND b = $2', [1, 2]],
    ['SELECT * FROM t WHERE a = :a OR b = :a', { a: 1 }, 'SELECT * FROM t WHERE a = $1 OR b = $1', [1]],
    ['SELECT x::int FROM t WHERE s = \':not\' AND a = @a', { a: 'v' }, 'SELECT x::int FROM t WHERE s = \':not\' AND a = $1', ['v']],
    ['SELECT * FROM t WHERE a = $1', ['v'], 'SELECT * FROM t WHERE a = $1', ['v']],
  ])('%s', (sql, params, text, values) => {
    expect(toPostgres(sql, params)).toEqual({ text, values });
  });

  it('refuses a named parameter without a value, and a mix of styles', () => {
    expect(() => toPostgres('SELECT :a', {})).toThrow(/no value for the parameter :a/);
    expect(() => toPostgres('SELECT ?', { a: 1 })).toThrow(/pass an array/);
  });
});

const folders: string[] = [];
// every SQLite driver this Node can run passes the same contract (sqlite-driver.ts)
for (const driver of availableSqliteDrivers()) {
  runToolDatabaseContract(`sqlite (${driver})`, {
    location() {
      const dir = mkdtempSync(join(tmpdir(), 'toolcap-tool-db-'));
      folders.push(dir);
      return { kind: 'sqlite', dir, driver };
    },
    async cleanup() {
      for (const dir of folders) rmSync(dir, { recursive: true, force: true });
    },
  });

  it(`sqlite (${driver}): a blob comes back as a Buffer, a big integer as a number, a boolean as 1`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-tool-db-'));
    folders.push(dir);
    const db = await openToolDatabase({ kind: 'sqlite', dir, driver }, 'blobs');
    try {
      await db.ensureTables([{ name: 'b', definition: 'CREATE TABLE b (k TEXT, v BLOB, n INTEGER, f INTEGER)' }]);
      expect((await db.run('INSERT INTO b VALUES (:k, :v, :n, :f)', { k: 'x', v: Buffer.from([0, 1, 255]), n: 2n ** 40n, f: true })).changes).toBe(1);
      const [row] = (await db.run('SELECT v, n, f FROM b WHERE k = ?', ['x'])).rows;
      expect(Buffer.isBuffer(row?.['v'])).toBe(true);
      expect(row).toEqual({ v: Buffer.from([0, 1, 255]), n: 2 ** 40, f: 1 });
    } finally {
      await db.close();
    }
  });

  it(`sqlite (${driver}): no SQL of a tool writes a virtual table's shadow tables (defensive mode, else no virtual tables)`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-tool-db-'));
    folders.push(dir);
    const db = await openToolDatabase({ kind: 'sqlite', dir, driver }, 'shadow');
    try {
      const made = await db.ensureTables([{ name: 'notes', definition: 'CREATE VIRTUAL TABLE notes USING fts5(body)' }]).then(
        () => true,
        (err: Error) => {
          expect(err.message).toMatch(/virtual tables are refused/);
          return false;
        },
      );
      if (made) {
        // a defensive connection: the guard lets the statement through, SQLite refuses it
        const write = "INSERT INTO notes_data VALUES (1, x'00')";
        expect(await db.refusal(write)).toBeUndefined();
        await expect(db.run(write, undefined)).rejects.toThrow(/may not be modified/);
      } else {
        expect(await db.refusal('CREATE VIRTUAL TABLE t USING rtree(id, a, b)')).toMatch(/virtual tables are refused/);
      }
    } finally {
      await db.close();
    }
  });
}

describe('sqlite: the file', () => {
  it('is <dir>/<name>.db', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-tool-db-'));
    try {
      const db = await openToolDatabase({ kind: 'sqlite', dir }, 'x');
      await db.ensureTables(TABLES);
      await db.close();
      expect(existsSync(join(dir, `${toolDatabaseName('x')}.db`))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const prefixes: string[] = [];
describe.skipIf(!probe.reachable)('postgres (server reachable)', () => {
  runToolDatabaseContract('postgres', {
    location() {
      const schemaPrefix = `${schemaName('tc_tooldb')}_`;
      prefixes.push(schemaPrefix);
      return { kind: 'postgres', url: PG_URL, schemaPrefix };
    },
    async cleanup() {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        const { rows } = await client.query<{ nspname: string }>('SELECT nspname FROM pg_namespace');
        for (const r of rows) if (prefixes.some((p) => r.nspname.startsWith(p))) await dropSchema(r.nspname);
      } finally {
        await client.end();
      }
    },
  });

  it('refuses a query that names another schema of the server', async () => {
    const other = schemaName('tc_other');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA ${other}`);
    await client.end();
    const prefix = `${schemaName('tc_tooldb')}_`;
    const db = await openToolDatabase({ kind: 'postgres', url: PG_URL, schemaPrefix: prefix }, 'x');
    try {
      await db.ensureTables(TABLES);
      expect(await db.refusal(`SELECT * FROM ${other}.secrets`)).toMatch(/another schema/);
      expect(await db.refusal('SELECT * FROM notes')).toBeUndefined();
    } finally {
      await db.close();
      await dropSchema(other);
      await dropSchema(`${prefix}${toolDatabaseName('x')}`);
    }
  });
});
