/**
 * What several toolcap instances on one store tell each other: the shared
 * provider circuits (a table, `provider_circuits`) and change notices (a
 * channel). Only the PostgreSQL store has one (postgres-cluster.ts: a
 * `LISTEN` connection per instance, `NOTIFY` to publish); the SQLite store
 * serves one instance and has none, so {@link clusterBusOf} gives undefined
 * and everything stays in the process. The runtime side that merges what
 * arrives is runtime/cluster/cluster-sync.ts. See docs/deploy.md.
 * @module
 */

/** A provider's circuit as one instance last changed it (a row of `provider_circuits`). */
export interface SharedCircuit {
  tool: string;
  provider: string;
  consecutiveFailures: number;
  /** Epoch ms until which the provider is skipped; 0: closed. */
  backoffUntil: number;
  /** Epoch ms of the change (the outcome that moved it): the later change wins. */
  changedAt: number;
  /** The instance that changed it. */
  changedBy: string;
}

/** A notice on the channel. `from` is the sending instance (an instance never hears its own). */
export type ClusterNotice =
  | { kind: 'circuit'; from: string; circuits: SharedCircuit[] }
  /** Learned tools changed (`id` written or forgotten): re-read them. */
  | { kind: 'learned'; from: string; id: string }
  /** Approval `id` was settled (decided and, if approved, run): its waiters read it now. */
  | { kind: 'approval'; from: string; id: string };

/** What a subscriber is told. */
export interface ClusterListener {
  /** A notice from another instance. */
  notice(notice: ClusterNotice): void;
  /** The channel was (re)connected after a loss: notices may have been missed, so re-read what they would have said. */
  resync(): void;
  /** The listening connection was lost, or is back (what an operator should know). */
  warn(message: string): void;
}

/** How the channel is doing (shown with the cluster's status, and asserted on by tests). */
export interface ClusterBusStatus {
  instance: string;
  /** Listening now. */
  listening: boolean;
  /** Times the listening connection was re-established after a loss. */
  reconnects: number;
  /** Notices received from other instances. */
  received: number;
  /** The last connection error, when not listening. */
  lastError?: string;
}

/** The channel and the circuit table of a store shared by several instances. */
export interface ClusterBus {
  /** This instance's id (`host-pid-random`), the `from` of what it sends. */
  readonly instance: string;
  /** Start listening (resolves once the first `LISTEN` is in place, or rejects when it cannot connect). */
  start(listener: ClusterListener): Promise<void>;
  /** Send a notice to the other instances (delivered after the statement commits). */
  publish(notice: ClusterNotice): Promise<void>;
  /** Write circuits, each kept only when it is newer than the stored one. */
  putCircuits(circuits: readonly SharedCircuit[]): Promise<void>;
  /** Circuits changed after `since` (epoch ms; 0: all). */
  listCircuits(since?: number): Promise<SharedCircuit[]>;
  status(): ClusterBusStatus;
  /** Stop listening (the store's pool is the store's to close). */
  close(): Promise<void>;
}

/** A store that can share state between instances. */
export interface ClusterCapable {
  /** The bus of this store for one instance. */
  clusterBus(instance: string): ClusterBus;
}

/** The store's bus, or undefined for a store one instance owns (SQLite). */
export function clusterBusOf(store: object, instance: string): ClusterBus | undefined {
  const capable = store as Partial<ClusterCapable>;
  return typeof capable.clusterBus === 'function' ? capable.clusterBus(instance) : undefined;
}

/** Most bytes of a NOTIFY payload PostgreSQL takes is 8000; notices stay under this. */
export const MAX_NOTICE_BYTES = 7500;

/** Circuits split into notices that each fit a payload. */
export function circuitNotices(from: string, circuits: readonly SharedCircuit[]): ClusterNotice[] {
  const out: ClusterNotice[] = [];
  let batch: SharedCircuit[] = [];
  let bytes = 64;
  for (const c of circuits) {
    const size = Buffer.byteLength(JSON.stringify(c)) + 1;
    if (size + 64 > MAX_NOTICE_BYTES) continue; // names this long never fit: the periodic re-read carries it
    if (bytes + size > MAX_NOTICE_BYTES && batch.length > 0) {
      out.push({ kind: 'circuit', from, circuits: batch });
      batch = [];
      bytes = 64;
    }
    batch.push(c);
    bytes += size;
  }
  if (batch.length > 0) out.push({ kind: 'circuit', from, circuits: batch });
  return out;
}

/** A notice from its payload text; undefined when it is not one (ignored: another version may send more kinds). */
export function parseNotice(text: string): ClusterNotice | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const v = value as Partial<Record<string, unknown>> | null;
  if (typeof v !== 'object' || v === null || typeof v.from !== 'string') return undefined;
  if ((v.kind === 'learned' || v.kind === 'approval') && typeof v.id === 'string') return { kind: v.kind, from: v.from, id: v.id };
  if (v.kind === 'circuit' && Array.isArray(v.circuits)) {
    const circuits = (v.circuits as unknown[]).filter(isCircuit);
    return { kind: 'circuit', from: v.from, circuits };
  }
  return undefined;
}

function isCircuit(c: unknown): c is SharedCircuit {
  const r = c as Partial<Record<keyof SharedCircuit, unknown>> | null;
  return (
    typeof r === 'object' && r !== null &&
    typeof r.tool === 'string' && typeof r.provider === 'string' && typeof r.changedBy === 'string' &&
    Number.isFinite(r.consecutiveFailures) && Number.isFinite(r.backoffUntil) && Number.isFinite(r.changedAt)
  );
}

/** Migration: the `provider_circuits` table (a `Migration` of migrations.ts, which lists it). */
export const CLUSTER_MIGRATION = {
  version: 8,
  description: 'provider circuits shared by the instances on one store',
  sqlite: [
    `CREATE TABLE provider_circuits (
      tool TEXT NOT NULL,
      provider TEXT NOT NULL,
      consecutive_failures INTEGER NOT NULL,
      backoff_until INTEGER NOT NULL,
      changed_at INTEGER NOT NULL,
      changed_by TEXT NOT NULL,
      PRIMARY KEY (tool, provider)
    )`,
  ],
  postgres: [
    `CREATE TABLE provider_circuits (
      tool TEXT COLLATE "C" NOT NULL,
      provider TEXT COLLATE "C" NOT NULL,
      consecutive_failures INTEGER NOT NULL,
      backoff_until BIGINT NOT NULL,
      changed_at BIGINT NOT NULL,
      changed_by TEXT NOT NULL,
      PRIMARY KEY (tool, provider)
    )`,
    'CREATE INDEX provider_circuits_changed ON provider_circuits (changed_at)',
  ],
};
