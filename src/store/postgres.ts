/**
 * The PostgreSQL store (`pg`): selected by `store: { url: postgres://... }`,
 * for several toolcap instances sharing approvals, audit and call history.
 *
 * - A `pg.Pool`; with `schema`, every connection uses it (`search_path`), and
 *   it is created at open if missing (tests isolate themselves this way).
 * - Migrations run in one transaction under `pg_advisory_xact_lock`, so two
 *   instances starting at once do not both migrate.
 * - Audit appends are serialised by an advisory transaction lock, so `seq`
 *   order is commit order: a reader paging with `afterSeq` never skips a
 *   record committed later with a lower seq.
 * - Every connection or query failure becomes a {@link StoreUnavailableError}
 *   (with the driver's error as `cause`); callers fail closed.
 * See docs/store.md.
 * @module
 */
import pg from 'pg';
import { MIGRATIONS_TABLE, pendingMigrations } from './migrations.js';
import { hostPort, unavailable } from './postgres-errors.js';
import { PG_IN_FLIGHT_STATEMENTS, insertStarts, interruptStarted } from './postgres-in-flight.js';
import { postgresKeys } from './postgres-keys.js';
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

export interface PostgresStoreOptions {
  /** A schema to keep the tables in (created if missing); a plain lower-case identifier. @default the server's search_path (usually public) */
  schema?: string;
  /** How long to wait for a connection, in ms. @default 5000 */
  connectTimeoutMs?: number;
  /** Most connections the pool opens. @default 10 */
  maxConnections?: number;
}

/** First keys of the two-key advisory locks (the second is a hash of the schema). */
const MIGRATION_LOCK = 74_020_001;
const AUDIT_LOCK = 74_020_002;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const placeholders = (n: number, from = 1): string => Array.from({ length: n }, (_, i) => `$${i + from}::text`).join(', ');

/** Rows per multi-row insert of call outcomes (9 or 8 parameters a row, far below PostgreSQL's 65,535). */
const OUTCOME_CHUNK = 500;

/** INSERT of n call records in one statement. */
function insertCallsSql(n: number): string {
  const rows = Array.from({ length: n }, (_, r) => {
    const b = r * CALL_COLUMNS.length;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}::double precision, $${b + 8}, $${b + 9})`;
  });
  return `INSERT INTO calls (${CALL_COLUMNS.join(', ')}) VALUES ${rows.join(', ')}`;
}

/** INSERT of n audit lines in one statement, in the given order, under the audit lock (seq order is commit order). */
function insertAuditsSql(n: number): string {
  const width = AUDIT_COLUMNS.length + 1;
  const rows = Array.from({ length: n }, (_, r) => `($${r * width + 1}::int, ${placeholders(AUDIT_COLUMNS.length, r * width + 2)})`);
  return `INSERT INTO audit (${AUDIT_COLUMNS.join(', ')})
    SELECT ${AUDIT_COLUMNS.map((c) => `v.${c}`).join(', ')}
    FROM (VALUES ${rows.join(', ')}) AS v(ord, ${AUDIT_COLUMNS.join(', ')}),
         (SELECT pg_advisory_xact_lock(${AUDIT_LOCK}, hashtext(current_schema()))) AS serialise
    ORDER BY v.ord`;
}

/** The statements, exported so the crash test's child writes exactly as the store does. */
export const PG_STATEMENTS = {
  insertApproval: `INSERT INTO approvals (${APPROVAL_COLUMNS.join(', ')}) VALUES (${placeholders(APPROVAL_COLUMNS.length)})`,
  /** Takes the audit lock first, so seq order is commit order. */
  insertAudit: `INSERT INTO audit (${AUDIT_COLUMNS.join(', ')})
    SELECT ${placeholders(AUDIT_COLUMNS.length)}
    FROM (SELECT pg_advisory_xact_lock(${AUDIT_LOCK}, hashtext(current_schema()))) AS serialise
    RETURNING seq`,
  insertCall: `INSERT INTO calls (${CALL_COLUMNS.join(', ')}) VALUES ($1, $2, $3, $4, $5, $6, $7::double precision, $8, $9)`,
  updateApproval: `UPDATE approvals SET
      status = $3,
      decided_by = CASE WHEN $4::boolean THEN $5::text ELSE decided_by END,
      decided_at = CASE WHEN $6::boolean THEN $7::text ELSE decided_at END,
      note = CASE WHEN $8::boolean THEN $9::text ELSE note END,
      result = CASE WHEN $10::boolean THEN $11::text ELSE result END,
      decided_by_principal = CASE WHEN $12::boolean THEN $13::text ELSE decided_by_principal END,
      decided_via = CASE WHEN $14::boolean THEN $15::text ELSE decided_via END,
      outcome = CASE WHEN $16::boolean THEN $17::text ELSE outcome END
    WHERE id = $1 AND status = $2
    RETURNING *`,
  getApproval: 'SELECT * FROM approvals WHERE id = $1',
} as const;

/** The URL without its password, for messages and `location`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1@');
  }
}

/** Open the PostgreSQL store at `url` (applying pending migrations); rejects with StoreUnavailableError when unreachable. */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store & KeyStore> {
  const location = redactUrl(url);
  const server = hostPort(url);
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new TypeError(`The PostgreSQL schema "${schema}" is not a plain lower-case identifier (a-z, 0-9, _).`);
  }
  const config: pg.PoolConfig = {
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    max: options.maxConnections ?? 10,
    ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
  };
  const pool = new pg.Pool(config);
  // An idle connection dropped by the server: the next query reports it.
  pool.on('error', () => undefined);
  const fail = (what: string, err: unknown): Error => unavailable(location, server, what, err);
  try {
    await migrate(pool, schema, location, fail);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return new PostgresStore(pool, location, fail);
}

async function migrate(pool: pg.Pool, schema: string | undefined, location: string, fail: (what: string, err: unknown) => Error): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw fail('connecting', err);
  }
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}, hashtext(COALESCE($1::text, current_schema(), '')))`, [schema ?? null]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(MIGRATIONS_TABLE.postgres);
    const { rows } = await client.query<{ v: number }>('SELECT COALESCE(MAX(version), 0)::int AS v FROM toolcap_migrations');
    for (const m of pendingMigrations(Number(rows[0]?.v ?? 0), location)) {
      for (const sql of m.postgres) await client.query(sql);
      await client.query('INSERT INTO toolcap_migrations (version, applied_at) VALUES ($1, $2)', [m.version, new Date().toISOString()]);
    }
    await client.query('COMMIT');
    client.release();
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(true);
    if (err instanceof StoreVersionError) throw err;
    throw fail('migrating the schema', err);
  }
}

type Row = Record<string, unknown>;

class PostgresStore implements Store, KeyStore {
  readonly kind = 'postgres' as const;
  readonly location: string;
  #pool: pg.Pool;
  #fail: (what: string, err: unknown) => Error;
  #closed = false;
  #keys: KeyStore;

  constructor(pool: pg.Pool, location: string, fail: (what: string, err: unknown) => Error) {
    this.#pool = pool;
    this.location = location;
    this.#fail = fail;
    this.#keys = postgresKeys((what, sql, params) => this.#query(what, sql, params));
  }

  async #query(what: string, sql: string, params: unknown[] = []): Promise<Row[]> {
    if (this.#closed) throw new StoreUnavailableError(`PostgreSQL store ${this.location} is closed; ${what} refused`);
    try {
      const res = await this.#pool.query<Row>(sql, params);
      return res.rows;
    } catch (err) {
      throw this.#fail(what, err);
    }
  }

  async createApproval(record: ApprovalRecord): Promise<void> {
    await this.#query(`creating approval ${record.id}`, PG_STATEMENTS.insertApproval, approvalValues(record));
  }

  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    const rows = await this.#query(`reading approval ${id}`, PG_STATEMENTS.getApproval, [id]);
    return rows[0] ? rowToApproval(rows[0]) : undefined;
  }

  async listApprovals(query: ApprovalQuery = {}): Promise<ApprovalRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.status !== undefined) (params.push(query.status), where.push(`status = $${params.length}`));
    if (query.tool !== undefined) (params.push(query.tool), where.push(`tool = $${params.length}`));
    if (query.requestedByPrincipal !== undefined) (params.push(query.requestedByPrincipal), where.push(`requested_by_principal = $${params.length}`));
    params.push(queryLimit(query.limit, 100));
    const sql = `SELECT * FROM approvals${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, ord DESC LIMIT $${params.length}`;
    return (await this.#query('listing approvals', sql, params)).map(rowToApproval);
  }

  async updateApproval(id: string, from: ApprovalStatus, update: ApprovalUpdate): Promise<ApprovalRecord | undefined> {
    const p = updateParams(update);
    const rows = await this.#query(`updating approval ${id}`, PG_STATEMENTS.updateApproval, [
      id, from, update.status,
      p.setDecidedBy === 1, p.decidedBy,
      p.setDecidedAt === 1, p.decidedAt,
      p.setNote === 1, p.note,
      p.setResult === 1, p.result,
      p.setDecidedByPrincipal === 1, p.decidedByPrincipal,
      p.setDecidedVia === 1, p.decidedVia,
      p.setOutcome === 1, p.outcome,
    ]);
    return rows[0] ? rowToApproval(rows[0]) : undefined;
  }

  async appendAudit(record: NewAuditRecord): Promise<AuditRecord> {
    const values = auditValues(record);
    const rows = await this.#query('appending to the audit log', PG_STATEMENTS.insertAudit, values);
    // the record as stored: detail is a copy read back from its JSON text
    return rowToAudit({ seq: rows[0]?.seq, ...Object.fromEntries(AUDIT_COLUMNS.map((c, i) => [c, values[i]])) });
  }

  async listAudit(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.afterSeq !== undefined) (params.push(query.afterSeq), where.push(`seq > $${params.length}`));
    if (query.tool !== undefined) (params.push(query.tool), where.push(`tool = $${params.length}`));
    if (query.callId !== undefined) (params.push(query.callId), where.push(`call_id = $${params.length}`));
    params.push(queryLimit(query.limit, 100));
    const sql = `SELECT * FROM audit${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq ASC LIMIT $${params.length}`;
    return (await this.#query('reading the audit log', sql, params)).map(rowToAudit);
  }

  async recordCall(record: CallRecord): Promise<void> {
    await this.#query(`recording call ${record.callId}`, PG_STATEMENTS.insertCall, callValues(record));
  }

  async recordOutcomes(outcomes: readonly CallOutcomeRecord[]): Promise<void> {
    await this.#transaction(`recording ${outcomes.length} call outcomes`, async (client) => {
      // multi-row statements, in chunks: three round trips per chunk instead of three per call
      for (let i = 0; i < outcomes.length; i += OUTCOME_CHUNK) {
        const chunk = outcomes.slice(i, i + OUTCOME_CHUNK);
        await client.query(insertCallsSql(chunk.length), chunk.flatMap((o) => callValues(o.call)));
        await client.query(insertAuditsSql(chunk.length), chunk.flatMap((o, k) => [k, ...auditValues(o.audit)]));
        await client.query(PG_IN_FLIGHT_STATEMENTS.remove, [chunk.map((o) => o.call.callId)]);
      }
    });
  }

  async recordStarts(records: readonly NewAuditRecord[]): Promise<void> {
    await this.#transaction(`recording ${records.length} call starts`, (client) => insertStarts(client, PG_STATEMENTS.insertAudit, records));
  }

  interruptCalls(options: { at: string; before: string }): Promise<InterruptedCall[]> {
    return this.#transaction('marking interrupted calls', (client) => interruptStarted(client, PG_STATEMENTS.insertAudit, options.at, options.before));
  }

  /** Run `work` in one transaction on one pooled connection; any failure rolls back and becomes a StoreUnavailableError. */
  async #transaction<T>(what: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError(`PostgreSQL store ${this.location} is closed; ${what} refused`);
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw this.#fail('connecting', err);
    }
    try {
      await client.query('BEGIN');
      const out = await work(client);
      await client.query('COMMIT');
      client.release();
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(true);
      throw this.#fail(what, err);
    }
  }

  async listCalls(query: CallQuery = {}): Promise<CallRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.since !== undefined) (params.push(query.since), where.push(`started_at >= $${params.length}`));
    if (query.tool !== undefined) (params.push(query.tool), where.push(`tool = $${params.length}`));
    params.push(queryLimit(query.limit, 1000));
    const sql = `SELECT * FROM calls${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, id DESC LIMIT $${params.length}`;
    return (await this.#query('listing calls', sql, params)).map(rowToCall);
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

  async ping(): Promise<void> {
    await this.#query('ping', 'SELECT 1 FROM toolcap_migrations LIMIT 1');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#pool.end();
    } catch (err) {
      throw this.#fail('closing', err);
    }
  }
}
