/**
 * Approvals in the PostgreSQL store: the {@link ApprovalMethods}, run
 * through the store's own error handling (`query`).
 * @module
 */
import type { ApprovalMethods } from './methods.js';
import { PG_STATEMENTS } from './postgres-statements.js';
import { approvalValues, queryLimit, rowToApproval, updateParams } from './rows.js';
import type { ApprovalQuery, ApprovalRecord, ApprovalStatus, ApprovalUpdate } from './types.js';

type Row = Record<string, unknown>;

/** The approval methods of a PostgreSQL store. */
export function postgresApprovals(query: (what: string, sql: string, params?: unknown[]) => Promise<Row[]>): ApprovalMethods {
  return {
    async createApproval(record: ApprovalRecord) {
      await query(`creating approval ${record.id}`, PG_STATEMENTS.insertApproval, approvalValues(record));
    },
    async getApproval(id: string) {
      const rows = await query(`reading approval ${id}`, PG_STATEMENTS.getApproval, [id]);
      return rows[0] ? rowToApproval(rows[0]) : undefined;
    },
    async listApprovals(q: ApprovalQuery = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (q.status !== undefined) (params.push(q.status), where.push(`status = $${params.length}`));
      if (q.tool !== undefined) (params.push(q.tool), where.push(`tool = $${params.length}`));
      if (q.requestedByPrincipal !== undefined) (params.push(q.requestedByPrincipal), where.push(`requested_by_principal = $${params.length}`));
      params.push(queryLimit(q.limit, 100));
      const sql = `SELECT * FROM approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, ord DESC LIMIT $${params.length}`;
      return (await query('listing approvals', sql, params)).map(rowToApproval);
    },
    async updateApproval(id: string, from: ApprovalStatus, update: ApprovalUpdate) {
      const p = updateParams(update);
      const rows = await query(`updating approval ${id}`, PG_STATEMENTS.updateApproval, [
        id, from, update.status,
        p.setDecidedBy === 1, p.decidedBy,
        p.setDecidedAt === 1, p.decidedAt,
        p.setNote === 1, p.note,
        p.setResult === 1, p.result,
        p.setDecidedByPrincipal === 1, p.decidedByPrincipal,
        p.setDecidedVia === 1, p.decidedVia,
        p.setOutcome === 1, p.outcome,
      ]);
      return rows[0] ? rowToApproval(rows[0]) : undefined;
    },
  };
}
