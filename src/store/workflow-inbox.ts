/**
 * The durable workflow inbox: the embedded dispatcher's half in the store.
 * A workflow is a row keyed by its id (started once, with its bootstrap);
 * its signals are rows numbered per workflow (`seq` 1, 2, …) in the order
 * they arrived, each with the idempotency key of its event, unique per
 * workflow, so a replayed event is not stored twice. Workers read the
 * pending signals after a seq and acknowledge them (at-least-once: a signal
 * stays pending until acknowledged).
 *
 * The SQL of both back ends and migration 6 are here; the queries run in
 * sqlite-inbox.ts and postgres-inbox.ts.
 * @module
 */

/** One workflow in the inbox. */
export interface WorkflowRecord {
  id: string;
  /** The route's `workflowType` (the webhook's query parameter). */
  workflowType: string;
  /** The route's `workflowName` (what a worker runs). */
  workflowName: string;
  /** The route's `bootstrap` (`none` when the route named none). */
  bootstrap: string;
  startedAt: string;
  /** Signals stored so far (the seq of the latest). */
  signals: number;
}

/** One signal of a workflow. */
export interface SignalRecord {
  workflowId: string;
  seq: number;
  signalName: string;
  idempotencyKey: string;
  payload: unknown;
  receivedAt: string;
  /** When a worker acknowledged it; null while pending. */
  ackedAt: string | null;
}

/** What the inbox is asked to keep: one event for one workflow. */
export interface InboxDelivery {
  workflowId: string;
  workflowType: string;
  workflowName: string;
  bootstrap: string;
  signalName: string;
  /** Start the workflow when it is not there (`signalWithStart`); else it must be (`signalOnly`). */
  start: boolean;
  payload: unknown;
  idempotencyKey: string;
  at: string;
}

/** What became of a delivery. */
export type InboxOutcome =
  | { outcome: 'stored'; started: boolean; seq: number }
  | { outcome: 'duplicate'; started: false; seq: number }
  | { outcome: 'not_running' };

/** The inbox methods both back ends keep (`store.workflowInbox`). */
export interface WorkflowInbox {
  /** Start-or-signal in one transaction: the workflow row (when `start`), then the signal unless its key is already stored. */
  deliver(delivery: InboxDelivery): Promise<InboxOutcome>;
  getWorkflow(id: string): Promise<WorkflowRecord | undefined>;
  /** Signals of a workflow with seq above `after`, oldest first; only pending ones unless `all`. */
  listSignals(workflowId: string, query?: { after?: number; limit?: number; all?: boolean }): Promise<SignalRecord[]>;
  /** Acknowledge one signal (again is a no-op keeping the first time); undefined when there is no such signal. */
  ackSignal(workflowId: string, seq: number, at: string): Promise<SignalRecord | undefined>;
}

/** A store that keeps a workflow inbox. */
export interface InboxStore {
  readonly workflowInbox: WorkflowInbox;
}

type Row = Record<string, unknown>;

export function rowToWorkflow(row: Row): WorkflowRecord {
  return {
    id: String(row.id),
    workflowType: String(row.workflow_type),
    workflowName: String(row.workflow_name),
    bootstrap: String(row.bootstrap),
    startedAt: String(row.started_at),
    signals: Number(row.last_seq),
  };
}

export function rowToSignal(row: Row): SignalRecord {
  return {
    workflowId: String(row.workflow_id),
    seq: Number(row.seq),
    signalName: String(row.signal_name),
    idempotencyKey: String(row.idempotency_key),
    payload: JSON.parse(String(row.payload)) as unknown,
    receivedAt: String(row.received_at),
    ackedAt: row.acked_at === null || row.acked_at === undefined ? null : String(row.acked_at),
  };
}

/** At most this many signals per listing. */
export const MAX_SIGNALS_PAGE = 1000;

/** The statements, with `?` placeholders (PostgreSQL numbers them). */
export const INBOX_SQL = {
  startWorkflow: `INSERT INTO workflows (id, workflow_type, workflow_name, bootstrap, started_at, last_seq) VALUES (?, ?, ?, ?, ?, 0)
    ON CONFLICT (id) DO NOTHING RETURNING id`,
  getWorkflow: 'SELECT * FROM workflows WHERE id = ?',
  lockWorkflow: 'SELECT * FROM workflows WHERE id = ? FOR UPDATE',
  findKey: 'SELECT seq FROM workflow_signals WHERE workflow_id = ? AND idempotency_key = ?',
  insertSignal: `INSERT INTO workflow_signals (workflow_id, seq, signal_name, idempotency_key, payload, received_at, acked_at) VALUES (?, ?, ?, ?, ?, ?, NULL)`,
  bumpSeq: 'UPDATE workflows SET last_seq = ? WHERE id = ?',
  pending: 'SELECT * FROM workflow_signals WHERE workflow_id = ? AND seq > ? AND acked_at IS NULL ORDER BY seq LIMIT ?',
  all: 'SELECT * FROM workflow_signals WHERE workflow_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  ack: 'UPDATE workflow_signals SET acked_at = COALESCE(acked_at, ?) WHERE workflow_id = ? AND seq = ? RETURNING *',
} as const;

/** The values of a signal insert, in {@link INBOX_SQL}.insertSignal order. */
export const signalValues = (d: InboxDelivery, seq: number): unknown[] => [d.workflowId, seq, d.signalName, d.idempotencyKey, JSON.stringify(d.payload ?? null), d.at];

/** Migration 6: the workflow inbox (a `Migration` of migrations.ts, which lists it). */
export const INBOX_MIGRATION = {
  version: 6,
  description: 'workflow inbox: workflows by id, their signals in order with idempotency keys (webhook dispatch)',
  sqlite: [
    `CREATE TABLE workflows (
      id TEXT PRIMARY KEY NOT NULL,
      workflow_type TEXT NOT NULL,
      workflow_name TEXT NOT NULL,
      bootstrap TEXT NOT NULL,
      started_at TEXT NOT NULL,
      last_seq INTEGER NOT NULL
    )`,
    `CREATE TABLE workflow_signals (
      workflow_id TEXT NOT NULL REFERENCES workflows (id),
      seq INTEGER NOT NULL,
      signal_name TEXT NOT NULL,
      idempotency_key TEXT NOT NULL,
      payload TEXT NOT NULL,
      received_at TEXT NOT NULL,
      acked_at TEXT,
      PRIMARY KEY (workflow_id, seq),
      UNIQUE (workflow_id, idempotency_key)
    )`,
  ],
  postgres: [
    `CREATE TABLE workflows (
      id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
      workflow_type TEXT NOT NULL,
      workflow_name TEXT NOT NULL,
      bootstrap TEXT NOT NULL,
      started_at TEXT COLLATE "C" NOT NULL,
      last_seq BIGINT NOT NULL
    )`,
    `CREATE TABLE workflow_signals (
      workflow_id TEXT COLLATE "C" NOT NULL REFERENCES workflows (id),
      seq BIGINT NOT NULL,
      signal_name TEXT NOT NULL,
      idempotency_key TEXT NOT NULL,
      payload TEXT NOT NULL,
      received_at TEXT COLLATE "C" NOT NULL,
      acked_at TEXT COLLATE "C",
      PRIMARY KEY (workflow_id, seq),
      UNIQUE (workflow_id, idempotency_key)
    )`,
  ],
};
