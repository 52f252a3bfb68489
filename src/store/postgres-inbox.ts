/**
 * The workflow inbox in the PostgreSQL store: {@link WorkflowInbox} over the
 * statements of workflow-inbox.ts. A delivery is one transaction that locks
 * the workflow row (`FOR UPDATE`), so concurrent deliveries to one workflow
 * take seqs one after the other.
 * @module
 */
import type pg from 'pg';
import { numbered } from './oauth-tokens.js';
import { INBOX_SQL, MAX_SIGNALS_PAGE, rowToSignal, rowToWorkflow, signalValues, type InboxOutcome, type WorkflowInbox } from './workflow-inbox.js';

type Row = Record<string, unknown>;

const SQL = Object.fromEntries(Object.entries(INBOX_SQL).map(([k, v]) => [k, numbered(v)])) as Record<keyof typeof INBOX_SQL, string>;

/** The inbox methods of a PostgreSQL store. */
export function postgresInbox(
  query: (what: string, sql: string, params?: unknown[]) => Promise<Row[]>,
  transaction: <T>(what: string, work: (client: pg.PoolClient) => Promise<T>) => Promise<T>,
): WorkflowInbox {
  return {
    deliver: (d) =>
      transaction(`delivering a signal to workflow ${d.workflowId}`, async (client): Promise<InboxOutcome> => {
        const started = d.start && (await client.query(SQL.startWorkflow, [d.workflowId, d.workflowType, d.workflowName, d.bootstrap, d.at])).rows.length > 0;
        const wf = (await client.query<Row>(SQL.lockWorkflow, [d.workflowId])).rows[0];
        if (!wf) return { outcome: 'not_running' };
        const dup = (await client.query<Row>(SQL.findKey, [d.workflowId, d.idempotencyKey])).rows[0];
        if (dup) return { outcome: 'duplicate', started: false, seq: Number(dup.seq) };
        const seq = Number(wf.last_seq) + 1;
        await client.query(SQL.insertSignal, signalValues(d, seq));
        await client.query(SQL.bumpSeq, [seq, d.workflowId]);
        return { outcome: 'stored', started, seq };
      }),
    async getWorkflow(id) {
      const rows = await query(`reading workflow ${id}`, SQL.getWorkflow, [id]);
      return rows[0] ? rowToWorkflow(rows[0]) : undefined;
    },
    async listSignals(id, q = {}) {
      const rows = await query(`listing the signals of workflow ${id}`, q.all === true ? SQL.all : SQL.pending, [id, q.after ?? 0, Math.min(q.limit ?? 100, MAX_SIGNALS_PAGE)]);
      return rows.map(rowToSignal);
    },
    async ackSignal(id, seq, at) {
      const rows = await query(`acknowledging signal ${seq} of workflow ${id}`, SQL.ack, [at, id, seq]);
      return rows[0] ? rowToSignal(rows[0]) : undefined;
    },
  };
}
