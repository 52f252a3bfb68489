/**
 * API keys in the PostgreSQL store: the statements and the {@link KeyStore}
 * methods, run through the store's own error handling (`query`).
 * @module
 */
import { KEY_COLUMNS, keyValues, queryLimit, rowToKey } from './rows.js';
import type { KeyQuery, KeyRecord, KeyStore } from './types.js';

type Row = Record<string, unknown>;

export const PG_KEY_STATEMENTS = {
  insertKey: `INSERT INTO keys (${KEY_COLUMNS.join(', ')}) VALUES (${KEY_COLUMNS.map((_, i) => `$${i + 1}::text`).join(', ')})`,
  getKey: 'SELECT * FROM keys WHERE id = $1',
  revokeKey: 'UPDATE keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING *',
  /** Only ever moves last use forward: two instances touching at once keep the later time. */
  touchKey: 'UPDATE keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)',
} as const;

/** The key methods of a PostgreSQL store. */
export function postgresKeys(query: (what: string, sql: string, params?: unknown[]) => Promise<Row[]>): KeyStore {
  return {
    async createKey(record: KeyRecord) {
      await query(`creating key ${record.id}`, PG_KEY_STATEMENTS.insertKey, keyValues(record));
    },
    async getKey(id: string) {
      const rows = await query(`reading key ${id}`, PG_KEY_STATEMENTS.getKey, [id]);
      return rows[0] ? rowToKey(rows[0]) : undefined;
    },
    async listKeys(q: KeyQuery = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (q.principal !== undefined) (params.push(q.principal), where.push(`principal = $${params.length}`));
      if (q.includeRevoked !== true) where.push('revoked_at IS NULL');
      params.push(queryLimit(q.limit, 100));
      const sql = `SELECT * FROM keys${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, ord DESC LIMIT $${params.length}`;
      return (await query('listing keys', sql, params)).map(rowToKey);
    },
    async revokeKey(id: string, at: string) {
      const rows = await query(`revoking key ${id}`, PG_KEY_STATEMENTS.revokeKey, [at, id]);
      return rows[0] ? rowToKey(rows[0]) : undefined;
    },
    async touchKey(id: string, at: string) {
      await query(`noting the use of key ${id}`, PG_KEY_STATEMENTS.touchKey, [at, id]);
    },
  };
}
