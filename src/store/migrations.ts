/**
 * The store's schema: versioned migrations for both back ends, and the
 * mapping between records and table rows (shared by SQLite and PostgreSQL).
 *
 * Migrations are an ordered list; each has a version (1, 2, ...), and the SQL
 * for each back end. At open, the store applies the pending ones in order,
 * inside one transaction, and records each in `toolcap_migrations`. A database
 * whose highest version is unknown here (written by a newer toolcap) is
 * refused with {@link StoreVersionError}. Never edit a released migration:
 * add a new one.
 *
 * JSON values are kept as TEXT (`JSON.stringify`) in both back ends, not
 * JSONB: JSONB refuses `\u0000` and lone surrogates, which JSON.stringify may
 * produce, and the exact text round-trips. Times are TEXT (ISO 8601, UTC), in
 * PostgreSQL with the "C" collation so they sort by code point, as in SQLite.
 * @module
 */
import { StoreVersionError, type ApprovalRecord, type ApprovalStatus, type AuditRecord, type CallOutcome, type CallRecord } from './types.js';

export interface Migration {
  version: number;
  description: string;
  /** Statements run in order, in the migration's transaction. */
  sqlite: string[];
  postgres: string[];
}

/** Created before any migration runs (it records them). */
export const MIGRATIONS_TABLE = {
  sqlite: 'CREATE TABLE IF NOT EXISTS toolcap_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
  postgres: 'CREATE TABLE IF NOT EXISTS toolcap_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
} as const;

const STATUSES = `('pending','approved','denied','expired','void','executed','failed')`;
const OUTCOMES = `('ok','error','timeout','rejected')`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'approvals, append-only audit log, call outcomes',
    sqlite: [
      `CREATE TABLE approvals (
        id TEXT PRIMARY KEY NOT NULL,
        tool TEXT NOT NULL,
        tool_key TEXT NOT NULL,
        persona TEXT,
        arguments TEXT NOT NULL,
        arguments_hash TEXT NOT NULL,
        manifest_hash TEXT NOT NULL,
        requested_by TEXT,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ${STATUSES}),
        decided_by TEXT,
        decided_at TEXT,
        note TEXT,
        result TEXT NOT NULL
      )`,
      'CREATE INDEX approvals_status_created ON approvals (status, created_at)',
      'CREATE INDEX approvals_tool_created ON approvals (tool, created_at)',
      'CREATE INDEX approvals_created ON approvals (created_at)',
      `CREATE TABLE audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        tool TEXT,
        call_id TEXT,
        persona TEXT,
        actor TEXT,
        detail TEXT NOT NULL
      )`,
      'CREATE INDEX audit_tool_seq ON audit (tool, seq)',
      'CREATE INDEX audit_call_seq ON audit (call_id, seq)',
      `CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only: UPDATE refused'); END`,
      `CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only: DELETE refused'); END`,
      `CREATE TABLE calls (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        provider TEXT,
        job TEXT,
        persona TEXT,
        started_at TEXT NOT NULL,
        duration_ms REAL NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ${OUTCOMES}),
        error_code TEXT
      )`,
      'CREATE INDEX calls_tool_started ON calls (tool, started_at)',
      'CREATE INDEX calls_started ON calls (started_at)',
    ],
    postgres: [
      `CREATE TABLE approvals (
        ord BIGSERIAL NOT NULL,
        id TEXT PRIMARY KEY NOT NULL,
        tool TEXT NOT NULL,
        tool_key TEXT NOT NULL,
        persona TEXT,
        arguments TEXT NOT NULL,
        arguments_hash TEXT NOT NULL,
        manifest_hash TEXT NOT NULL,
        requested_by TEXT,
        reason TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        expires_at TEXT COLLATE "C" NOT NULL,
        status TEXT NOT NULL CHECK (status IN ${STATUSES}),
        decided_by TEXT,
        decided_at TEXT COLLATE "C",
        note TEXT,
        result TEXT NOT NULL
      )`,
      'CREATE INDEX approvals_status_created ON approvals (status, created_at, ord)',
      'CREATE INDEX approvals_tool_created ON approvals (tool, created_at, ord)',
      'CREATE INDEX approvals_created ON approvals (created_at, ord)',
      `CREATE TABLE audit (
        seq BIGSERIAL PRIMARY KEY,
        at TEXT COLLATE "C" NOT NULL,
        kind TEXT NOT NULL,
        tool TEXT,
        call_id TEXT,
        persona TEXT,
        actor TEXT,
        detail TEXT NOT NULL
      )`,
      'CREATE INDEX audit_tool_seq ON audit (tool, seq)',
      'CREATE INDEX audit_call_seq ON audit (call_id, seq)',
      `CREATE FUNCTION toolcap_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN RAISE EXCEPTION 'audit is append-only: % refused', TG_OP; END $$`,
      `CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit
       FOR EACH STATEMENT EXECUTE FUNCTION toolcap_audit_append_only()`,
      `CREATE TABLE calls (
        id BIGSERIAL PRIMARY KEY,
        call_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        provider TEXT,
        job TEXT,
        persona TEXT,
        started_at TEXT COLLATE "C" NOT NULL,
        duration_ms DOUBLE PRECISION NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ${OUTCOMES}),
        error_code TEXT
      )`,
      'CREATE INDEX calls_tool_started ON calls (tool, started_at)',
      'CREATE INDEX calls_started ON calls (started_at)',
    ],
  },
];

/** The highest migration version this toolcap knows. */
export const LATEST_VERSION: number = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

/**
 * The migrations to apply to a database at `current` (0 for a new one), in
 * order. Throws StoreVersionError when the database is newer than this toolcap.
 */
export function pendingMigrations(current: number, where: string): Migration[] {
  if (current > LATEST_VERSION) {
    throw new StoreVersionError(
      `The store at ${where} has schema version ${current}, but this toolcap knows versions up to ${LATEST_VERSION}: it was written by a newer toolcap. Upgrade toolcap, or point it at another store.`,
    );
  }
  return [...MIGRATIONS].filter((m) => m.version > current).sort((a, b) => a.version - b.version);
}

// ---------------------------------------------------------------------------
// Rows: the column values of each record, in the same order for both back ends.

/** JSON text of a value; `undefined` is stored as `null`. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value) ?? 'null';
}

/** The value of JSON text read back; JSON.parse keeps `__proto__` as an own data key. */
export function fromJsonText(text: unknown): unknown {
  if (typeof text !== 'string') throw new TypeError(`a JSON column held ${typeof text}, not text`);
  return JSON.parse(text) as unknown;
}

/** Column names of `approvals`, in insert order. */
export const APPROVAL_COLUMNS = [
  'id', 'tool', 'tool_key', 'persona', 'arguments', 'arguments_hash', 'manifest_hash', 'requested_by', 'reason',
  'created_at', 'expires_at', 'status', 'decided_by', 'decided_at', 'note', 'result',
] as const;

export function approvalValues(r: ApprovalRecord): unknown[] {
  return [
    r.id, r.tool, r.toolKey, r.persona, toJsonText(r.arguments), r.argumentsHash, r.manifestHash, r.requestedBy, r.reason,
    r.createdAt, r.expiresAt, r.status, r.decidedBy, r.decidedAt, r.note, toJsonText(r.result),
  ];
}

type Row = Record<string, unknown>;

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function rowToApproval(row: Row): ApprovalRecord {
  return {
    id: str(row.id),
    tool: str(row.tool),
    toolKey: str(row.tool_key),
    persona: strOrNull(row.persona),
    arguments: fromJsonText(row.arguments),
    argumentsHash: str(row.arguments_hash),
    manifestHash: str(row.manifest_hash),
    requestedBy: strOrNull(row.requested_by),
    reason: str(row.reason),
    createdAt: str(row.created_at),
    expiresAt: str(row.expires_at),
    status: str(row.status) as ApprovalStatus,
    decidedBy: strOrNull(row.decided_by),
    decidedAt: strOrNull(row.decided_at),
    note: strOrNull(row.note),
    result: fromJsonText(row.result),
  };
}

/** Column names of `audit` a caller supplies (seq is assigned). */
export const AUDIT_COLUMNS = ['at', 'kind', 'tool', 'call_id', 'persona', 'actor', 'detail'] as const;

export function auditValues(r: Omit<AuditRecord, 'seq'>): unknown[] {
  return [r.at, r.kind, r.tool, r.callId, r.persona, r.actor, toJsonText(r.detail)];
}

export function rowToAudit(row: Row): AuditRecord {
  return {
    seq: Number(row.seq),
    at: str(row.at),
    kind: str(row.kind),
    tool: strOrNull(row.tool),
    callId: strOrNull(row.call_id),
    persona: strOrNull(row.persona),
    actor: strOrNull(row.actor),
    detail: fromJsonText(row.detail),
  };
}

export const CALL_COLUMNS = ['call_id', 'tool', 'provider', 'job', 'persona', 'started_at', 'duration_ms', 'outcome', 'error_code'] as const;

export function callValues(r: CallRecord): unknown[] {
  return [r.callId, r.tool, r.provider, r.job, r.persona, r.startedAt, r.durationMs, r.outcome, r.errorCode];
}

export function rowToCall(row: Row): CallRecord {
  return {
    callId: str(row.call_id),
    tool: str(row.tool),
    provider: strOrNull(row.provider),
    job: strOrNull(row.job),
    persona: strOrNull(row.persona),
    startedAt: str(row.started_at),
    durationMs: Number(row.duration_ms),
    outcome: str(row.outcome) as CallOutcome,
    errorCode: strOrNull(row.error_code),
  };
}

/** A query's `limit`: the default when absent or not a number, else a whole number from 0 to 1,000,000. */
export function queryLimit(limit: number | undefined, fallback: number): number {
  if (limit === undefined || Number.isNaN(limit)) return fallback;
  return Math.max(0, Math.min(1_000_000, Math.trunc(limit)));
}

/**
 * The set part of a compare-and-set update, as flags and values: each field is
 * changed only when the update names it (`undefined` leaves it as it is).
 */
export function updateParams(update: { decidedBy?: string | null; decidedAt?: string | null; note?: string | null; result?: unknown }): {
  setDecidedBy: number; decidedBy: string | null;
  setDecidedAt: number; decidedAt: string | null;
  setNote: number; note: string | null;
  setResult: number; result: string;
} {
  return {
    setDecidedBy: update.decidedBy === undefined ? 0 : 1,
    decidedBy: update.decidedBy ?? null,
    setDecidedAt: update.decidedAt === undefined ? 0 : 1,
    decidedAt: update.decidedAt ?? null,
    setNote: update.note === undefined ? 0 : 1,
    note: update.note ?? null,
    setResult: update.result === undefined ? 0 : 1,
    result: toJsonText(update.result),
  };
}
