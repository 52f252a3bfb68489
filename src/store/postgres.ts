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
 *
 * This module opens and migrates the database and wraps every query and
 * transaction; the queries live per concern in postgres-approvals.ts,
 * postgres-audit.ts, postgres-calls.ts and postgres-keys.ts, the shared
 * statements in postgres-statements.ts.
 * @module
 */
import pg from 'pg';
import { GroupedStore } from './methods.js';
import { MIGRATIONS_TABLE, pendingMigrations } from './migrations.js';
import { postgresApprovals } from './postgres-approvals.js';
import { postgresAudit } from './postgres-audit.js';
import { postgresCalls } from './postgres-calls.js';
import { hostPort, unavailable } from './postgres-errors.js';
import { postgresKeys } from './postgres-keys.js';
import { postgresOAuth } from './postgres-oauth.js';
import type { OAuthTokenStore } from './oauth-tokens.js';
import { postgresInbox } from './postgres-inbox.js';
import type { InboxStore, WorkflowInbox } from './workflow-inbox.js';
import { postgresLearned } from './postgres-learned.js';
import type { LearnedToolStore } from './learned-tools.js';
import type { ClusterBus, ClusterCapable } from './cluster-bus.js';
import { PostgresClusterBus } from './postgres-cluster.js';
import {
  StoreUnavailableError,
  StoreVersionError,
  type KeyStore,
  type Store,
} from './types.js';

export { PG_STATEMENTS } from './postgres-statements.js';

export interface PostgresStoreOptions {
  /** A schema to keep the tables in (created if missing); a plain lower-case identifier. @default the server's search_path (usually public) */
  schema?: string;
  /** How long to wait for a connection, in ms. @default 5000 */
  connectTimeoutMs?: number;
  /** Most connections the pool opens. @default 10 */
  maxConnections?: number;
}

/** First key of the migration advisory lock (the second is a hash of the schema). */
const MIGRATION_LOCK = 74_020_001;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

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
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<Store & KeyStore & OAuthTokenStore & InboxStore & LearnedToolStore> {
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
  return new PostgresStore(pool, location, fail, { url, schema, connectTimeoutMs: options.connectTimeoutMs ?? 5000 });
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

/** What the cluster bus needs to open its own LISTEN connection. */
interface BusTarget {
  url: string;
  schema: string | undefined;
  connectTimeoutMs: number;
}

class PostgresStore extends GroupedStore implements Store, KeyStore, OAuthTokenStore, InboxStore, ClusterCapable {
  readonly kind = 'postgres' as const;
  readonly workflowInbox: WorkflowInbox;
  readonly location: string;
  #pool: pg.Pool;
  #fail: (what: string, err: unknown) => Error;
  #closed = false;
  readonly #bus: BusTarget;

  constructor(pool: pg.Pool, location: string, fail: (what: string, err: unknown) => Error, bus: BusTarget) {
    super();
    this.#bus = bus;
    this.#pool = pool;
    this.location = location;
    this.#fail = fail;
    const query = (what: string, sql: string, params?: unknown[]): Promise<Row[]> => this.#query(what, sql, params);
    this.useGroups({
      approvals: postgresApprovals(query),
      audit: postgresAudit(query),
      calls: postgresCalls(query, (what, work) => this.#transaction(what, work)),
      keys: postgresKeys(query),
      oauth: postgresOAuth(query),
      learned: postgresLearned(query),
    });
    this.workflowInbox = postgresInbox(query, (what, work) => this.#transaction(what, work));
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

















  /** The bus several instances on this store share state through (cluster-bus.ts); it listens on its own connection. */
  clusterBus(instance: string): ClusterBus {
    return new PostgresClusterBus(instance, { ...this.#bus, query: (what, sql, params) => this.#query(what, sql, params) });
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
