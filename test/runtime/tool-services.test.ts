/**
 * What a tool gets besides its arguments (configurations, its own SQL
 * database) and what its result is held to, through the runtime's one call
 * path with the fake provider: the provider sees exactly the context a real
 * one gets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HealthBook } from '../../src/runtime/health.js';
import { FULL_CHECK_MAX_NODES, ResultChecker } from '../../src/runtime/result-check.js';
import { ToolServices, type ToolServicesOptions } from '../../src/runtime/tool-services.js';
import type { ToolDatabaseLocation } from '../../src/store/tool-db-types.js';
import type { Tool } from '../../src/model/schema.js';
import { PG_URL, dropSchema, probePostgres, schemaName } from '../store/pg-helpers.js';
import { closeAll, expectCode, fakeTool, harness } from './helpers.js';

afterEach(closeAll);
const probe = await probePostgres();
if (!probe.reachable) console.warn(`[toolcap] skipping the PostgreSQL tool database runtime test: ${probe.reason}`);

const SECRET = 'sk-notes-0123456789abcdef';
const CONFIGURED = fakeTool('notes', {
  configSchema: {
    type: 'object',
    properties: { owner: { type: 'string' }, apiKey: { type: 'string' }, limit: { type: 'number', nullable: true } },
    required: ['owner', 'apiKey'],
  },
});

const services = (options: ToolServicesOptions) => new ToolServices({ env: { NOTES_KEY: SECRET }, ...options });

describe('configurations', () => {
  it('hands the provider the configured values, a secret read from the environment', async () => {
    const h = await harness([CONFIGURED], { services: services({ settings: { notes: { configurations: { owner: 'ada', apiKey: { env: 'NOTES_KEY' }, limit: null } } } }) });
    h.fakes.on('p1', async (_args, ctx) => ctx.configurations);
    const r = await h.runtime.call('notes', {});
    expect(r).toMatchObject({ status: 'ok', result: { owner: 'ada', apiKey: SECRET, limit: null } });
  });

  it.each([
    ['a required value missing', { owner: 'ada' }, /required configuration "apiKey" is not given/],
    ['an unset variable', { owner: 'ada', apiKey: { env: 'NOT_SET_ANYWHERE' } }, /environment variable NOT_SET_ANYWHERE is not set/],
    ['a value of the wrong type', { owner: 7, apiKey: 'k' }, /\/owner must be string/],
    ['no settings at all', undefined, /required configuration "owner" is not given/],
  ])('%s: the tool is unavailable, with the reason, and never called', async (_, configurations, reason) => {
    const settings = configurations === undefined ? {} : { notes: { configurations } };
    const h = await harness([CONFIGURED], { services: services({ settings }) });
    const e = await expectCode(h.runtime.call('notes', {}), 'NO_HEALTHY_PROVIDER');
    expect(e.message).toMatch(reason);
    expect(h.fakes.count('notes')).toBe(0);
    expect(h.runtime.health.lookup('notes')).toMatchObject({ status: 'unavailable', unavailable: expect.stringMatching(reason) });
  });

  it('never lets a configured secret out: problem messages and the audit log are redacted', async () => {
    const h = await harness([CONFIGURED], { services: services({ settings: { notes: { configurations: { owner: 'ada', apiKey: { env: 'NOTES_KEY' } } } } }) });
    h.fakes.on('p1', async (_args, ctx) => {
      throw new Error(`upstream refused key ${String(ctx.configurations?.['apiKey'])}`);
    });
    const e = await expectCode(h.runtime.call('notes', { note: SECRET }), 'PROVIDER_ERROR');
    expect(e.message).toContain('[REDACTED]');
    expect(e.message).not.toContain(SECRET);
    await h.flush();
    const audit = JSON.stringify(await h.sqlite.listAudit({}));
    expect(audit).not.toContain(SECRET);
  });
});

const RESULT_TOOL = fakeTool('counter', {
  outputSchema: { type: 'object', properties: { count: { type: 'integer' }, label: { type: 'string', nullable: true } }, required: ['count'] },
});

describe('results against outputSchema', () => {
  it.each([
    ['warn', { count: 3, label: null }, 'ok', 0],
    ['warn', { count: 'three' }, 'ok', 1],
    ['fail', { count: 3 }, 'ok', 0],
    ['fail', { label: 'no count' }, 'RESULT_MISMATCH', 1],
  ] as const)('results: %s, result %j: %s, %i mismatch(es) counted', async (policy, result, outcome, mismatches) => {
    const h = await harness([RESULT_TOOL], { services: services({ results: policy }) });
    h.fakes.on('p1', async () => result);
    if (outcome === 'ok') expect(await h.runtime.call('counter', {})).toMatchObject({ status: 'ok', result });
    else {
      const e = await expectCode(h.runtime.call('counter', {}), 'RESULT_MISMATCH');
      expect(e.extra.problems).toEqual([{ pointer: '/count', message: "(result) must have required property 'count'" }]);
    }
    expect(h.runtime.health.lookup('counter')).toMatchObject({ resultDrift: { checked: 1, mismatches } });
  });

  it('shows the last mismatch with the tool\'s health, where staleManifest is shown', async () => {
    const h = await harness([RESULT_TOOL], { services: services({}) });
    h.fakes.on('p1', async () => ({ count: 1.5 }));
    await h.runtime.call('counter', {});
    expect(h.runtime.health.lookup('counter')).toMatchObject({
      status: 'ok',
      calls: 1,
      resultDrift: { checked: 1, mismatches: 1, last: { problems: [{ pointer: '/count', message: '/count must be integer' }] } },
    });
  });

  it('checks a huge result shallowly: its type and required keys, within a bounded count', () => {
    const tool = { name: 'big', outputSchema: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } }, required: ['items'] } } as Tool;
    const checker = new ResultChecker();
    const items = Array.from({ length: FULL_CHECK_MAX_NODES * 5 }, (_, i) => (i === 7 ? 7 : 'x'));
    expect(checker.check(tool, { items: ['a', 7] })).toMatchObject({ ok: false, depth: 'full' });
    expect(checker.check(tool, { items })).toEqual({ ok: true, depth: 'shallow' });
    expect(checker.check(tool, { nothing: items })).toMatchObject({ ok: false, depth: 'shallow', problems: [{ pointer: '/items' }] });
    expect(checker.check(tool, items)).toMatchObject({ ok: false, depth: 'shallow', problems: [{ pointer: '' }] });
    expect(checker.drift('big')).toMatchObject({ checked: 4, mismatches: 3 });
  });
});

const SQL_TOOL = fakeTool('visits', {
  storage: {
    sqlTables: [{ name: 'visits', definition: 'CREATE TABLE visits (page TEXT PRIMARY KEY, n INTEGER NOT NULL)' }],
    sqlQueries: [
      { name: 'visit', query: 'INSERT INTO visits (page, n) VALUES (:page, 1) ON CONFLICT (page) DO UPDATE SET n = visits.n + 1 RETURNING n' },
      { name: 'all', query: 'SELECT page, n FROM visits ORDER BY page' },
    ],
  },
});

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

function sqliteLocation(): ToolDatabaseLocation {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-tool-sql-'));
  folders.push(dir);
  return { kind: 'sqlite', dir };
}

async function statefulAcrossRestarts(databases: ToolDatabaseLocation): Promise<void> {
  const h = await harness([SQL_TOOL], { services: services({ databases }) });
  h.fakes.on('p1', async (args, ctx) => (await ctx.sql!.query('visit', { page: String(args['page']) })).rows[0]);
  expect(await h.runtime.call('visits', { page: '/a' })).toMatchObject({ result: { n: 1 } });
  expect(await h.runtime.call('visits', { page: '/a' })).toMatchObject({ result: { n: 2 } });
  await h.runtime.close();
  // a restart: a new runtime and new services over the same place
  const again = h.another({ services: services({ databases }) });
  expect(await again.call('visits', { page: '/a' })).toMatchObject({ result: { n: 3 } });
  h.fakes.on('p1', async (_args, ctx) => (await ctx.sql!.query('all')).rows);
  expect(await again.call('visits', {})).toMatchObject({ result: [{ page: '/a', n: 3 }] });
}

describe('the tool\'s own SQL database', () => {
  it('sqlite: keeps state across calls and across a restart', async () => {
    await statefulAcrossRestarts(sqliteLocation());
  });

  it.skipIf(!probe.reachable)('postgres: keeps state across calls and across a restart, in a schema of its own', async () => {
    const schemaPrefix = `${schemaName('tc_rt')}_`;
    try {
      await statefulAcrossRestarts({ kind: 'postgres', url: PG_URL, schemaPrefix });
    } finally {
      const { toolDatabaseName } = await import('../../src/store/tool-db.js');
      await dropSchema(`${schemaPrefix}${toolDatabaseName('visits')}`);
    }
  });

  it.each([
    [false, 'refused', /ad hoc SQL is not allowed for "visits".*allowAdHoc/],
    [true, 'runs', undefined],
  ] as const)('allowAdHoc: %s: a statement of the tool\'s own %s', async (allowAdHoc, _, refusal) => {
    const h = await harness([SQL_TOOL], { services: services({ databases: sqliteLocation(), settings: { visits: { sql: { allowAdHoc } } } }) });
    h.fakes.on('p1', async (_args, ctx) => ctx.sql!.execute('SELECT COUNT(*) AS c FROM visits'));
    const call = h.runtime.call('visits', {});
    if (refusal) expect((await expectCode(call, 'PROVIDER_ERROR')).message).toMatch(refusal);
    else expect(await call).toMatchObject({ result: { rows: [{ c: 0 }] } });
  });

  it('refuses an undeclared query name, and ad hoc SQL reaching another database even when allowed', async () => {
    // a failure moves the circuit: a fresh runtime for each
    const settings = { visits: { sql: { allowAdHoc: true } } };
    const h = await harness([SQL_TOOL], { services: services({ databases: sqliteLocation(), settings }) });
    h.fakes.on('p1', async (_args, ctx) => ctx.sql!.query('drop_everything'));
    expect((await expectCode(h.runtime.call('visits', {}), 'PROVIDER_ERROR')).message).toMatch(/declares no query named "drop_everything" \(declared: visit, all\)/);
    const again = h.another({ services: services({ databases: sqliteLocation(), settings }), health: new HealthBook() });
    h.fakes.on('p1', async (_args, ctx) => ctx.sql!.execute("ATTACH DATABASE '/tmp/x.db' AS x"));
    expect((await expectCode(again.call('visits', {}), 'PROVIDER_ERROR')).message).toMatch(/refused: ATTACH/);
  });

  it('a runtime given no services keeps tool databases beside its SQLite store', async () => {
    const h = await harness([SQL_TOOL]);
    h.fakes.on('p1', async (args, ctx) => (await ctx.sql!.query('visit', { page: String(args['page']) })).rows[0]);
    expect(await h.runtime.call('visits', { page: '/b' })).toMatchObject({ result: { n: 1 } });
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(join(h.dir, 'tools')).filter((f) => f.endsWith('.db'))).toEqual([expect.stringMatching(/^visits_[0-9a-f]{8}\.db$/)]);
  });

  it('a definition the database rejects makes the tool unavailable, naming the table', async () => {
    const broken = fakeTool('broken', { storage: { sqlTables: [{ name: 't', definition: 'CREATE TABLE t (' }] } });
    const h = await harness([broken], { services: services({ databases: sqliteLocation() }) });
    const e = await expectCode(h.runtime.call('broken', {}), 'NO_HEALTHY_PROVIDER');
    expect(e.message).toMatch(/"broken" is unavailable: the definition of table "t" failed/);
    expect(h.fakes.count('broken')).toBe(0);
  });
});
