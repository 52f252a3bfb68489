/**
 * The store's schema: versioned migrations for both back ends (the mapping
 * between records and rows is in `rows.ts`).
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
import { DECISION_CHANNELS, StoreVersionError } from './types.js';
import { OAUTH_MIGRATION } from './oauth-tokens.js';
import { INBOX_MIGRATION } from './workflow-inbox.js';
import { LEARNED_MIGRATION } from './learned-tools.js';
import { CLUSTER_MIGRATION } from './cluster-bus.js';

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
/** Migration 4 adds `interrupted`; released migrations keep the list they had. */
const STATUSES_4 = `('pending','approved','denied','expired','void','executed','failed','interrupted')`;
/** Every column of `approvals` up to migration 3, in table order: migration 4 copies them. */
const APPROVAL_COLUMNS_3 =
  'id, tool, tool_key, persona, arguments, arguments_hash, manifest_hash, requested_by, reason, created_at, expires_at, status, decided_by, decided_at, note, result, requested_by_principal, decided_by_principal, decided_via, outcome';
const OUTCOMES = `('ok','error','timeout','rejected')`;
const CHANNELS = `(${DECISION_CHANNELS.map((c) => `'${c}'`).join(',')})`;

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
  {
    version: 2,
    description: 'API keys; the authenticated principals of approvals and where they were decided',
    sqlite: [
      `CREATE TABLE keys (
        id TEXT PRIMARY KEY NOT NULL,
        principal TEXT NOT NULL,
        roles TEXT NOT NULL,
        personas TEXT NOT NULL,
        default_persona TEXT,
        approves TEXT NOT NULL,
        hash TEXT NOT NULL,
        salt TEXT NOT NULL,
        params TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        expires_at TEXT,
        revoked_at TEXT
      )`,
      'CREATE INDEX keys_principal_created ON keys (principal, created_at)',
      'CREATE INDEX keys_created ON keys (created_at)',
      'ALTER TABLE approvals ADD COLUMN requested_by_principal TEXT',
      'ALTER TABLE approvals ADD COLUMN decided_by_principal TEXT',
      `ALTER TABLE approvals ADD COLUMN decided_via TEXT CHECK (decided_via IN ${CHANNELS})`,
    ],
    postgres: [
      `CREATE TABLE keys (
        ord BIGSERIAL NOT NULL,
        id TEXT PRIMARY KEY NOT NULL,
        principal TEXT NOT NULL,
        roles TEXT NOT NULL,
        personas TEXT NOT NULL,
        default_persona TEXT,
        approves TEXT NOT NULL,
        hash TEXT NOT NULL,
        salt TEXT NOT NULL,
        params TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        last_used_at TEXT COLLATE "C",
        expires_at TEXT COLLATE "C",
        revoked_at TEXT COLLATE "C"
      )`,
      'CREATE INDEX keys_principal_created ON keys (principal, created_at, ord)',
      'CREATE INDEX keys_created ON keys (created_at, ord)',
      'ALTER TABLE approvals ADD COLUMN requested_by_principal TEXT',
      'ALTER TABLE approvals ADD COLUMN decided_by_principal TEXT',
      `ALTER TABLE approvals ADD COLUMN decided_via TEXT CHECK (decided_via IN ${CHANNELS})`,
    ],
  },
  {
    version: 3,
    description: 'the outcome of an approved call, kept with its approval; approvals by requesting principal',
    sqlite: [
      'ALTER TABLE approvals ADD COLUMN outcome TEXT',
      'CREATE INDEX approvals_principal_status ON approvals (requested_by_principal, status, created_at)',
    ],
    postgres: [
      'ALTER TABLE approvals ADD COLUMN outcome TEXT',
      'CREATE INDEX approvals_principal_status ON approvals (requested_by_principal, status, created_at, ord)',
    ],
  },
  {
    version: 4,
    description: 'approvals bound to code (code_hash) and the interrupted status; calls in flight (started, no outcome yet)',
    // SQLite cannot change a CHECK constraint: the table is rebuilt, keeping rowids (the tie-break of listings)
    sqlite: [
      `CREATE TABLE approvals_4 (
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
        status TEXT NOT NULL CHECK (status IN ${STATUSES_4}),
        decided_by TEXT,
        decided_at TEXT,
        note TEXT,
        result TEXT NOT NULL,
        requested_by_principal TEXT,
        decided_by_principal TEXT,
        decided_via TEXT CHECK (decided_via IN ${CHANNELS}),
        outcome TEXT,
        code_hash TEXT
      )`,
      `INSERT INTO approvals_4 (rowid, ${APPROVAL_COLUMNS_3}) SELECT rowid, ${APPROVAL_COLUMNS_3} FROM approvals`,
      'DROP TABLE approvals',
      'ALTER TABLE approvals_4 RENAME TO approvals',
      'CREATE INDEX approvals_status_created ON approvals (status, created_at)',
      'CREATE INDEX approvals_tool_created ON approvals (tool, created_at)',
      'CREATE INDEX approvals_created ON approvals (created_at)',
      'CREATE INDEX approvals_principal_status ON approvals (requested_by_principal, status, created_at)',
      `CREATE TABLE calls_in_flight (
        call_id TEXT PRIMARY KEY NOT NULL,
        seq INTEGER NOT NULL,
        tool TEXT NOT NULL,
        persona TEXT,
        started_at TEXT NOT NULL
      )`,
    ],
    postgres: [
      'ALTER TABLE approvals DROP CONSTRAINT approvals_status_check',
      `ALTER TABLE approvals ADD CONSTRAINT approvals_status_check CHECK (status IN ${STATUSES_4})`,
      'ALTER TABLE approvals ADD COLUMN code_hash TEXT',
      `CREATE TABLE calls_in_flight (
        call_id TEXT PRIMARY KEY NOT NULL,
        seq BIGINT NOT NULL,
        tool TEXT NOT NULL,
        persona TEXT,
        started_at TEXT COLLATE "C" NOT NULL
      )`,
      'CREATE INDEX calls_in_flight_started ON calls_in_flight (started_at)',
    ],
  },
  OAUTH_MIGRATION,
  INBOX_MIGRATION,
  LEARNED_MIGRATION,
  CLUSTER_MIGRATION,
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
