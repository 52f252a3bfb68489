/**
 * The host wires tools' own databases into the store's place: with a
 * PostgreSQL store (named by the config's `store.url`) a tool that declares
 * tables gets a schema of its own on the same server, created on its first
 * call, kept across a close and reopen, and apart from the store's schema
 * even when the store's URL sets a `search_path`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createToolcap } from '../src/host.js';
import { toolDatabaseName } from '../src/store/tool-db.js';
import { PG_URL, dropSchema, probePostgres, schemaName } from './store/pg-helpers.js';

const probe = await probePostgres();
if (!probe.reachable) console.warn(`[toolcap] skipping the host's PostgreSQL tool database test: ${probe.reason}`);

const dirs: string[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const s of schemas) await dropSchema(s);
});

async function query<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(!probe.reachable)('a PostgreSQL store: tools\' own schemas', () => {
  it('creates the tool\'s schema on its first call and keeps its rows across a reopen', async () => {
    const tool = `tally_${randomBytes(4).toString('hex')}`;
    const storeSchema = schemaName('tc_host_store');
    const toolSchema = `toolcap_tool_${toolDatabaseName(tool)}`;
    schemas.push(storeSchema, toolSchema);
    await query(`CREATE SCHEMA ${storeSchema}`);
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-host-tools-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'm'));
    writeFileSync(join(dir, 'm', 't.mjs'), "export async function run(args, ctx) { return (await ctx.sql.query('bump', { name: ctx.configurations.counter })).rows[0]; }\n");
    const manifest = {
      toolcap: 1,
      tools: [
        {
          name: tool,
          description: 'Counts calls in its own table',
          configSchema: { type: 'object', properties: { counter: { type: 'string' } }, required: ['counter'] },
          implementation: { module: './t.mjs', export: 'run' },
          effects: { mode: 'write', sideEffects: 'database', reversible: 'none' },
          approval: { required: false },
          storage: {
            sqlTables: [{ name: 'tally', definition: 'CREATE TABLE tally (name TEXT PRIMARY KEY, n INTEGER NOT NULL)' }],
            sqlQueries: [{ name: 'bump', query: 'INSERT INTO tally (name, n) VALUES (:name, 1) ON CONFLICT (name) DO UPDATE SET n = tally.n + 1 RETURNING n' }],
          },
        },
      ],
    };
    writeFileSync(join(dir, 'm', 'tools.json'), JSON.stringify(manifest));
    const url = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${storeSchema}`)}`;
    writeFileSync(join(dir, 'toolcap.config.yaml'), `sources: [m]\nstore: { url: "${url}" }\ntools:\n  ${tool}:\n    configurations: { counter: visits }\n`);
    const warnings: string[] = [];
    const open = () => createToolcap(join(dir, 'toolcap.config.yaml'), { traces: false, warn: (m) => warnings.push(m) });

    const first = await open();
    try {
      expect(await first.runtime.call(tool, {})).toMatchObject({ status: 'ok', result: { n: 1 } });
      expect(await first.runtime.call(tool, {})).toMatchObject({ status: 'ok', result: { n: 2 } });
    } finally {
      await first.close();
    }
    const again = await open();
    try {
      expect(await again.runtime.call(tool, {})).toMatchObject({ status: 'ok', result: { n: 3 } });
    } finally {
      await again.close();
    }
    expect(warnings).toEqual([]);
    const tables = await query<{ schemaname: string; tablename: string }>("SELECT schemaname, tablename FROM pg_tables WHERE tablename = 'tally' AND schemaname IN ($1, $2)", [storeSchema, toolSchema]);
    expect(tables).toEqual([{ schemaname: toolSchema, tablename: 'tally' }]);
  });
});
