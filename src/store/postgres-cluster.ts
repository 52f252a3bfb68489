/**
 * The {@link ClusterBus} of the PostgreSQL store: notices go out with
 * `pg_notify` on the store's pool and come in on one dedicated connection
 * per instance that `LISTEN`s. That connection is not pooled (a pooled one
 * would lose its `LISTEN` when handed back). When it is lost (server
 * restart, network, an administrator's `pg_terminate_backend`) it is
 * reopened with a growing pause (100 ms doubling to 5 s, ±20 %), and once it
 * listens again the subscriber is told to re-read (`resync`): notices sent
 * in between are gone, the rows they were about are not. TCP keepalive is
 * on so a silently dead peer is noticed too.
 *
 * The channel is named after the schema (`toolcap_` and a hash of it,
 * {@link channelOf}): NOTIFY is per database, and instances on other schemas
 * of the same database must not hear each other.
 * @module
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { errorMessage } from '../model/errors.js';
import { parseNotice, type ClusterBus, type ClusterBusStatus, type ClusterListener, type ClusterNotice, type SharedCircuit } from './cluster-bus.js';

type Row = Record<string, unknown>;
type Query = (what: string, sql: string, params?: unknown[]) => Promise<Row[]>;

/** How the bus reaches the server: the store's own URL and schema, and its pool for writes. */
export interface PostgresClusterOptions {
  url: string;
  schema?: string | undefined;
  connectTimeoutMs: number;
  query: Query;
}

const RECONNECT_BASE_MS = 100;
const RECONNECT_CAP_MS = 5000;

const COLUMNS = ['tool', 'provider', 'consecutive_failures', 'backoff_until', 'changed_at', 'changed_by'] as const;

/**
 * The channel of a schema: `toolcap_` and the first 16 hex digits of the
 * schema's SHA-256. (Cutting `toolcap_<schema>` to PostgreSQL's 63-byte
 * identifier limit made two long schema names with a common prefix share a
 * channel, so tenants heard each other's notices.)
 */
export function channelOf(schema: string): string {
  return `toolcap_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

/** The bus of one instance on a PostgreSQL store. */
export class PostgresClusterBus implements ClusterBus {
  readonly instance: string;
  readonly #o: PostgresClusterOptions;
  #listener: ClusterListener | undefined;
  #client: pg.Client | undefined;
  #channel: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #reconnects = 0;
  #received = 0;
  #lastError: string | undefined;

  constructor(instance: string, options: PostgresClusterOptions) {
    this.instance = instance;
    this.#o = options;
  }

  async start(listener: ClusterListener): Promise<void> {
    this.#listener = listener;
    const rows = await this.#o.query('finding the schema for the cluster channel', 'SELECT current_schema() AS s');
    this.#channel = channelOf(String(rows[0]?.s ?? this.#o.schema ?? 'public'));
    await this.#connect();
  }

  async publish(notice: ClusterNotice): Promise<void> {
    if (!this.#channel) throw new Error('the cluster bus has not started');
    await this.#o.query(`sending a ${notice.kind} notice`, 'SELECT pg_notify($1, $2)', [this.#channel, JSON.stringify(notice)]);
  }

  async putCircuits(circuits: readonly SharedCircuit[]): Promise<void> {
    if (circuits.length === 0) return;
    const params: unknown[] = [];
    const values = circuits.map((c) => {
      params.push(c.tool, c.provider, c.consecutiveFailures, Math.round(c.backoffUntil), Math.round(c.changedAt), c.changedBy);
      const n = params.length - COLUMNS.length;
      return `(${COLUMNS.map((_, i) => `$${n + i + 1}`).join(', ')})`;
    });
    await this.#o.query(
      'sharing provider circuits',
      `INSERT INTO provider_circuits (${COLUMNS.join(', ')}) VALUES ${values.join(', ')}
        ON CONFLICT (tool, provider) DO UPDATE SET consecutive_failures = excluded.consecutive_failures, backoff_until = excluded.backoff_until,
          changed_at = excluded.changed_at, changed_by = excluded.changed_by
        WHERE provider_circuits.changed_at < excluded.changed_at`,
      params,
    );
  }

  async listCircuits(since = 0): Promise<SharedCircuit[]> {
    const rows = await this.#o.query('reading shared provider circuits', 'SELECT * FROM provider_circuits WHERE changed_at > $1 ORDER BY changed_at', [Math.floor(since)]);
    return rows.map((r) => ({
      tool: String(r.tool),
      provider: String(r.provider),
      consecutiveFailures: Number(r.consecutive_failures),
      backoffUntil: Number(r.backoff_until),
      changedAt: Number(r.changed_at),
      changedBy: String(r.changed_by),
    }));
  }

  status(): ClusterBusStatus {
    return {
      instance: this.instance,
      listening: this.#client !== undefined,
      reconnects: this.#reconnects,
      received: this.#received,
      ...(this.#client === undefined && this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
    };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.#o.url,
      connectionTimeoutMillis: this.#o.connectTimeoutMs,
      keepAlive: true,
      application_name: `toolcap:${this.instance}`.slice(0, 63),
      ...(this.#o.schema !== undefined ? { options: `-c search_path=${this.#o.schema}` } : {}),
    });
    client.on('error', (err) => this.#lost(client, err));
    client.on('end', () => this.#lost(client, undefined));
    client.on('notification', (m) => {
      if (m.channel !== this.#channel || m.payload === undefined) return;
      const notice = parseNotice(m.payload);
      if (!notice || notice.from === this.instance) return;
      this.#received++;
      this.#listener?.notice(notice);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#channel!.replace(/"/g, '""')}"`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#lastError = undefined;
  }

  #lost(client: pg.Client, err: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    void client.end().catch(() => undefined);
    if (this.#closed) return;
    this.#lastError = err === undefined ? 'the connection ended' : errorMessage(err);
    this.#listener?.warn(`cluster: lost the LISTEN connection (${this.#lastError}); reconnecting`);
    this.#schedule(0);
  }

  #schedule(attempt: number): void {
    if (this.#closed) return;
    const delay = Math.min(RECONNECT_CAP_MS, RECONNECT_BASE_MS * 2 ** attempt) * (0.8 + 0.4 * Math.random());
    this.#timer = setTimeout(() => {
      this.#connect().then(
        () => {
          if (this.#closed) return;
          this.#reconnects++;
          this.#listener?.warn(`cluster: listening again after ${attempt + 1} attempt(s); re-reading shared state`);
          this.#listener?.resync();
        },
        (err: unknown) => {
          this.#lastError = errorMessage(err);
          this.#schedule(attempt + 1);
        },
      );
    }, delay);
    this.#timer.unref?.();
  }
}
