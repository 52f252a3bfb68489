/**
 * Calls in the SQLite store: the {@link CallMethods} (call history, group
 * commit of outcomes with their audit lines, calls in flight), run through
 * the store's own error handling (`run`), statement cache (`stmt`) and
 * transactions (`transaction`).
 * @module
 */
import type { SqliteStatement } from './sqlite-driver.js';
import type { CallMethods } from './methods.js';
import { auditValues, callValues, queryLimit, rowToCall } from './rows.js';
import { SQLITE_IN_FLIGHT_STATEMENTS, insertStarts, interruptStarted } from './sqlite-in-flight.js';
import { SQLITE_STATEMENTS } from './sqlite-statements.js';
import type { CallOutcomeRecord, CallQuery, CallRecord, NewAuditRecord } from './types.js';

type Row = Record<string, unknown>;

/** The call methods of a SQLite store; `transaction` runs `fn` in one SQLite transaction. */
export function sqliteCalls(
  run: <T>(what: string, fn: () => T) => Promise<T>,
  stmt: (sql: string) => SqliteStatement,
  transaction: <T>(fn: () => T) => T,
): CallMethods {
  return {
    recordCall: (record: CallRecord) =>
      run(`recording call ${record.callId}`, () => {
        stmt(SQLITE_STATEMENTS.insertCall).run(...callValues(record));
      }),
    recordOutcomes: (outcomes: readonly CallOutcomeRecord[]) =>
      run(`recording ${outcomes.length} call outcome${outcomes.length === 1 ? '' : 's'}`, () => {
        const insertCall = stmt(SQLITE_STATEMENTS.insertCall);
        const insertAudit = stmt(SQLITE_STATEMENTS.insertAudit);
        const landed = stmt(SQLITE_IN_FLIGHT_STATEMENTS.remove);
        transaction(() => {
          for (const o of outcomes) {
            insertCall.run(...callValues(o.call));
            insertAudit.get(...auditValues(o.audit));
            landed.run(o.call.callId);
          }
        });
      }),
    recordStarts: (records: readonly NewAuditRecord[]) =>
      run(`recording ${records.length} call start${records.length === 1 ? '' : 's'}`, () => {
        transaction(() => insertStarts(stmt, SQLITE_STATEMENTS.insertAudit, records));
      }),
    interruptCalls: (options: { at: string; before: string }) =>
      run('marking interrupted calls', () => transaction(() => interruptStarted(stmt, SQLITE_STATEMENTS.insertAudit, options.at, options.before))),
    listCalls: (query: CallQuery = {}) =>
      run('listing calls', () => {
        const where: string[] = [];
        const params: unknown[] = [];
        if (query.since !== undefined) (where.push('started_at >= ?'), params.push(query.since));
        if (query.tool !== undefined) (where.push('tool = ?'), params.push(query.tool));
        params.push(queryLimit(query.limit, 1000));
        const sql = `SELECT * FROM calls${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, id DESC LIMIT ?`;
        return (stmt(sql).all(...params) as Row[]).map(rowToCall);
      }),
  };
}
