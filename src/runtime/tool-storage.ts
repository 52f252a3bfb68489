/**
 * The own databases of tools that declare `storage.sqlTables` (Shinkai's
 * `sqlTables`/`sqlQueries`): opened on a tool's first call in the store's
 * place (store/tool-db.ts), its declared tables created when missing, and a
 * {@link ToolSql} handle given to the provider. The handle runs the declared
 * queries by name, with their parameters bound; other statements only when
 * the config allows ad hoc SQL for the tool, and then only statements that
 * stay in the tool's database (validate/sql-guard.ts).
 * @module
 */
import { createHash } from 'node:crypto';
import { errorMessage } from '../model/errors.js';
import type { Tool } from '../model/schema.js';
import { openToolDatabase } from '../store/tool-db.js';
import type { SqlParams, SqlResult, ToolDatabase, ToolDatabaseLocation, ToolSql } from '../store/tool-db.js';

/** Why a tool's SQL call failed: the tool's own error (a bad name, a refused or failing statement). */
export class ToolSqlError extends Error {
  override readonly name = 'ToolSqlError';
}

/** Opens and keeps the tools' databases; one per tool name, its tables ensured per set of definitions. */
export class ToolStorage {
  readonly #location: ToolDatabaseLocation | undefined;
  readonly #open = new Map<string, Promise<ToolDatabase>>();
  /** Per tool name, the definitions already ensured (a reload that adds a table ensures again). */
  readonly #ensured = new Map<string, Promise<void>>();

  /** `location` absent: no tool database can be opened (tools declaring tables are unavailable). */
  constructor(location: ToolDatabaseLocation | undefined) {
    this.#location = location;
  }

  /**
   * The SQL handle of `tool`, its tables created; undefined when it declares
   * none. Rejects with the reason the tool cannot run (a definition that
   * failed or was refused, a database that cannot be opened).
   */
  async handle(tool: Tool, allowAdHoc: boolean): Promise<ToolSql | undefined> {
    const tables = tool.storage?.sqlTables ?? [];
    const queries = tool.storage?.sqlQueries ?? [];
    if (tables.length === 0 && queries.length === 0) return undefined;
    if (this.#location === undefined) throw new Error('this toolcap has no store folder for tool databases');
    let opening = this.#open.get(tool.name);
    if (!opening) {
      opening = openToolDatabase(this.#location, tool.name);
      this.#open.set(tool.name, opening);
      // a database that did not open is tried again on the next call
      opening.catch(() => this.#open.delete(tool.name));
    }
    let db: ToolDatabase;
    try {
      db = await opening;
    } catch (error) {
      throw new Error(`its database cannot be opened: ${errorMessage(error)}`, { cause: error });
    }
    const key = `${tool.name}\u0000${createHash('sha256').update(JSON.stringify(tables)).digest('hex')}`;
    let ensured = this.#ensured.get(key);
    if (!ensured) {
      ensured = db.ensureTables(tables);
      this.#ensured.set(key, ensured);
      // a failure is tried again on the next call (the server may have been down)
      ensured.catch(() => this.#ensured.delete(key));
    }
    await ensured;
    return sqlHandle(db, new Map(queries.map((q) => [q.name, q.query])), allowAdHoc, tool.name);
  }

  /** Close every open database. */
  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    this.#ensured.clear();
    await Promise.all(all.map((opening) => opening.then((db) => db.close(), () => undefined)));
  }
}

/** Refusals already decided, per database and statement (a declared query is checked once). */
const decided = new WeakMap<ToolDatabase, Map<string, string | undefined>>();

async function refusalOf(db: ToolDatabase, sql: string): Promise<string | undefined> {
  let memo = decided.get(db);
  if (!memo) decided.set(db, (memo = new Map()));
  if (memo.has(sql)) return memo.get(sql);
  const refused = await db.refusal(sql);
  // ad hoc statements are not remembered: they are many and may be unique
  if (memo.size < 1000) memo.set(sql, refused);
  return refused;
}

/** The handle a provider gets: declared queries by name; ad hoc statements only when allowed. */
function sqlHandle(db: ToolDatabase, queries: ReadonlyMap<string, string>, allowAdHoc: boolean, tool: string): ToolSql {
  const run = async (sql: string, params: SqlParams | undefined, what: string): Promise<SqlResult> => {
    const refused = await refusalOf(db, sql);
    if (refused !== undefined) throw new ToolSqlError(`${what} is refused: ${refused}`);
    try {
      return await db.run(sql, params);
    } catch (error) {
      throw new ToolSqlError(`${what} failed: ${errorMessage(error)}`, { cause: error });
    }
  };
  return {
    query(name, params) {
      const sql = typeof name === 'string' ? queries.get(name) : undefined;
      if (sql === undefined) {
        const known = [...queries.keys()];
        return Promise.reject(new ToolSqlError(`"${tool}" declares no query named "${String(name)}" (declared: ${known.length > 0 ? known.join(', ') : 'none'})`));
      }
      return run(sql, params, `query "${name}"`);
    },
    execute(sql, params) {
      if (!allowAdHoc) return Promise.reject(new ToolSqlError(`ad hoc SQL is not allowed for "${tool}": run a declared query by name, or set tools.${tool}.sql.allowAdHoc: true in the config`));
      if (typeof sql !== 'string') return Promise.reject(new ToolSqlError('the statement must be a string'));
      return run(sql, params, 'the statement');
    },
  };
}
