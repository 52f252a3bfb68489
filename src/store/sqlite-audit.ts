/**
 * The audit log in the SQLite store: the {@link AuditMethods}, run through
 * the store's own error handling (`run`) and statement cache (`stmt`).
 * @module
 */
import type { SqliteStatement } from './sqlite-driver.js';
import type { AuditMethods } from './methods.js';
import { AUDIT_COLUMNS, auditValues, queryLimit, rowToAudit } from './rows.js';
import { SQLITE_STATEMENTS } from './sqlite-statements.js';
import type { AuditQuery, NewAuditRecord } from './types.js';

type Row = Record<string, unknown>;

/** The audit methods of a SQLite store. */
export function sqliteAudit(
  run: <T>(what: string, fn: () => T) => Promise<T>,
  stmt: (sql: string) => SqliteStatement,
): AuditMethods {
  return {
    appendAudit: (record: NewAuditRecord) =>
      run('appending to the audit log', () => {
        const values = auditValues(record);
        const row = stmt(SQLITE_STATEMENTS.insertAudit).get(...values) as { seq: number };
        // the record as stored: detail is a copy read back from its JSON text
        return rowToAudit({ seq: row.seq, ...Object.fromEntries(AUDIT_COLUMNS.map((c, i) => [c, values[i]])) });
      }),
    listAudit: (query: AuditQuery = {}) =>
      run('reading the audit log', () => {
        const where: string[] = [];
        const params: unknown[] = [];
        if (query.afterSeq !== undefined) (where.push('seq > ?'), params.push(query.afterSeq));
        if (query.tool !== undefined) (where.push('tool = ?'), params.push(query.tool));
        if (query.callId !== undefined) (where.push('call_id = ?'), params.push(query.callId));
        params.push(queryLimit(query.limit, 100));
        const sql = `SELECT * FROM audit${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq ASC LIMIT ?`;
        return (stmt(sql).all(...params) as Row[]).map(rowToAudit);
      }),
  };
}
