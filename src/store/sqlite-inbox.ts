/**
 * The workflow inbox in the SQLite store: {@link WorkflowInbox} over the
 * statements of workflow-inbox.ts. A delivery is one synchronous
 * transaction, so two deliveries never share a seq.
 * @module
 */
import type { SqliteStatement } from './sqlite-driver.js';
import { INBOX_SQL, MAX_SIGNALS_PAGE, rowToSignal, rowToWorkflow, signalValues, type InboxDelivery, type InboxOutcome, type WorkflowInbox } from './workflow-inbox.js';

type Row = Record<string, unknown>;

/** The inbox methods of a SQLite store. */
export function sqliteInbox(
  run: <T>(what: string, fn: () => T) => Promise<T>,
  stmt: (sql: string) => SqliteStatement,
  transaction: <T>(fn: () => T) => T,
): WorkflowInbox {
  const deliver = (d: InboxDelivery): InboxOutcome =>
    transaction(() => {
      const started = d.start && stmt(INBOX_SQL.startWorkflow).get(d.workflowId, d.workflowType, d.workflowName, d.bootstrap, d.at) !== undefined;
      const wf = stmt(INBOX_SQL.getWorkflow).get(d.workflowId) as Row | undefined;
      if (!wf) return { outcome: 'not_running' };
      const dup = stmt(INBOX_SQL.findKey).get(d.workflowId, d.idempotencyKey) as Row | undefined;
      if (dup) return { outcome: 'duplicate', started: false, seq: Number(dup.seq) };
      const seq = Number(wf.last_seq) + 1;
      stmt(INBOX_SQL.insertSignal).run(...signalValues(d, seq));
      stmt(INBOX_SQL.bumpSeq).run(seq, d.workflowId);
      return { outcome: 'stored', started, seq };
    });
  return {
    deliver: (d) => run(`delivering a signal to workflow ${d.workflowId}`, () => deliver(d)),
    getWorkflow: (id) =>
      run(`reading workflow ${id}`, () => {
        const row = stmt(INBOX_SQL.getWorkflow).get(id) as Row | undefined;
        return row ? rowToWorkflow(row) : undefined;
      }),
    listSignals: (id, q = {}) =>
      run(`listing the signals of workflow ${id}`, () =>
        (stmt(q.all === true ? INBOX_SQL.all : INBOX_SQL.pending).all(id, q.after ?? 0, Math.min(q.limit ?? 100, MAX_SIGNALS_PAGE)) as Row[]).map(rowToSignal),
      ),
    ackSignal: (id, seq, at) =>
      run(`acknowledging signal ${seq} of workflow ${id}`, () => {
        const row = stmt(INBOX_SQL.ack).get(at, id, seq) as Row | undefined;
        return row ? rowToSignal(row) : undefined;
      }),
  };
}
