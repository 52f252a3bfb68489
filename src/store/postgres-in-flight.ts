/**
 * Calls in flight in the PostgreSQL store (see sqlite-in-flight.ts for the
 * idea): `call.started` audit lines and `calls_in_flight` rows written in
 * one transaction before a provider runs; `interruptCalls` turns what a
 * crash left into `call.interrupted` lines. Runs on a client the store
 * holds inside its own transaction.
 * @module
 */
import type pg from 'pg';
import { auditValues, toJsonText } from './rows.js';
import type { InterruptedCall, NewAuditRecord } from './types.js';

export const PG_IN_FLIGHT_STATEMENTS = {
  insert: 'INSERT INTO calls_in_flight (call_id, seq, tool, persona, started_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (call_id) DO NOTHING',
  /** The outcomes of a group commit land: their calls leave the list. */
  remove: 'DELETE FROM calls_in_flight WHERE call_id = ANY($1::text[])',
  interrupt: 'DELETE FROM calls_in_flight WHERE started_at < $1 RETURNING call_id, seq, tool, persona, started_at',
} as const;

/** Append each start's audit line (with the store's serialised insert) and note the call in flight. */
export async function insertStarts(client: pg.PoolClient, insertAudit: string, records: readonly NewAuditRecord[]): Promise<void> {
  for (const r of records) {
    if (r.callId === null) throw new TypeError(`a call.started record needs a call id (tool ${r.tool ?? 'unknown'})`);
    const { rows } = await client.query<{ seq: string }>(insertAudit, auditValues(r));
    await client.query(PG_IN_FLIGHT_STATEMENTS.insert, [r.callId, rows[0]?.seq, r.tool ?? '', r.persona, r.at]);
  }
}

/** Take the calls started before `before` off the list, each with a `call.interrupted` line. */
export async function interruptStarted(client: pg.PoolClient, insertAudit: string, at: string, before: string): Promise<InterruptedCall[]> {
  const { rows } = await client.query<{ call_id: string; seq: string; tool: string; persona: string | null; started_at: string }>(PG_IN_FLIGHT_STATEMENTS.interrupt, [before]);
  const calls = rows
    .map((r) => ({ callId: r.call_id, tool: r.tool, persona: r.persona, startedAt: r.started_at, startedSeq: Number(r.seq) }))
    .sort((a, b) => a.startedSeq - b.startedSeq);
  for (const c of calls) {
    await client.query(insertAudit, [at, 'call.interrupted', c.tool, c.callId, c.persona, null, toJsonText({ startedSeq: c.startedSeq, startedAt: c.startedAt })]);
  }
  return calls;
}
