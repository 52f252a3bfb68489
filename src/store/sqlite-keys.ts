/**
 * API keys in the SQLite store: the statements and the {@link KeyStore}
 * methods, run through the store's own error handling (`run`) and statement
 * cache (`stmt`).
 * @module
 */
import type { SqliteStatement } from './sqlite-driver.js';
import { KEY_COLUMNS, keyValues, queryLimit, rowToKey } from './rows.js';
import type { KeyQuery, KeyRecord, KeyStore } from './types.js';

type Row = Record<string, unknown>;

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

export const SQLITE_KEY_STATEMENTS = {
  insertKey: `INSERT INTO keys (${KEY_COLUMNS.join(', ')}) VALUES (${placeholders(KEY_COLUMNS.length)})`,
  getKey: 'SELECT * FROM keys WHERE id = ?',
  revokeKey: 'UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING *',
  /** Only ever moves last use forward: two instances touching at once keep the later time. */
  touchKey: 'UPDATE keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
} as const;

/** The key methods of a SQLite store. */
export function sqliteKeys(
  run: <T>(what: string, fn: () => T) => Promise<T>,
  stmt: (sql: string) => SqliteStatement,
): KeyStore {
  return {
    createKey: (record: KeyRecord) =>
      run(`creating key ${record.id}`, () => {
        stmt(SQLITE_KEY_STATEMENTS.insertKey).run(...keyValues(record));
      }),
    getKey: (id: string) =>
      run(`reading key ${id}`, () => {
        const row = stmt(SQLITE_KEY_STATEMENTS.getKey).get(id) as Row | undefined;
        return row ? rowToKey(row) : undefined;
      }),
    listKeys: (query: KeyQuery = {}) =>
      run('listing keys', () => {
        const where: string[] = [];
        const params: unknown[] = [];
        if (query.principal !== undefined) (where.push('principal = ?'), params.push(query.principal));
        if (query.includeRevoked !== true) where.push('revoked_at IS NULL');
        params.push(queryLimit(query.limit, 100));
        const sql = `SELECT * FROM keys${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
        return (stmt(sql).all(...params) as Row[]).map(rowToKey);
      }),
    revokeKey: (id: string, at: string) =>
      run(`revoking key ${id}`, () => {
        const row = stmt(SQLITE_KEY_STATEMENTS.revokeKey).get(at, id) as Row | undefined;
        return row ? rowToKey(row) : undefined;
      }),
    touchKey: (id: string, at: string) =>
      run(`noting the use of key ${id}`, () => {
        stmt(SQLITE_KEY_STATEMENTS.touchKey).run(at, id, at);
      }),
  };
}
