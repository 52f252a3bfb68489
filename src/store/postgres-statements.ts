/**
 * The PostgreSQL statements of approvals, the audit log and calls: one
 * definition, used by the store's per-concern modules and by the crash
 * test's child process. Audit inserts take an advisory transaction lock
 * first, so `seq` order is commit order.
 * @module
 */
import { APPROVAL_COLUMNS, AUDIT_COLUMNS, CALL_COLUMNS } from './rows.js';

/** First key of the audit advisory lock (the second is a hash of the schema). */
const AUDIT_LOCK = 74_020_002;

const placeholders = (n: number, from = 1): string => Array.from({ length: n }, (_, i) => `$${i + from}::text`).join(', ');

/** INSERT of n call records in one statement. */
export function insertCallsSql(n: number): string {
  const rows = Array.from({ length: n }, (_, r) => {
    const b = r * CALL_COLUMNS.length;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}::double precision, $${b + 8}, $${b + 9})`;
  });
  return `INSERT INTO calls (${CALL_COLUMNS.join(', ')}) VALUES ${rows.join(', ')}`;
}

/** INSERT of n audit lines in one statement, in the given order, under the audit lock (seq order is commit order). */
export function insertAuditsSql(n: number): string {
  const width = AUDIT_COLUMNS.length + 1;
  const rows = Array.from({ length: n }, (_, r) => `($${r * width + 1}::int, ${placeholders(AUDIT_COLUMNS.length, r * width + 2)})`);
  return `INSERT INTO audit (${AUDIT_COLUMNS.join(', ')})
    SELECT ${AUDIT_COLUMNS.map((c) => `v.${c}`).join(', ')}
    FROM (VALUES ${rows.join(', ')}) AS v(ord, ${AUDIT_COLUMNS.join(', ')}),
         (SELECT pg_advisory_xact_lock(${AUDIT_LOCK}, hashtext(current_schema()))) AS serialise
    ORDER BY v.ord`;
}

/** The statements, exported so the crash test's child writes exactly as the store does. */
export const PG_STATEMENTS = {
  insertApproval: `INSERT INTO approvals (${APPROVAL_COLUMNS.join(', ')}) VALUES (${placeholders(APPROVAL_COLUMNS.length)})`,
  /** Takes the audit lock first, so seq order is commit order. */
  insertAudit: `INSERT INTO audit (${AUDIT_COLUMNS.join(', ')})
    SELECT ${placeholders(AUDIT_COLUMNS.length)}
    FROM (SELECT pg_advisory_xact_lock(${AUDIT_LOCK}, hashtext(current_schema()))) AS serialise
    RETURNING seq`,
  insertCall: `INSERT INTO calls (${CALL_COLUMNS.join(', ')}) VALUES ($1, $2, $3, $4, $5, $6, $7::double precision, $8, $9)`,
  updateApproval: `UPDATE approvals SET
      status = $3,
      decided_by = CASE WHEN $4::boolean THEN $5::text ELSE decided_by END,
      decided_at = CASE WHEN $6::boolean THEN $7::text ELSE decided_at END,
      note = CASE WHEN $8::boolean THEN $9::text ELSE note END,
      result = CASE WHEN $10::boolean THEN $11::text ELSE result END,
      decided_by_principal = CASE WHEN $12::boolean THEN $13::text ELSE decided_by_principal END,
      decided_via = CASE WHEN $14::boolean THEN $15::text ELSE decided_via END,
      outcome = CASE WHEN $16::boolean THEN $17::text ELSE outcome END
    WHERE id = $1 AND status = $2
    RETURNING *`,
  getApproval: 'SELECT * FROM approvals WHERE id = $1',
} as const;
