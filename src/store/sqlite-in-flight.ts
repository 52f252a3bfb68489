/**
 * Calls in flight in the SQLite store: a call that may have effects is
 * noted (its `call.started` audit line and a `calls_in_flight` row, one
 * transaction) before its provider runs, and leaves the list when its
 * outcome is recorded. What is left after a crash is what
 * `interruptCalls` marks `call.interrupted`.
 * @module
 */
import type { SqliteStatement } from './sqlite-driver.js';
import { auditValues, toJsonText } from './rows.js';
import type { InterruptedCall, NewAuditRecord } from './types.js';

export const SQLITE_IN_FLIGHT_STATEMENTS = {
  insert: 'INSERT INTO calls_in_flight (call_id, seq, tool, persona, started_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (call_id) DO NOTHING',
  remove: 'DELETE FROM calls_in_flight WHERE call_id = ?',
  interrupt: 'DELETE FROM calls_in_flight WHERE started_at < ? RETURNING call_id, seq, tool, persona, started_at',
} as const;

type Stmt = (sql: string) => SqliteStatement;

/** Append each start's audit line and note the call in flight; run inside the caller's transaction. */
export function insertStarts(stmt: Stmt, insertAudit: string, records: readonly NewAuditRecord[]): void {
  for (const r of records) {
    if (r.callId === null) throw new TypeError(`a call.started record needs a call id (tool ${r.tool ?? 'unknown'})`);
    const { seq } = stmt(insertAudit).get(...auditValues(r)) as { seq: number };
    stmt(SQLITE_IN_FLIGHT_STATEMENTS.insert).run(r.callId, seq, r.tool ?? '', r.persona, r.at);
  }
}

/** Take the calls started before `before` off the list, each with a `call.interrupted` line; run inside the caller's transaction. */
export function interruptStarted(stmt: Stmt, insertAudit: string, at: string, before: string): InterruptedCall[] {
  const rows = stmt(SQLITE_IN_FLIGHT_STATEMENTS.interrupt).all(before) as Array<{ call_id: string; seq: number; tool: string; persona: string | null; started_at: string }>;
  const calls = rows
    .map((r) => ({ callId: r.call_id, tool: r.tool, persona: r.persona, startedAt: r.started_at, startedSeq: Number(r.seq) }))
    .sort((a, b) => a.startedSeq - b.startedSeq);
  for (const c of calls) {
    stmt(insertAudit).get(at, 'call.interrupted', c.tool, c.callId, c.persona, null, toJsonText({ startedSeq: c.startedSeq, startedAt: c.startedAt }));
  }
  return calls;
}
