/**
 * Calls in the PostgreSQL store: the {@link CallMethods} (call history,
 * group commit of outcomes with their audit lines, calls in flight), run
 * through the store's own error handling (`query`) and transactions
 * (`transaction`, one pooled connection).
 * @module
 */
import type pg from 'pg';
import type { CallMethods } from './methods.js';
import { PG_IN_FLIGHT_STATEMENTS, insertStarts, interruptStarted } from './postgres-in-flight.js';
import { PG_STATEMENTS, insertAuditsSql, insertCallsSql } from './postgres-statements.js';
import { auditValues, callValues, queryLimit, rowToCall } from './rows.js';
import type { CallOutcomeRecord, CallQuery, CallRecord, NewAuditRecord } from './types.js';

type Row = Record<string, unknown>;

/** Rows per multi-row insert of call outcomes (9 or 8 parameters a row, far below PostgreSQL's 65,535). */
const OUTCOME_CHUNK = 500;

/** The call methods of a PostgreSQL store. */
export function postgresCalls(
  query: (what: string, sql: string, params?: unknown[]) => Promise<Row[]>,
  transaction: <T>(what: string, work: (client: pg.PoolClient) => Promise<T>) => Promise<T>,
): CallMethods {
  return {
    async recordCall(record: CallRecord) {
      await query(`recording call ${record.callId}`, PG_STATEMENTS.insertCall, callValues(record));
    },
    async recordOutcomes(outcomes: readonly CallOutcomeRecord[]) {
      await transaction(`recording ${outcomes.length} call outcomes`, async (client) => {
        // multi-row statements, in chunks: three round trips per chunk instead of three per call
        for (let i = 0; i < outcomes.length; i += OUTCOME_CHUNK) {
          const chunk = outcomes.slice(i, i + OUTCOME_CHUNK);
          await client.query(insertCallsSql(chunk.length), chunk.flatMap((o) => callValues(o.call)));
          await client.query(insertAuditsSql(chunk.length), chunk.flatMap((o, k) => [k, ...auditValues(o.audit)]));
          await client.query(PG_IN_FLIGHT_STATEMENTS.remove, [chunk.map((o) => o.call.callId)]);
        }
      });
    },
    async recordStarts(records: readonly NewAuditRecord[]) {
      await transaction(`recording ${records.length} call starts`, (client) => insertStarts(client, PG_STATEMENTS.insertAudit, records));
    },
    interruptCalls: (options: { at: string; before: string }) =>
      transaction('marking interrupted calls', (client) => interruptStarted(client, PG_STATEMENTS.insertAudit, options.at, options.before)),
    async listCalls(q: CallQuery = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (q.since !== undefined) (params.push(q.since), where.push(`started_at >= $${params.length}`));
      if (q.tool !== undefined) (params.push(q.tool), where.push(`tool = $${params.length}`));
      params.push(queryLimit(q.limit, 1000));
      const sql = `SELECT * FROM calls${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, id DESC LIMIT $${params.length}`;
      return (await query('listing calls', sql, params)).map(rowToCall);
    },
  };
}
