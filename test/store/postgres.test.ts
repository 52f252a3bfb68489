import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { openPostgresStore, redactUrl } from '../../src/store/postgres.js';
import { StoreUnavailableError, type Store } from '../../src/store/types.js';
import { approval, audit, runStoreContract, type TestDatabase } from './contract.js';
import { runDurabilityContract } from './durability-contract.js';
import { runIdentityContract } from './identity-contract.js';
import { PG_URL, dropSchema, probePostgres, rawPg, schemaName } from './pg-helpers.js';

const probe = await probePostgres();
if (!probe.reachable) console.warn(`[toolcap] skipping the PostgreSQL store tests: ${probe.reason}`);

describe('postgres store: without a server', () => {
  it('rejects with StoreUnavailableError when nothing listens on the port', async () => {
    const err = await openPostgresStore('postgres://postgres:secret@127.0.0.1:1/test').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).message).toMatch(/PostgreSQL at 127\.0\.0\.1:1 is not reachable/);
    expect((err as Error).message).toMatch(/ECONNREFUSED/);
    expect((err as Error).message).not.toMatch(/secret/);
  });

  it('removes the password from the location', () => {
    expect(redactUrl('postgres://toolcap:s3cr%40t@db.example:5433/toolcap?sslmode=require')).toBe('postgres://toolcap@db.example:5433/toolcap?sslmode=require');
    expect(redactUrl('postgres://toolcap@db.example/toolcap')).toBe('postgres://toolcap@db.example/toolcap');
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(openPostgresStore(PG_URL, { schema: 'x; DROP TABLE y' })).rejects.toThrow(/not a plain lower-case identifier/);
  });
});

describe.skipIf(!probe.reachable)('postgres store (server reachable)', () => {
  const postgresHarness = {
    async fresh(): Promise<TestDatabase> {
      const schema = schemaName();
      return {
        open: () => openPostgresStore(PG_URL, { schema }),
        raw: (sql: string) => rawPg(schema, sql),
        drop: () => dropSchema(schema),
      };
    },
  };
  runStoreContract('postgres', postgresHarness);
  runIdentityContract('postgres', postgresHarness);
  runDurabilityContract('postgres', postgresHarness);

  describe('postgres store: sharing and failures', () => {
    const schemas: string[] = [];
    const stores: Store[] = [];
    afterAll(async () => {
      for (const s of stores) await s.close();
      for (const schema of schemas) await dropSchema(schema);
    });

    it('is what openStore opens for { kind: postgres }, with the password removed from its location', async () => {
      const schema = schemaName();
      schemas.push(schema);
      const url = new URL(PG_URL);
      const withPassword = url.password ? PG_URL : `${url.protocol}//${url.username || 'postgres'}:ignored-by-trust@${url.host}${url.pathname}`;
      const store = await openStore({ kind: 'postgres', url: withPassword }, { postgres: { schema } });
      stores.push(store);
      expect(store.kind).toBe('postgres');
      expect(store.location).not.toMatch(/ignored-by-trust/);
      expect(store.location).toMatch(/^postgres(ql)?:\/\//);
      await store.ping();
    });

    it('two instances migrating at once: one migration, both work', async () => {
      const schema = schemaName();
      schemas.push(schema);
      const opened = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(PG_URL, { schema })));
      stores.push(...opened);
      const [a, b] = opened as [(typeof opened)[number], (typeof opened)[number]];
      const rec = approval();
      await a.createApproval(rec);
      expect(await b.getApproval(rec.id)).toEqual(rec);
      const results = await Promise.all([a.updateApproval(rec.id, 'pending', { status: 'approved' }), b.updateApproval(rec.id, 'pending', { status: 'denied' })]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      const first = await a.appendAudit(audit());
      const second = await b.appendAudit(audit());
      expect(second.seq).toBeGreaterThan(first.seq);
      expect(await b.listAudit()).toEqual([first, second]);
    });

    it('many concurrent appends from two instances: seq order is commit order, no gaps seen by a reader', async () => {
      const schema = schemaName();
      schemas.push(schema);
      const a = await openPostgresStore(PG_URL, { schema });
      const b = await openPostgresStore(PG_URL, { schema });
      stores.push(a, b);
      const appended = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).appendAudit(audit({ detail: { i } }))));
      const seqs = appended.map((r) => r.seq).sort((x, y) => x - y);
      expect(new Set(seqs).size).toBe(60);
      expect((await a.listAudit({ limit: 1000 })).map((r) => r.seq)).toEqual(seqs);
    });

    it('rejects with StoreUnavailableError for a database that does not exist', async () => {
      const url = new URL(PG_URL);
      url.pathname = '/toolcap_no_such_database';
      await expect(openPostgresStore(url.toString())).rejects.toThrow(StoreUnavailableError);
      await expect(openPostgresStore(url.toString())).rejects.toThrow(/does not exist/);
    });
  });
});
