/**
 * A tool's own database: where a tool that declares `storage.sqlTables`
 * keeps its state (Shinkai's `sqlTables`/`sqlQueries`). One SQLite file per
 * tool beside an SQLite store, one schema per tool in a PostgreSQL store.
 * The runtime creates the declared tables and hands the tool's provider a
 * {@link ToolSql} handle that runs the declared queries by name.
 * @module
 */
import type { Static } from '@sinclair/typebox';
import type { SqlQuerySchema, SqlTableSchema } from '../model/schema.js';
import type { SqliteDriverName } from './sqlite-driver.js';

/** A declared table: its name and the statement that creates it. */
export type SqlTable = Static<typeof SqlTableSchema>;
/** A declared query: its name and its statement. */
export type SqlQuery = Static<typeof SqlQuerySchema>;

/** Parameters of a statement: positional (`?`, `$1`) or named (`:name`, `@name`, `$name`). Always bound, never spliced into the text. */
export type SqlParams = readonly unknown[] | Readonly<Record<string, unknown>>;

/** What a statement gave: its rows (empty for a statement returning none) and the rows it changed. */
export interface SqlResult {
  rows: Array<Record<string, unknown>>;
  changes: number;
}

/**
 * What a tool's code gets as `context.sql`.
 * @example
 * const { rows } = await context.sql.query('get_counter', { name: 'visits' });
 */
export interface ToolSql {
  /** Run the declared query `name` (`storage.sqlQueries`) with `params` bound. */
  query(name: string, params?: SqlParams): Promise<SqlResult>;
  /** Run a statement of the tool's own (one, checked like a query); only when the config allows ad hoc SQL (`tools.<name>.sql.allowAdHoc`). */
  execute(sql: string, params?: SqlParams): Promise<SqlResult>;
}

/** One tool's database, open. */
export interface ToolDatabase {
  /** Where it is, for messages: the file, or `schema <name>`. */
  readonly location: string;
  /** Create each declared table that does not exist yet (by name), from its definition. Rejects with the first failure, naming the table. */
  ensureTables(tables: readonly SqlTable[]): Promise<void>;
  /** Why `sql` may not run here (sql-guard.ts, with what only the database knows), or undefined. */
  refusal(sql: string): Promise<string | undefined>;
  /** Run one statement with its parameters bound. */
  run(sql: string, params: SqlParams | undefined): Promise<SqlResult>;
  close(): Promise<void>;
}

/** Where tools' databases are kept: a folder of SQLite files, or a PostgreSQL server (one schema per tool). */
export type ToolDatabaseLocation =
  /** `driver` picks the SQLite driver (default: as the store resolves it, sqlite-driver.ts). */
  | { kind: 'sqlite'; dir: string; driver?: SqliteDriverName }
  /** `schemaPrefix` (default `toolcap_tool_`) lets tests keep their schemas apart. */
  | { kind: 'postgres'; url: string; schemaPrefix?: string };
