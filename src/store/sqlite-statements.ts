/**
 * The SQLite write statements of approvals, the audit log and calls: one
 * definition, used by the store's per-concern modules and by the crash
 * test's child process, so both write exactly alike.
 * @module
 */
import { APPROVAL_COLUMNS, AUDIT_COLUMNS, CALL_COLUMNS } from './rows.js';

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** The write statements, exported so the crash test's child writes exactly as the store does. */
export const SQLITE_STATEMENTS = {
  insertApproval: `INSERT INTO approvals (${APPROVAL_COLUMNS.join(', ')}) VALUES (${placeholders(APPROVAL_COLUMNS.length)})`,
  insertAudit: `INSERT INTO audit (${AUDIT_COLUMNS.join(', ')}) VALUES (${placeholders(AUDIT_COLUMNS.length)}) RETURNING seq`,
  insertCall: `INSERT INTO calls (${CALL_COLUMNS.join(', ')}) VALUES (${placeholders(CALL_COLUMNS.length)})`,
  updateApproval: `UPDATE approvals SET
      status = @status,
      decided_by = CASE WHEN @setDecidedBy THEN @decidedBy ELSE decided_by END,
      decided_at = CASE WHEN @setDecidedAt THEN @decidedAt ELSE decided_at END,
      note = CASE WHEN @setNote THEN @note ELSE note END,
      result = CASE WHEN @setResult THEN @result ELSE result END,
      decided_by_principal = CASE WHEN @setDecidedByPrincipal THEN @decidedByPrincipal ELSE decided_by_principal END,
      decided_via = CASE WHEN @setDecidedVia THEN @decidedVia ELSE decided_via END,
      outcome = CASE WHEN @setOutcome THEN @outcome ELSE outcome END
    WHERE id = @id AND status = @from
    RETURNING *`,
  getApproval: 'SELECT * FROM approvals WHERE id = ?',
} as const;
