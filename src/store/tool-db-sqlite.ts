/**
 * A tool's own SQLite database: one file per tool in the store's folder
 * (`tools/<name>-<hash>.db` beside `toolcap.db`). Statements are prepared one
 * at a time (the guard refuses a text with two), parameters bound.
 * The driver is the store's (sqlite-driver.ts). On a connection without
 * SQLite's defensive mode (node:sqlite before Node 24.12) virtual tables are
 * refused, and a database that already holds one is not opened: their shadow
 * tables could be written by a tool's SQL.
 * @module
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createsVirtualTable, sqlRefusal } from '../validate/sql-guard.js';
import { openSqlite, type SqliteDatabase, type SqliteDriverName } from './sqlite-driver.js';
import type { SqlParams, SqlResult, SqlTable, ToolDatabase } from './tool-db-types.js';

/** SQLite binds numbers, strings, bigints, buffers and null; a boolean becomes 1 or 0. */
function bindable(value: unknown, where: string): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'bigint' || Buffer.isBuffer(value)) return value;
  throw new TypeError(`parameter ${where} is ${Array.isArray(value) ? 'an array' : typeof value}; bind numbers, strings, booleans or null (JSON.stringify objects)`);
}

/** Parameters as the drivers take them: an array, or an object whose keys drop the `:`/`@`/`$` prefix. */
function bindParams(params: SqlParams | undefined): unknown[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params.map((v, i) => bindable(v, String(i + 1)));
  const named: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) named[k.replace(/^[:@$]/, '')] = bindable(v, `"${k}"`);
  return [named];
}

class SqliteToolDatabase implements ToolDatabase {
  readonly #db: SqliteDatabase;
  constructor(
    readonly location: string,
    driver: SqliteDriverName | undefined,
  ) {
    mkdirSync(dirname(location), { recursive: true });
    this.#db = openSqlite(location, { driver });
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('busy_timeout = 5000');
    // ATTACH is refused by the guard; a link that could still reach another file is not followed either
    this.#db.pragma('trusted_schema = OFF');
    if (!this.#db.defensive && this.#db.prepare("SELECT 1 FROM sqlite_master WHERE sql LIKE 'create virtual table%' LIMIT 1").get() !== undefined) {
      this.#db.close();
      throw new Error(`${location} holds a virtual table, and this ${this.#db.driver} connection has no defensive mode to keep its shadow tables from a tool's SQL (Node 24.12+ or better-sqlite3 has it)`);
    }
  }

  /** Why `sql` may not run here: the guard's reasons, and virtual tables on a connection that cannot protect them. */
  #refused(sql: string): string | undefined {
    const why = sqlRefusal(sql, 'main');
    if (why !== undefined || this.#db.defensive || !createsVirtualTable(sql)) return why;
    return `virtual tables are refused: this ${this.#db.driver} connection has no SQLite defensive mode (Node 24.12+ or better-sqlite3 has it), so their shadow tables would be writable`;
  }

  async ensureTables(tables: readonly SqlTable[]): Promise<void> {
    const exists = this.#db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE");
    for (const table of tables) {
      if (exists.get(table.name) !== undefined) continue;
      const why = this.#refused(table.definition);
      if (why !== undefined) throw new Error(`the definition of table "${table.name}" is refused: ${why}`);
      try {
        this.#db.prepare(table.definition).run();
      } catch (err) {
        throw new Error(`the definition of table "${table.name}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
  }

  async refusal(sql: string): Promise<string | undefined> {
    return this.#refused(sql);
  }

  async run(sql: string, params: SqlParams | undefined): Promise<SqlResult> {
    const statement = this.#db.prepare(sql);
    const bound = bindParams(params);
    if (statement.reader) return { rows: statement.all(...bound) as Array<Record<string, unknown>>, changes: 0 };
    const info = statement.run(...bound);
    return { rows: [], changes: info.changes };
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

/** Open (creating) the SQLite database of one tool at `file`, with `driver` (default: as the store resolves it). */
export function openSqliteToolDatabase(file: string, driver?: SqliteDriverName): ToolDatabase {
  return new SqliteToolDatabase(file, driver);
}
