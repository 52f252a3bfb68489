/**
 * The SQLite store (`better-sqlite3`): the embedded default, one file
 * (`.toolcap/toolcap.db`) in WAL mode with `synchronous=FULL`, so a method
 * resolves only after its write is committed and synced. Several processes
 * may share the file: writers wait for each other up to the busy timeout.
 *
 * better-sqlite3 is synchronous; the methods are async to match the Store
 * interface, and every database error becomes a rejected
 * {@link StoreUnavailableError} (with the driver's error as `cause`), never a
 * crash. See docs/store.md.
 * @module
 */
import Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MIGRATIONS_TABLE, pendingMigrations } from './migrations.js';
import {
  APPROVAL_COLUMNS,
  AUDIT_COLUMNS,
  CALL_COLUMNS,
  approvalValues,
  auditValues,
  callValues,
  queryLimit,
  rowToApproval,
  rowToAudit,
  rowToCall,
  updateParams,
} from './rows.js';
import { unavailable } from './sqlite-errors.js';
import { SQLITE_IN_FLIGHT_STATEMENTS, insertStarts, interruptStarted } from './sqlite-in-flight.js';
import { sqliteKeys } from './sqlite-keys.js';
import {
  StoreUnavailableError,
  StoreVersionError,
  type ApprovalQuery,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalUpdate,
  type AuditQuery,
  type AuditRecord,
  type CallQuery,
  type CallRecord,
  type CallOutcomeRecord,
  type InterruptedCall,
  type KeyQuery,
  type KeyRecord,
  type KeyStore,
  type NewAuditRecord,
  type Store,
} from './types.js';

export interface SqliteStoreOptions {
  /** How long a write waits for another process holding the write lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * `full` (default): every commit is synced to disk, so it survives a power
   * loss too. `normal`: commits survive the process being killed (WAL keeps
   * them) but the last ones may be lost to a power cut or OS crash; writes
   * are an order of magnitude cheaper.
   */
  synchronous?: SqliteSynchronous;
}

export type SqliteSynchronous = 'full' | 'normal';

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * The pragmas every connection runs at open, in order: the single source for
 * the store and for the crash test's child process.
 */
export function sqlitePragmas(busyTimeoutMs: number = DEFAULT_BUSY_TIMEOUT_MS, synchronous: SqliteSynchronous = 'full'): string[] {
  return ['journal_mode = WAL', `synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`, `busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`, 'foreign_keys = ON'];
}

const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** The write statements, exported so the crash test's child writes exactly as the store does. */
export const SQLITE_STATEMENTS = {
  insertApproval: `INSERT INTO approvals (${APPROVAL_COLUMNS.join(', ')}) VALUES (${placeholders(APPROVAL_COLUMNS.length)})`,
  insertAudit: `INSERT INTO audit (${AUDIT_COLUMNS.join(', ')}) VALUES (${placeholders(AUDIT_COLUMNS.length)}) RETURNING seq`,
  insertCall: `INSERT INTO calls (${CALL_COLUMNS.join(', ')}) VALUES (${placeholders(CALL_COLUMNS.length)})`,
  updateApproval: `UPDATE approvals SET
      status = @status,
      decided_by = CASE WHEN @setDecidedBy THEN @decidedBy ELSE decided_by END,
      decided_at = CASE WHEN @setDecidedAt THEN @decidedAt ELSE decided_at END,
      note = CASE WHEN @setNote THEN @note ELSE note END,
      result = CASE WHEN @setResult THEN @result ELSE result END,
      decided_by_principal = CASE WHEN @setDecidedByPrincipal THEN @decidedByPrincipal ELSE decided_by_principal END,
      decided_via = CASE WHEN @setDecidedVia THEN @decidedVia ELSE decided_via END,
      outcome = CASE WHEN @setOutcome THEN @outcome ELSE outcome END
    WHERE id = @id AND status = @from
    RETURNING *`,
  getApproval: 'SELECT * FROM approvals WHERE id = ?',
} as const;

/** Open (creating if needed) the SQLite store at `path`, applying pending migrations. */
export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<Store & KeyStore> {
  const file = resolve(path);
  let db: Database.Database | undefined;
  try {
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (err) {
      throw unavailable(file, `creating its folder ${dirname(file)}`, err);
    }
    let isDir = false;
    try {
      isDir = statSync(file).isDirectory();
    } catch {
      // absent: created below
    }
    if (isDir) throw new StoreUnavailableError(`SQLite store ${file} is a directory, not a database file; opening it failed`);
    try {
      db = new Database(file, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
      for (const pragma of sqlitePragmas(options.busyTimeoutMs, options.synchronous)) db.pragma(pragma);
      const mode = db.pragma('journal_mode', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') throw new Error(`journal_mode is ${String(mode)}, not wal`);
    } catch (err) {
      throw unavailable(file, 'opening it', err);
    }
    migrate(db, file);
    return new SqliteStore(db, file);
  } catch (err) {
    try {
      db?.close();
    } catch {
      // already failing
    }
    throw err;
  }
}

/** Apply pending migrations in one IMMEDIATE transaction (the write lock serialises concurrent openers). */
function migrate(db: Database.Database, file: string): void {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    throw unavailable(file, 'starting the migration transaction', err);
  }
  try {
    db.exec(MIGRATIONS_TABLE.sqlite);
    const row = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM toolcap_migrations').get() as { v: number };
    const record = db.prepare('INSERT INTO toolcap_migrations (version, applied_at) VALUES (?, ?)');
    for (const m of pendingMigrations(Number(row.v), file)) {
      for (const sql of m.sqlite) db.exec(sql);
      record.run(m.version, new Date().toISOString());
    }
    db.exec('COMMIT');
  } catch (err) {
    try {
      if (db.inTransaction) db.exec('ROLLBACK');
    } catch {
      // the original error matters
    }
    if (err instanceof StoreVersionError) throw err;
    throw unavailable(file, 'migrating its schema', err);
  }
}

type Row = Record<string, unknown>;

class SqliteStore implements Store, KeyStore {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  #db: Database.Database;
  #closed = false;
  #statements = new Map<string, Database.Statement>();
  #keys: KeyStore;

  constructor(db: Database.Database, file: string) {
    this.#db = db;
    this.location = file;
    this.#keys = sqliteKeys((what, fn) => this.#run(what, fn), (sql) => this.#stmt(sql));
  }

  #stmt(sql: string): Database.Statement {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /** Run `fn` against the open database; any error becomes a StoreUnavailableError. */
  #run<T>(what: string, fn: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError(`SQLite store ${this.location} is closed; ${what} refused`));
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(unavailable(this.location, what, err));
    }
  }

  createApproval(record: ApprovalRecord): Promise<void> {
    return this.#run(`creating approval ${record.id}`, () => {
      this.#stmt(SQLITE_STATEMENTS.insertApproval).run(...approvalValues(record));
    });
  }

  getApproval(id: string): Promise<ApprovalRecord | undefined> {
    return this.#run(`reading approval ${id}`, () => {
      const row = this.#stmt(SQLITE_STATEMENTS.getApproval).get(id) as Row | undefined;
      return row ? rowToApproval(row) : undefined;
    });
  }

  listApprovals(query: ApprovalQuery = {}): Promise<ApprovalRecord[]> {
    return this.#run('listing approvals', () => {
      const where: string[] = [];
      const params: unknown[] = [];
      if (query.status !== undefined) (where.push('status = ?'), params.push(query.status));
      if (query.tool !== undefined) (where.push('tool = ?'), params.push(query.tool));
      if (query.requestedByPrincipal !== undefined) (where.push('requested_by_principal = ?'), params.push(query.requestedByPrincipal));
      params.push(queryLimit(query.limit, 100));
      const sql = `SELECT * FROM approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
      return (this.#stmt(sql).all(...params) as Row[]).map(rowToApproval);
    });
  }

  updateApproval(id: string, from: ApprovalStatus, update: ApprovalUpdate): Promise<ApprovalRecord | undefined> {
    return this.#run(`updating approval ${id}`, () => {
      const row = this.#stmt(SQLITE_STATEMENTS.updateApproval).get({ id, from, status: update.status, ...updateParams(update) }) as Row | undefined;
      return row ? rowToApproval(row) : undefined;
    });
  }

  appendAudit(record: NewAuditRecord): Promise<AuditRecord> {
    return this.#run('appending to the audit log', () => {
      const values = auditValues(record);
      const row = this.#stmt(SQLITE_STATEMENTS.insertAudit).get(...values) as { seq: number };
      // the record as stored: detail is a copy read back from its JSON text
      return rowToAudit({ seq: row.seq, ...Object.fromEntries(AUDIT_COLUMNS.map((c, i) => [c, values[i]])) });
    });
  }

  listAudit(query: AuditQuery = {}): Promise<AuditRecord[]> {
    return this.#run('reading the audit log', () => {
      const where: string[] = [];
      const params: unknown[] = [];
      if (query.afterSeq !== undefined) (where.push('seq > ?'), params.push(query.afterSeq));
      if (query.tool !== undefined) (where.push('tool = ?'), params.push(query.tool));
      if (query.callId !== undefined) (where.push('call_id = ?'), params.push(query.callId));
      params.push(queryLimit(query.limit, 100));
      const sql = `SELECT * FROM audit${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq ASC LIMIT ?`;
      return (this.#stmt(sql).all(...params) as Row[]).map(rowToAudit);
    });
  }

  recordCall(record: CallRecord): Promise<void> {
    return this.#run(`recording call ${record.callId}`, () => {
      this.#stmt(SQLITE_STATEMENTS.insertCall).run(...callValues(record));
    });
  }

  recordOutcomes(outcomes: readonly CallOutcomeRecord[]): Promise<void> {
    return this.#run(`recording ${outcomes.length} call outcome${outcomes.length === 1 ? '' : 's'}`, () => {
      const insertCall = this.#stmt(SQLITE_STATEMENTS.insertCall);
      const insertAudit = this.#stmt(SQLITE_STATEMENTS.insertAudit);
      const landed = this.#stmt(SQLITE_IN_FLIGHT_STATEMENTS.remove);
      this.#db.transaction(() => {
        for (const o of outcomes) {
          insertCall.run(...callValues(o.call));
          insertAudit.get(...auditValues(o.audit));
          landed.run(o.call.callId);
        }
      })();
    });
  }

  recordStarts(records: readonly NewAuditRecord[]): Promise<void> {
    return this.#run(`recording ${records.length} call start${records.length === 1 ? '' : 's'}`, () => {
      this.#db.transaction(() => insertStarts((sql) => this.#stmt(sql), SQLITE_STATEMENTS.insertAudit, records))();
    });
  }

  interruptCalls(options: { at: string; before: string }): Promise<InterruptedCall[]> {
    return this.#run('marking interrupted calls', () =>
      this.#db.transaction(() => interruptStarted((sql) => this.#stmt(sql), SQLITE_STATEMENTS.insertAudit, options.at, options.before))(),
    );
  }

  listCalls(query: CallQuery = {}): Promise<CallRecord[]> {
    return this.#run('listing calls', () => {
      const where: string[] = [];
      const params: unknown[] = [];
      if (query.since !== undefined) (where.push('started_at >= ?'), params.push(query.since));
      if (query.tool !== undefined) (where.push('tool = ?'), params.push(query.tool));
      params.push(queryLimit(query.limit, 1000));
      const sql = `SELECT * FROM calls${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, id DESC LIMIT ?`;
      return (this.#stmt(sql).all(...params) as Row[]).map(rowToCall);
    });
  }

  createKey(record: KeyRecord): Promise<void> {
    return this.#keys.createKey(record);
  }

  getKey(id: string): Promise<KeyRecord | undefined> {
    return this.#keys.getKey(id);
  }

  listKeys(query?: KeyQuery): Promise<KeyRecord[]> {
    return this.#keys.listKeys(query);
  }

  revokeKey(id: string, at: string): Promise<KeyRecord | undefined> {
    return this.#keys.revokeKey(id, at);
  }

  touchKey(id: string, at: string): Promise<void> {
    return this.#keys.touchKey(id, at);
  }

  ping(): Promise<void> {
    return this.#run('ping', () => {
      this.#stmt('SELECT COUNT(*) FROM toolcap_migrations').get();
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#statements.clear();
    try {
      this.#db.close();
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(unavailable(this.location, 'closing it', err));
    }
  }
}
