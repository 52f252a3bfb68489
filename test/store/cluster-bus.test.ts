/**
 * The store's cluster bus. PostgreSQL (real server at 127.0.0.1:5432): the
 * circuit table keeps the later change, lists by change time, and notices
 * reach the other instance but not the sender, and not an instance on
 * another schema; a notice too big for one payload is split. SQLite has no
 * bus (one instance), and a host on it has no cluster sync.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { circuitNotices, clusterBusOf, MAX_NOTICE_BYTES, parseNotice, type ClusterBus, type ClusterNotice, type SharedCircuit } from '../../src/store/cluster-bus.js';
import { createToolcap } from '../../src/host.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { channelOf } from '../../src/store/postgres-cluster.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { until } from '../server/helpers.js';
import { dropSchema, PG_URL, probePostgres, schemaName } from './pg-helpers.js';

const probe = await probePostgres();

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

const circuit = (over: Partial<SharedCircuit> = {}): SharedCircuit => ({ tool: 't', provider: 'p', consecutiveFailures: 1, backoffUntil: 2000, changedAt: 1000, changedBy: 'a', ...over });

function collector() {
  const notices: ClusterNotice[] = [];
  return { notices, listener: { notice: (n: ClusterNotice) => void notices.push(n), resync: () => undefined, warn: () => undefined } };
}

describe('notices', () => {
  it('round-trip through their payload text; anything else is ignored', () => {
    const notice: ClusterNotice = { kind: 'circuit', from: 'a', circuits: [circuit()] };
    expect(parseNotice(JSON.stringify(notice))).toEqual(notice);
    expect(parseNotice(JSON.stringify({ kind: 'learned', from: 'a', id: 'x' }))).toEqual({ kind: 'learned', from: 'a', id: 'x' });
    for (const bad of ['', 'not json', 'null', '{"kind":"learned","from":"a"}', '{"kind":"other","from":"a"}', '{"kind":"circuit","circuits":[]}'])
      expect(parseNotice(bad)).toBeUndefined();
    expect(parseNotice(JSON.stringify({ kind: 'circuit', from: 'a', circuits: [circuit(), { tool: 1 }] }))).toEqual({ kind: 'circuit', from: 'a', circuits: [circuit()] });
  });

  it('many circuits are split into notices that each fit a payload', () => {
    const many = Array.from({ length: 200 }, (_, i) => circuit({ tool: `tool.number_${i}`, provider: 'provider-with-a-long-name' }));
    const notices = circuitNotices('a', many);
    expect(notices.length).toBeGreaterThan(1);
    for (const n of notices) expect(Buffer.byteLength(JSON.stringify(n))).toBeLessThanOrEqual(MAX_NOTICE_BYTES);
    expect(notices.flatMap((n) => (n.kind === 'circuit' ? n.circuits : []))).toEqual(many);
  });
});

describe.skipIf(!probe.reachable)('PostgreSQL bus (server reachable)', () => {
  it('keeps the later circuit change, lists by change time, and delivers notices to the others only', async () => {
    const schema = schemaName();
    const other = schemaName();
    const store = await openPostgresStore(PG_URL, { schema });
    const elsewhere = await openPostgresStore(PG_URL, { schema: other });
    const buses: ClusterBus[] = [];
    try {
      const [a, b, far] = [clusterBusOf(store, 'a')!, clusterBusOf(store, 'b')!, clusterBusOf(elsewhere, 'far')!];
      buses.push(a, b, far);
      const [ca, cb, cfar] = [collector(), collector(), collector()];
      await a.start(ca.listener);
      await b.start(cb.listener);
      await far.start(cfar.listener);

      await a.putCircuits([circuit({ changedAt: 1000 })]);
      await b.putCircuits([circuit({ changedAt: 900, backoffUntil: 0, consecutiveFailures: 0, changedBy: 'b' })]);
      expect(await b.listCircuits()).toEqual([circuit({ changedAt: 1000 })]);
      await b.putCircuits([circuit({ changedAt: 1100, backoffUntil: 0, consecutiveFailures: 0, changedBy: 'b' }), circuit({ tool: 'u', changedAt: 1200, changedBy: 'b' })]);
      expect((await a.listCircuits()).map((c) => [c.tool, c.changedBy, c.backoffUntil])).toEqual([['t', 'b', 0], ['u', 'b', 2000]]);
      expect((await a.listCircuits(1100)).map((c) => c.tool)).toEqual(['u']);

      await a.publish({ kind: 'learned', from: 'a', id: 'x.y' });
      await until(() => cb.notices.length > 0, 10_000, 'b hears a');
      expect(cb.notices).toEqual([{ kind: 'learned', from: 'a', id: 'x.y' }]);
      // a's own notice and an instance on another schema: nothing (a later notice from b proves a is listening)
      await b.publish({ kind: 'learned', from: 'b', id: 'z' });
      await until(() => ca.notices.length > 0, 10_000, 'a hears b');
      expect(ca.notices).toEqual([{ kind: 'learned', from: 'b', id: 'z' }]);
      expect(cfar.notices).toEqual([]);
      expect(a.status()).toMatchObject({ instance: 'a', listening: true, reconnects: 0, received: 1 });
    } finally {
      for (const bus of buses) await bus.close();
      await store.close();
      await elsewhere.close();
      await dropSchema(schema);
      await dropSchema(other);
    }
  });
});

describe('SQLite: one instance', () => {
  it('has no bus, and a host on it has no cluster sync', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-cluster-sqlite-'));
    folders.push(dir);
    const store = await openSqliteStore(join(dir, 'toolcap.db'));
    try {
      expect(clusterBusOf(store, 'a')).toBeUndefined();
    } finally {
      await store.close();
    }
    writeFileSync(join(dir, 'toolcap.config.yaml'), `sources:\n  - ${resolve('examples/manifests/toolcap')}\nstore:\n  path: toolcap.db\n`);
    const toolcap = await createToolcap(join(dir, 'toolcap.config.yaml'), { traces: false, mcp: false, warn: () => undefined });
    try {
      expect(toolcap.cluster).toBeUndefined();
    } finally {
      await toolcap.close();
    }
  });
});

describe('channel names', () => {
  // cutting `toolcap_<schema>` at 63 bytes made these pairs share a channel
  const prefix = `tenant_${'a'.repeat(60)}`;
  const pairs: Array<[string, string]> = [
    [`${prefix}_blue`, `${prefix}_gold`],
    ['public', 'public_'],
    ['Tenant', 'tenant'],
    [`${'x'.repeat(55)}_1`, `${'x'.repeat(55)}_2`],
  ];
  it.each(pairs)('%s and %s get distinct channels that fit an identifier', (a, b) => {
    expect(channelOf(a)).not.toBe(channelOf(b));
    for (const c of [channelOf(a), channelOf(b)]) expect(c).toMatch(/^toolcap_[0-9a-f]{16}$/);
    expect(channelOf(a)).toBe(channelOf(a));
  });
});

describe.skipIf(!probe.reachable)('PostgreSQL: long schema names with a common prefix', () => {
  it('an instance on one does not hear an instance on the other', async () => {
    // 58 characters in common: `toolcap_` and the schema cut at 63 gave both the same channel
    const base = schemaName('toolcap_test').padEnd(58, 'l');
    const [sa, sb] = [`${base}_blue`, `${base}_gold`];
    expect(`toolcap_${sa}`.slice(0, 63)).toBe(`toolcap_${sb}`.slice(0, 63));
    const [A, B] = [await openPostgresStore(PG_URL, { schema: sa }), await openPostgresStore(PG_URL, { schema: sb })];
    const [a, b, b2] = [clusterBusOf(A, 'a')!, clusterBusOf(B, 'b')!, clusterBusOf(B, 'b2')!];
    const [ca, cb] = [collector(), collector()];
    try {
      await a.start(ca.listener);
      await b.start(cb.listener);
      await b2.start(collector().listener);
      await a.publish({ kind: 'learned', from: 'a', id: 'from.blue' });
      // b hears its own schema's notice, sent after a's: a's would have arrived first
      await b2.publish({ kind: 'learned', from: 'b2', id: 'from.gold' });
      await until(() => cb.notices.length > 0, 10_000, 'b hears b2');
      expect(cb.notices).toEqual([{ kind: 'learned', from: 'b2', id: 'from.gold' }]);
    } finally {
      for (const bus of [a, b, b2]) await bus.close();
      await A.close();
      await B.close();
      await dropSchema(sa);
      await dropSchema(sb);
    }
  });
});
