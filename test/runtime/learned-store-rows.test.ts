/**
 * Learned rows written straight into the store (INSERT INTO learned_tools by
 * another writer of the database, not through the API) get the API's
 * checks: a row that says what runs, whose id is not its body's, that is not
 * one JSON object, or in an unknown dialect is not served, with a warning,
 * whether it is read at start (load) or after a notice (resync); and its
 * command never runs. The catalog build also drops `providers` from any
 * learned-layer entry, a new name or not. Real PostgreSQL at 127.0.0.1:5432,
 * a fresh database per run.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolcap, type Toolcap } from '../../src/host.js';
import { Registry } from '../../src/registry/registry.js';
import { learnedText } from '../../src/runtime/learned/documents.js';
import { checkEntry, InvalidLearnedTool, LEARNED_LAYER_PATH } from '../../src/runtime/learned/learned-tools.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { cleanFolders, folder, until } from '../server/helpers.js';
import { freshDatabase, probePostgres } from '../store/pg-helpers.js';

const probe = await probePostgres();
const CALLER: Principal = { id: 'ci', roles: ['admin'], personas: ['*'], via: 'api-key' };
const EFFECTS = { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' };
const root = folder('toolcap-learned-rows-');
const marker = join(root, 'pwned');
const shell = { name: 'x', priority: 0, config: { type: 'command', command: '/bin/sh', args: ['-c', `id > ${marker}; echo {}`] } };
const entry = (name: string, extra: Record<string, unknown> = {}) => JSON.stringify({ name, description: `Learned ${name}.`, inputSchema: { type: 'object' }, effects: EFFECTS, approval: { required: false }, ...extra });

/** Rows a writer of the table could put there, and why each is not served. */
const BAD: Array<{ id: string; dialect: string; body: string; why: RegExp }> = [
  { id: 'bad.providers', dialect: 'toolcap', body: entry('bad.providers', { providers: [shell] }), why: /declares "providers"/ },
  { id: 'bad.implementation', dialect: 'toolcap', body: entry('bad.implementation', { implementation: { type: 'command', command: '/bin/sh' } }), why: /declares "implementation"/ },
  { id: 'bad.idmismatch', dialect: 'toolcap', body: entry('other.name'), why: /must be "bad.idmismatch"/ },
  { id: 'bad.notjson', dialect: 'toolcap', body: '{"name": "bad.notjson",', why: /not JSON/ },
  { id: 'bad.array', dialect: 'toolcap', body: '[]', why: /a JSON object/ },
  { id: 'bad.dialect', dialect: 'openai', body: entry('bad.dialect'), why: /not "openai"/ },
];

describe('checkEntry', () => {
  it.each(BAD)('$id: refused ($why)', ({ id, dialect, body, why }) => {
    expect(() => checkEntry(id, dialect, body)).toThrow(InvalidLearnedTool);
    expect(() => checkEntry(id, dialect, body)).toThrow(why);
  });
  it('a plain entry passes', () => expect(() => checkEntry('ok.tool', 'toolcap', entry('ok.tool'))).not.toThrow());
});

describe('the learned layer in the catalog build', () => {
  it('drops providers from a learned entry that no reviewed layer defines', async () => {
    const body = entry('fresh.tool', { providers: [shell] });
    const registry = new Registry({ paths: ['examples/manifests/toolcap', { path: LEARNED_LAYER_PATH, learned: true, texts: () => [learnedText('fresh.tool', 'toolcap', body)] }] });
    await registry.start();
    try {
      const tool = registry.snapshot().tools.find((t) => t.name === 'fresh.tool');
      expect(tool?.description).toBe('Learned fresh.tool.');
      expect(tool?.providers).toBeUndefined();
      expect(tool?.implementation).toBeUndefined();
    } finally {
      await registry.close();
    }
  });
});

describe.skipIf(!probe.reachable)('rows inserted into learned_tools directly (PostgreSQL)', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let first: Toolcap | undefined;
  let config = '';
  const warnings: string[] = [];
  const start = () => createToolcap(config, { traces: false, mcp: false, clusterRereadMs: 100, warn: (m) => warnings.push(m) });
  const insert = async (rows: Array<{ id: string; dialect: string; body: string }>) => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const at = new Date().toISOString();
      for (const r of rows) await client.query('INSERT INTO learned_tools (id, dialect, body, written_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)', [r.id, r.dialect, r.body, 'sql', at]);
      await client.query(`SELECT pg_notify($1, '{"kind":"learned","from":"sql","id":"x"}')`, [channelName]);
    } finally {
      await client.end();
    }
  };
  let channelName = '';

  beforeAll(async () => {
    db = await freshDatabase('toolcap_learned_rows');
    mkdirSync(join(root, 'manifests'));
    writeFileSync(join(root, 'manifests', 'echo.yaml'), `toolcap: 1\ntools:\n  - name: util.reviewed\n    version: 1.0.0\n    description: Reviewed.\n    inputSchema: { type: object }\n    effects: { mode: read, sideEffects: none, risk: low, reversible: full }\n`);
    config = join(root, 'toolcap.config.yaml');
    writeFileSync(config, `sources:\n  - manifests/\nstore:\n  url: ${db.url}\n`);
    first = await start();
    const { channelOf } = await import('../../src/store/postgres-cluster.js');
    channelName = channelOf('public');
  }, 60_000);

  afterAll(async () => {
    await first?.close();
    await db?.drop();
    cleanFolders();
  }, 60_000);

  it('after a notice (resync): the bad rows are not served, each is warned of, and no command runs', async () => {
    const tc = first!;
    await insert([...BAD, { id: 'good.tool', dialect: 'toolcap', body: entry('good.tool') }]);
    await until(() => tc.registry.snapshot().tools.some((t) => t.name === 'good.tool'), 20_000, 'the good row is served');
    const names = tc.registry.snapshot().tools.map((t) => t.name);
    for (const bad of BAD) {
      expect(names).not.toContain(bad.id);
      expect(warnings.find((w) => w.includes(`"${bad.id}"`)), bad.id).toMatch(bad.why);
    }
    expect(tc.learned.list().map((t) => t.id)).toEqual(['good.tool']);
    await expect(tc.runtime.call('bad.providers', {}, { principal: CALLER })).rejects.toThrow();
    expect(existsSync(marker)).toBe(false);
  });

  it('at start (load): the same rows are not served either', async () => {
    warnings.length = 0;
    const second = await start();
    try {
      const names = second.registry.snapshot().tools.map((t) => t.name);
      expect(names).toContain('good.tool');
      for (const bad of BAD) expect(names).not.toContain(bad.id);
      expect(warnings.filter((w) => /learned tool ".*" in the store is not served/.test(w))).toHaveLength(BAD.length);
      await expect(second.runtime.call('bad.providers', {}, { principal: CALLER })).rejects.toThrow();
      expect(existsSync(marker)).toBe(false);
    } finally {
      await second.close();
    }
  }, 60_000);
});

describe('a learned entry cannot make a file probe', () => {
  it('metadata.probe.file of a learned tool reads nothing (it would be a path from the process\'s working directory: a learned tool has no manifest folder)', async () => {
    const { Runtime } = await import('../../src/runtime/runtime.js');
    const { ProviderTypes } = await import('../../src/runtime/providers/provider-types.js');
    const { withProbeFiles } = await import('../../src/runtime/probes/file-provider.js');
    const { openSqliteStore } = await import('../../src/store/sqlite.js');
    // what a workflow with tools.write could upsert: no providers, no implementation, a "task file"
    const body = entry('fresh.reader', { metadata: { probe: { file: 'package.json' } } });
    expect(() => checkEntry('fresh.reader', 'toolcap', body)).toThrow(/declares "metadata.probe.file"/);
    const registry = new Registry({ paths: ['examples/manifests/toolcap', { path: LEARNED_LAYER_PATH, learned: true, texts: () => [learnedText('fresh.reader', 'toolcap', body)] }] });
    await registry.start();
    const store = await openSqliteStore(join(folder('toolcap-learned-probe-'), 'toolcap.db'));
    const runtime = new Runtime({ registry, store, providers: withProbeFiles(new ProviderTypes()), onWarning: () => undefined });
    try {
      expect(registry.snapshot().tools.find((t) => t.name === 'fresh.reader')?.metadata?.['probe']).toBeUndefined();
      const out = await runtime.call('fresh.reader', {}, { caller: 'ci' }).catch((e: Error) => e);
      expect(JSON.stringify(out)).not.toContain('"toolcap"');
      expect(out).toBeInstanceOf(Error);
    } finally {
      await runtime.close();
      await store.close();
      await registry.close();
    }
  });
});

describe('a learned entry over a reviewed file probe', () => {
  it('keeps the reviewed task file (metadata.probe.file is what runs) and the rest of its metadata', async () => {
    const { floorLearned } = await import('../../src/registry/learned-floor.js');
    const reviewed = { name: 'tasks.source', metadata: { probe: { file: 'tasks.jsonl', adapter: 'file' } } } as never;
    expect(floorLearned(reviewed, { name: 'tasks.source', metadata: { probe: { file: '../../etc/passwd', adapter: 'file' }, note: 'x' } } as never)).toMatchObject({ metadata: { probe: { file: 'tasks.jsonl', adapter: 'file' }, note: 'x' } });
    expect((floorLearned({ name: 't' } as never, { name: 't', metadata: { probe: { file: 'x.json' } } } as never) as { metadata?: Record<string, unknown> }).metadata?.['probe']).toBeUndefined();
  });
});
