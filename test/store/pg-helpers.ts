/**
 * The PostgreSQL server the store tests use: `TOOLCAP_TEST_PG_URL`, or the
 * local server of the development machine. Each test works in its own schema,
 * dropped afterwards.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export const PG_URL = process.env.TOOLCAP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether the server answers (within 3 s), and why not. */
export async function probePostgres(): Promise<{ reachable: boolean; reason: string }> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { reachable: true, reason: '' };
  } catch (err) {
    return { reachable: false, reason: `PostgreSQL at ${PG_URL.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1@')} is not reachable (${err instanceof Error ? err.message : String(err)}); set TOOLCAP_TEST_PG_URL or start the server` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function schemaName(prefix = 'toolcap_test'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** Run one statement on a separate connection whose search_path is `schema`. */
export async function rawPg(schema: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A new, empty database on the test server (for tests of several instances:
 * NOTIFY is per database), and how to drop it (closing what is still
 * connected to it).
 */
export async function freshDatabase(prefix = 'toolcap_test'): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = schemaName(prefix);
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: PG_URL });
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
