/**
 * A tool's own PostgreSQL schema: `toolcap_tool_<name>_<hash>` on the store's
 * server, every connection of the tool's small pool confined to it by
 * `search_path`. Statements written for SQLite (Shinkai's dialect) use `?`
 * and `:name`/`@name`/`$name` parameters; they are rewritten to `$1…` here
 * (outside strings, quoted names and comments) and the values are bound.
 * @module
 */
import pg from 'pg';
import { sqlRefusalIn } from '../validate/sql-guard.js';
import type { SqlParams, SqlResult, SqlTable, ToolDatabase } from './tool-db-types.js';

/**
 * A query of one statement. pg uses the extended protocol (one statement,
 * values bound) only when there are values, an empty array is not enough,
 * or with `queryMode: 'extended'`; the simple protocol runs every statement
 * of the text, so a second statement the guard misread would run too.
 * (`queryMode` is pg's; @types/pg does not name it.)
 */
const oneStatement = (text: string, values: unknown[]): pg.QueryConfig => ({ text, values, queryMode: 'extended' }) as pg.QueryConfig;

/**
 * `sql` with its parameters as PostgreSQL numbers them, and the values in
 * that order. Positional: `?` (numbered in order) or `$1…` as written;
 * named: `:name`, `@name`, `$name` looked up in an object (with or without
 * the prefix). A missing named value is an error.
 * @example toPostgres('SELECT * FROM t WHERE a = :a AND b = ?', { a: 1 }) // throws: positional and named mixed
 * @example toPostgres('SELECT * FROM t WHERE a = :a', { a: 1 }) // { text: 'SELECT * FROM t WHERE a = $1', values: [1] }
 */
export function toPostgres(sql: string, params: SqlParams | undefined): { text: string; values: unknown[] } {
  const positional = Array.isArray(params) ? params : undefined;
  const named = params !== undefined && !Array.isArray(params) ? (params as Record<string, unknown>) : undefined;
  const values: unknown[] = [];
  const slots = new Map<string, number>();
  let text = '';
  let question = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const rest = sql.slice(i);
    const skip = /^('(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|\$([A-Za-z_][A-Za-z0-9_]*)?\$[\s\S]*?\$\2\$|::)/.exec(rest);
    if (skip) {
      text += skip[0];
      i += skip[0].length;
      continue;
    }
    if (c === '?') {
      if (!positional) throw new TypeError('the statement has ? parameters: pass an array');
      values.push(positional[question++] ?? null);
      text += `$${values.length}`;
      i++;
      continue;
    }
    const numbered = /^\$([0-9]+)/.exec(rest);
    if (numbered) {
      if (!positional) throw new TypeError('the statement has $n parameters: pass an array');
      text += numbered[0];
      i += numbered[0].length;
      continue;
    }
    const name = /^[:@$]([A-Za-z_][A-Za-z0-9_]*)/.exec(rest);
    if (name) {
      if (!named) throw new TypeError(`the statement has the named parameter ${name[0]}: pass an object`);
      const key = name[1]!;
      let slot = slots.get(key);
      if (slot === undefined) {
        const value = key in named ? named[key] : named[name[0]];
        if (value === undefined && !(key in named) && !(name[0] in named)) throw new TypeError(`no value for the parameter ${name[0]}`);
        values.push(value ?? null);
        slots.set(key, (slot = values.length));
      }
      text += `$${slot}`;
      i += name[0].length;
      continue;
    }
    text += c;
    i++;
  }
  // $n as written: the array is the values, in order
  if (positional && question === 0) return { text, values: [...positional] };
  return { text, values };
}

/**
 * The URL without its `options` parameter: pg lets the URL's parameters win
 * over the pool's own, and a `search_path` there would put the tool's tables
 * in the store's schema.
 */
function withoutOptions(url: string): string {
  try {
    const u = new URL(url);
    u.searchParams.delete('options');
    return u.href;
  } catch {
    return url;
  }
}

class PostgresToolDatabase implements ToolDatabase {
  readonly location: string;
  readonly #pool: pg.Pool;
  readonly #schema: string;
  #ready: Promise<void> | undefined;

  constructor(url: string, schema: string) {
    this.#schema = schema;
    this.location = `schema ${schema}`;
    this.#pool = new pg.Pool({ connectionString: withoutOptions(url), max: 4, connectionTimeoutMillis: 5000, options: `-c search_path=${schema}` });
    this.#pool.on('error', () => undefined);
  }

  /** The schema, created once. */
  #schemaReady(): Promise<void> {
    this.#ready ??= this.#pool.query(`CREATE SCHEMA IF NOT EXISTS ${this.#schema}`).then(
      () => undefined,
      (err: unknown) => {
        this.#ready = undefined;
        throw err;
      },
    );
    return this.#ready;
  }

  async ensureTables(tables: readonly SqlTable[]): Promise<void> {
    await this.#schemaReady();
    for (const table of tables) {
      const found = await this.#pool.query('SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND (tablename = $2 OR tablename = lower($2))', [this.#schema, table.name]);
      if (found.rowCount !== null && found.rowCount > 0) continue;
      const why = await this.refusal(table.definition);
      if (why !== undefined) throw new Error(`the definition of table "${table.name}" is refused: ${why}`);
      try {
        await this.#pool.query(oneStatement(table.definition, []));
      } catch (err) {
        throw new Error(`the definition of table "${table.name}" failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
  }

  async refusal(sql: string): Promise<string | undefined> {
    const schemas = await this.#pool.query<{ nspname: string }>('SELECT nspname FROM pg_catalog.pg_namespace');
    return sqlRefusalIn(sql, this.#schema, new Set(schemas.rows.map((r) => r.nspname).filter((n) => n !== this.#schema)));
  }

  async run(sql: string, params: SqlParams | undefined): Promise<SqlResult> {
    await this.#schemaReady();
    const { text, values } = toPostgres(sql, params);
    const result = await this.#pool.query(oneStatement(text, values));
    return { rows: result.fields.length > 0 ? (result.rows as Array<Record<string, unknown>>) : [], changes: result.command === 'SELECT' ? 0 : (result.rowCount ?? 0) };
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => undefined);
  }
}

/** Open the schema `schema` (a plain lower-case identifier) on the server at `url`, as one tool's database. */
export function openPostgresToolDatabase(url: string, schema: string): ToolDatabase {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new TypeError(`"${schema}" is not a plain lower-case schema name`);
  return new PostgresToolDatabase(url, schema);
}
