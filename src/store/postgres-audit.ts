/**
 * The audit log in the PostgreSQL store: the {@link AuditMethods}, run
 * through the store's own error handling (`query`). Appends take the audit
 * lock (see postgres-statements.ts), so a reader paging with `afterSeq`
 * never skips a record committed later with a lower seq.
 * @module
 */
import type { AuditMethods } from './methods.js';
import { PG_STATEMENTS } from './postgres-statements.js';
import { AUDIT_COLUMNS, auditValues, queryLimit, rowToAudit } from './rows.js';
import type { AuditQuery, NewAuditRecord } from './types.js';

type Row = Record<string, unknown>;

/** The audit methods of a PostgreSQL store. */
export function postgresAudit(query: (what: string, sql: string, params?: unknown[]) => Promise<Row[]>): AuditMethods {
  return {
    async appendAudit(record: NewAuditRecord) {
      const values = auditValues(record);
      const rows = await query('appending to the audit log', PG_STATEMENTS.insertAudit, values);
      // the record as stored: detail is a copy read back from its JSON text
      return rowToAudit({ seq: rows[0]?.seq, ...Object.fromEntries(AUDIT_COLUMNS.map((c, i) => [c, values[i]])) });
    },
    async listAudit(q: AuditQuery = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (q.afterSeq !== undefined) (params.push(q.afterSeq), where.push(`seq > $${params.length}`));
      if (q.tool !== undefined) (params.push(q.tool), where.push(`tool = $${params.length}`));
      if (q.callId !== undefined) (params.push(q.callId), where.push(`call_id = $${params.length}`));
      params.push(queryLimit(q.limit, 100));
      const sql = `SELECT * FROM audit${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq ASC LIMIT $${params.length}`;
      return (await query('reading the audit log', sql, params)).map(rowToAudit);
    },
  };
}
