/**
 * Where each tool's own database is: {@link toolDatabaseName} gives the
 * stable name (file or schema) from the tool's name, and
 * {@link openToolDatabase} opens it in the store's place.
 * @module
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ToolDatabase, ToolDatabaseLocation } from './tool-db-types.js';

export type { SqlParams, SqlResult, ToolDatabase, ToolDatabaseLocation, ToolSql } from './tool-db-types.js';

/**
 * A tool's database name: its name as a lower-case identifier (cut to 40
 * characters) and 8 hex digits of its hash, so `a.b` and `a_b` differ.
 * @example toolDatabaseName('notes.keep') // 'notes_keep_3c1d…'
 */
export function toolDatabaseName(tool: string): string {
  const slug = tool.toLowerCase().replace(/[^a-z0-9_]+/g, '_').slice(0, 40);
  return `${slug}_${createHash('sha256').update(tool).digest('hex').slice(0, 8)}`;
}

/**
 * Open (creating) the database of `tool` in `location`: `<dir>/<name>.db`, or
 * the schema `toolcap_tool_<name>`. The driver is imported on first use, so
 * a runtime whose tools declare no tables loads none.
 */
export async function openToolDatabase(location: ToolDatabaseLocation, tool: string): Promise<ToolDatabase> {
  const name = toolDatabaseName(tool);
  if (location.kind === 'sqlite') return (await import('./tool-db-sqlite.js')).openSqliteToolDatabase(join(location.dir, `${name}.db`), location.driver);
  return (await import('./tool-db-postgres.js')).openPostgresToolDatabase(location.url, `${location.schemaPrefix ?? 'toolcap_tool_'}${name}`);
}
