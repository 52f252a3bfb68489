/**
 * Cluster notices are hints, not facts: NOTIFY takes no privilege, so a
 * PostgreSQL role with no grants at all (only the default CONNECT) can send
 * anything on toolcap's channel. Real PostgreSQL at 127.0.0.1:5432, a fresh
 * database, one toolcap host calling a real HTTP upstream, and a peer
 * instance (a bus on the same store, with table privileges) whose genuine
 * changes are the barrier: once the host has taken the peer's change, it has
 * handled every forged notice sent before it.
 * - Forged circuit notices (absurd times, a plausible outage, junk names)
 *   change nothing: the call still succeeds and the book does not grow.
 * - A row with absurd times (a writer with table privileges) is clamped.
 * - A forged learned notice only makes the host re-read the store.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolcap, type Toolcap } from '../../../src/host.js';
import { MAX_MERGED_CIRCUITS, MERGE_SKEW_MS } from '../../../src/runtime/health.js';
import type { Principal } from '../../../src/runtime/identity/principal.js';
import { circuitNotices, clusterBusOf, type ClusterBus, type SharedCircuit } from '../../../src/store/cluster-bus.js';
import { channelOf } from '../../../src/store/postgres-cluster.js';
import { openPostgresStore } from '../../../src/store/postgres.js';
import type { Store } from '../../../src/store/types.js';
import { cleanFolders, folder, until } from '../../server/helpers.js';
import { freshDatabase, PG_URL, probePostgres } from '../../store/pg-helpers.js';

const probe = await probePostgres();
if (!probe.reachable) console.warn(`[toolcap] skipping the forged-notice tests: ${probe.reason}`);

const CALLER: Principal = { id: 'ci', roles: ['admin'], personas: ['*'], via: 'api-key' };
const role = `toolcap_nogrant_${randomBytes(3).toString('hex')}`;
const CHANNEL = channelOf('public');

let db: Awaited<ReturnType<typeof freshDatabase>>;
let upstream: Server | undefined;
let tc: Toolcap;
let peerStore: Store;
let peer: ClusterBus;
let low: pg.Client;
let barrierAt = 0;

const admin = async (sql: string) => {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
};
const circuit = (over: Partial<SharedCircuit>): SharedCircuit => ({ tool: 'status.check', provider: 'upstream', consecutiveFailures: 1, backoffUntil: 0, changedAt: Date.now(), changedBy: 'forger', ...over });
const forge = (payload: unknown) => low.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(payload)]);
const call = () => tc.runtime.call('status.check', {}, { principal: CALLER }).then(() => 'ok', (e: { code?: string }) => e.code ?? String(e));

/** The peer's genuine change to `status.other` (a row, then a notice): once the host took it, everything sent before is handled. */
async function barrier(): Promise<void> {
  const merged = tc.cluster!.status().circuitsMerged;
  barrierAt = Math.max(Date.now(), barrierAt + 1);
  const change = circuit({ tool: 'status.other', consecutiveFailures: 0, backoffUntil: 0, changedAt: barrierAt, changedBy: 'peer' });
  await peer.putCircuits([change]);
  await peer.publish({ kind: 'circuit', from: 'peer', circuits: [change] });
  await until(() => tc.cluster!.status().circuitsMerged > merged, 20_000, 'the host takes the peer change');
}

beforeAll(async () => {
  if (!probe.reachable) return;
  upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"green"}');
  });
  await new Promise<void>((resolve) => upstream!.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  db = await freshDatabase('toolcap_forged');
  await admin(`CREATE ROLE ${role} LOGIN`);
  const root = folder('toolcap-forged-');
  mkdirSync(join(root, 'manifests'));
  const tool = (name: string) => `  - name: ${name}
    version: 1.0.0
    description: Read status.
    inputSchema: { type: object, properties: {}, additionalProperties: false }
    effects: { mode: read, sideEffects: read_external_service, risk: low, reversible: full }
    approval: { required: false }
    execution: { timeoutSec: 5, retryClass: never, idempotent: true }
    providers:
      - { name: upstream, priority: 0, config: { type: http, baseUrl: 'http://127.0.0.1:${port}', method: GET, path: /status } }
`;
  writeFileSync(join(root, 'manifests', 'status.yaml'), `toolcap: 1\ntools:\n${tool('status.check')}${tool('status.other')}`);
  writeFileSync(join(root, 'toolcap.config.yaml'), `sources:\n  - manifests/\nstore:\n  url: ${db.url}\n`);
  // the periodic re-read is out of the way: what the host takes, it takes because of a notice
  tc = await createToolcap(join(root, 'toolcap.config.yaml'), { traces: false, mcp: false, clusterRereadMs: 600_000, warn: () => undefined });
  peerStore = await openPostgresStore(db.url);
  peer = clusterBusOf(peerStore, 'peer')!;
  await peer.start({ notice: () => undefined, resync: () => undefined, warn: () => undefined });
  const url = new URL(db.url);
  url.username = role;
  low = new pg.Client({ connectionString: url.toString() });
  await low.connect();
}, 60_000);

afterAll(async () => {
  await low?.end().catch(() => undefined);
  await peer?.close();
  await peerStore?.close();
  await tc?.close();
  if (upstream) await new Promise<void>((resolve) => upstream!.close(() => resolve()));
  await db?.drop();
  if (probe.reachable) await admin(`DROP ROLE IF EXISTS ${role}`);
  cleanFolders();
}, 60_000);

describe.skipIf(!probe.reachable)('notices from a role without grants (PostgreSQL)', () => {
  it('the role can NOTIFY on the channel but cannot read or write the circuits', async () => {
    await expect(low.query('SELECT * FROM provider_circuits')).rejects.toThrow(/permission denied/);
    await expect(low.query("INSERT INTO provider_circuits VALUES ('status.check','upstream',1,1,1,'x')")).rejects.toThrow(/permission denied/);
    const received = tc.cluster!.status().received;
    await forge({ kind: 'learned', from: 'forger', id: 'nothing' });
    await until(() => tc.cluster!.status().received > received, 20_000, 'the host hears the forged notice');
  });

  it.each([
    ['absurd times', [circuit({ backoffUntil: 8.64e15, changedAt: 8.64e15 })]],
    ['a plausible outage', [circuit({ consecutiveFailures: 5, backoffUntil: Date.now() + 3_600_000 })]],
    ['a close', [circuit({ consecutiveFailures: 0, backoffUntil: 0, changedAt: 8.64e15 })]],
    ['a junk provider of a known tool', [circuit({ provider: 'nobody', backoffUntil: 8.64e15, changedAt: 8.64e15 })]],
  ])('a forged circuit notice (%s) changes nothing', async (_, circuits) => {
    expect(await call()).toBe('ok');
    const before = { ...tc.runtime.health.circuit('status.check', 'upstream') };
    await forge({ kind: 'circuit', from: 'forger', circuits });
    await barrier();
    expect(tc.runtime.health.circuit('status.check', 'upstream')).toEqual(before);
    expect(await call()).toBe('ok');
  });

  it('forged notices full of junk names do not grow the health book', async () => {
    const size = tc.runtime.health.circuitCount();
    const merged = tc.cluster!.status().circuitsMerged;
    for (let i = 0; i < 200; i++) {
      const circuits = Array.from({ length: 50 }, (_, j) => circuit({ tool: `junk.${i}.${j}.${'x'.repeat(20)}`, provider: 'p', backoffUntil: 1, changedAt: 1 }));
      await forge({ kind: 'circuit', from: 'forger', circuits });
    }
    await barrier();
    expect(tc.runtime.health.circuitCount()).toBeLessThanOrEqual(size + 1); // + status.other, the barrier's
    expect(tc.cluster!.status().circuitsMerged).toBe(merged + 1);
  }, 60_000);

  it('rows of names not in the catalog (a writer with table privileges) are not merged either', async () => {
    const size = tc.runtime.health.circuitCount();
    const junk = Array.from({ length: 500 }, (_, i) => circuit({ tool: `junk.row.${i}`, changedBy: 'peer', backoffUntil: 1, changedAt: Date.now() }));
    await peer.putCircuits(junk);
    for (const notice of circuitNotices('peer', junk)) await peer.publish(notice);
    await barrier();
    expect(tc.runtime.health.circuitCount()).toBeLessThanOrEqual(Math.min(size + 1, MAX_MERGED_CIRCUITS));
  });

  it('a row with absurd times is clamped: the backoff ends within the cap, and a later genuine close wins', async () => {
    const absurd = circuit({ consecutiveFailures: 3, backoffUntil: 8.64e15, changedAt: 8.64e15, changedBy: 'peer' });
    await peer.putCircuits([absurd]);
    await peer.publish({ kind: 'circuit', from: 'peer', circuits: [absurd] });
    await until(() => tc.runtime.health.circuit('status.check', 'upstream').backoffUntil > 0, 20_000, 'the host takes the row');
    const now = Date.now();
    expect(tc.runtime.health.circuit('status.check', 'upstream').backoffUntil).toBeLessThanOrEqual(now + 300_000 + MERGE_SKEW_MS);
    expect(await call()).toBe('NO_HEALTHY_PROVIDER');
    // the host's own clock moves past the clamped time: a close then wins over it
    const close = { tool: 'status.check', provider: 'upstream', consecutiveFailures: 0, backoffUntil: 0, changedAt: now + MERGE_SKEW_MS + 1_000 };
    expect(tc.runtime.health.mergeCircuit(close, close.changedAt)).toBe(true);
    expect(await call()).toBe('ok');
  });
});
