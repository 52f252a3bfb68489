/**
 * Learned tools in both stores (SQLite file, real PostgreSQL at
 * 127.0.0.1:5432): rows round-trip and an upsert keeps `created_at`; and the
 * learned layer over each store survives a restart (a new registry and a
 * new LearnedTools on the reopened store serve the tool again).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import { LearnedTools } from '../../src/runtime/learned/learned-tools.js';
import type { LearnedToolRecord, LearnedToolStore } from '../../src/store/learned-tools.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { dropSchema, PG_URL, probePostgres, schemaName } from './pg-helpers.js';

const probe = await probePostgres();
const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

const rec = (id: string, over: Partial<LearnedToolRecord> = {}): LearnedToolRecord => ({
  id,
  dialect: 'toolcap',
  body: JSON.stringify({ name: id, description: `Learned ${id}.`, inputSchema: { type: 'object' }, effects: { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' } }),
  writtenBy: 'wf-admin',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

function contract(name: string, harness: () => { open(): Promise<Store & LearnedToolStore>; cleanup(): Promise<void> }): void {
  describe(`${name}: learned tools`, () => {
    it('stores, lists by id, replaces keeping created_at, deletes', async () => {
      const h = harness();
      const store = await h.open();
      try {
        expect(await store.listLearnedTools()).toEqual([]);
        await store.putLearnedTool(rec('b.tool'));
        await store.putLearnedTool(rec('a.tool', { dialect: 'xena', body: '{\n  "id": "a.tool"\n}' }));
        expect((await store.listLearnedTools()).map((r) => r.id)).toEqual(['a.tool', 'b.tool']);
        expect((await store.listLearnedTools())[0]).toEqual(rec('a.tool', { dialect: 'xena', body: '{\n  "id": "a.tool"\n}' }));
        const again = await store.putLearnedTool(rec('b.tool', { writtenBy: 'other', createdAt: '2027-01-01T00:00:00.000Z', updatedAt: '2027-01-01T00:00:00.000Z' }));
        expect(again).toMatchObject({ writtenBy: 'other', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2027-01-01T00:00:00.000Z' });
        expect(await store.deleteLearnedTool('b.tool')).toBe(true);
        expect(await store.deleteLearnedTool('b.tool')).toBe(false);
        expect((await store.listLearnedTools()).map((r) => r.id)).toEqual(['a.tool']);
      } finally {
        await store.close();
        await h.cleanup();
      }
    });

    it('the learned layer survives a restart on this store', async () => {
      const h = harness();
      const start = async () => {
        const store = await h.open();
        const learned = new LearnedTools();
        const registry = new Registry({ paths: ['examples/manifests/toolcap', learned.layer()] });
        await registry.start();
        await learned.load(store, registry);
        return { store, learned, registry, stop: async () => (await registry.close(), await store.close()) };
      };
      try {
        const first = await start();
        await first.learned.upsert('learned.echo', 'toolcap', rec('learned.echo').body, 'wf-admin');
        expect(first.registry.snapshot().tools.map((t) => t.name)).toContain('learned.echo');
        await first.stop();
        const second = await start();
        expect(second.registry.snapshot().tools.map((t) => t.name)).toContain('learned.echo');
        expect(second.learned.list()).toEqual([expect.objectContaining({ id: 'learned.echo', writtenBy: 'wf-admin' })]);
        expect((await second.store.listAudit({ tool: 'learned.echo' })).map((a) => [a.kind, a.actor])).toEqual([['tool.learned', 'wf-admin']]);
        await second.stop();
      } finally {
        await h.cleanup();
      }
    });
  });
}

contract('sqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-learned-store-'));
  folders.push(dir);
  return { open: () => openSqliteStore(join(dir, 'toolcap.db')), cleanup: async () => {} };
});

describe.skipIf(!probe.reachable)('postgres (server reachable)', () => {
  contract('postgres', () => {
    const schema = schemaName('toolcap_learned');
    return { open: () => openPostgresStore(PG_URL, { schema }), cleanup: () => dropSchema(schema) };
  });
});
