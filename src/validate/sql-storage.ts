/**
 * The SQL a tool declares (`storage.sqlTables[].definition`,
 * `storage.sqlQueries[].query`: Shinkai's `sqlTables` and `sqlQueries`)
 * must stay inside the tool's own database (sql-guard.ts). A statement that
 * would reach past it is an error where it is written, and the tool does
 * not load: the runtime would refuse it anyway.
 * @module
 */
import { diagnostic, type Diagnostic, type Location } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import { sqlRefusal } from './sql-guard.js';

/** SQL_REFUSED for each declared table definition or query that reaches beyond the tool's own database. */
export function lintSqlStorage(tool: Tool, locate: (path: string, below?: string) => Location): Diagnostic[] {
  const out: Diagnostic[] = [];
  const storage = tool.storage;
  storage?.sqlTables?.forEach((table, i) => {
    // "main" is SQLite's name for the tool's own database; PostgreSQL qualifiers are checked again at run time
    const why = sqlRefusal(table.definition, 'main');
    if (why !== undefined)
      out.push(diagnostic('SQL_REFUSED', `The definition of table "${table.name}" is refused: ${why}.`, { ...locate('storage.sqlTables', `/${i}/definition`), hint: 'A definition creates one table of the tool\'s own database: CREATE TABLE [IF NOT EXISTS] name (...), unqualified.' }));
  });
  storage?.sqlQueries?.forEach((query, i) => {
    const why = sqlRefusal(query.query, 'main');
    if (why !== undefined)
      out.push(diagnostic('SQL_REFUSED', `The query "${query.name}" is refused: ${why}.`, { ...locate('storage.sqlQueries', `/${i}/query`), hint: 'A query is one statement over the tool\'s own tables, with ? or :name parameters.' }));
  });
  return out;
}
