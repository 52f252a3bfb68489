/**
 * Approvals in the SQLite store: the {@link ApprovalMethods}, run through
 * the store's own error handling (`run`) and statement cache (`stmt`).
 * @module
 */
import type { SqliteStatement } from './sqlite-driver.js';
import type { ApprovalMethods } from './methods.js';
import { approvalValues, queryLimit, rowToApproval, updateParams } from './rows.js';
import { SQLITE_STATEMENTS } from './sqlite-statements.js';
import type { ApprovalQuery, ApprovalRecord, ApprovalStatus, ApprovalUpdate } from './types.js';

type Row = Record<string, unknown>;

/** The approval methods of a SQLite store. */
export function sqliteApprovals(
  run: <T>(what: string, fn: () => T) => Promise<T>,
  stmt: (sql: string) => SqliteStatement,
): ApprovalMethods {
  return {
    createApproval: (record: ApprovalRecord) =>
      run(`creating approval ${record.id}`, () => {
        stmt(SQLITE_STATEMENTS.insertApproval).run(...approvalValues(record));
      }),
    getApproval: (id: string) =>
      run(`reading approval ${id}`, () => {
        const row = stmt(SQLITE_STATEMENTS.getApproval).get(id) as Row | undefined;
        return row ? rowToApproval(row) : undefined;
      }),
    listApprovals: (query: ApprovalQuery = {}) =>
      run('listing approvals', () => {
        const where: string[] = [];
        const params: unknown[] = [];
        if (query.status !== undefined) (where.push('status = ?'), params.push(query.status));
        if (query.tool !== undefined) (where.push('tool = ?'), params.push(query.tool));
        if (query.requestedByPrincipal !== undefined) (where.push('requested_by_principal = ?'), params.push(query.requestedByPrincipal));
        params.push(queryLimit(query.limit, 100));
        const sql = `SELECT * FROM approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
        return (stmt(sql).all(...params) as Row[]).map(rowToApproval);
      }),
    updateApproval: (id: string, from: ApprovalStatus, update: ApprovalUpdate) =>
      run(`updating approval ${id}`, () => {
        const row = stmt(SQLITE_STATEMENTS.updateApproval).get({ id, from, status: update.status, ...updateParams(update) }) as Row | undefined;
        return row ? rowToApproval(row) : undefined;
      }),
  };
}
