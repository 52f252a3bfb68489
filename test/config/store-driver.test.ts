/**
 * `store.driver`: the SQLite driver (docs/store.md), beside `path` or alone
 * with the default store, carried to `openStore` and from there to the
 * store; refused for a PostgreSQL store and for a name that is no driver.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { availableSqliteDrivers } from '../../src/store/sqlite-driver.js';
import { defaultToolDatabases } from '../../src/runtime/tool-services.js';
import { configLoader } from './helpers.js';

const load = configLoader('toolcap-store-driver-');
const root = mkdtempSync(join(tmpdir(), 'toolcap-store-driver-open-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('store.driver', () => {
  it.each([
    ['beside path', 'store: { path: a.db, driver: node-sqlite }\n', { kind: 'sqlite', driver: 'node-sqlite' }],
    ['alone (the default store)', 'store: { driver: better-sqlite3 }\n', { kind: 'sqlite', driver: 'better-sqlite3' }],
    ['with secretKeyEnv', 'store: { driver: node-sqlite, secretKeyEnv: MY_KEY }\n', { kind: 'sqlite', driver: 'node-sqlite', secretKeyEnv: 'MY_KEY' }],
    ['with synchronous (both reach the store)', 'store: { path: a.db, driver: node-sqlite, synchronous: normal }\n', { kind: 'sqlite', driver: 'node-sqlite', synchronous: 'normal' }],
  ])('is read %s', (_label, yaml, expected) => {
    const { config, diagnostics } = load(yaml);
    expect(diagnostics).toEqual([]);
    expect(config?.store).toMatchObject(expected);
  });

  it('is absent unless given (the driver is then chosen at open)', () => {
    const { config } = load('store: { path: a.db }\n');
    expect(config?.store).not.toHaveProperty('driver');
  });

  it.each([
    ['a name that is no driver', 'store: { path: a.db, driver: sqlite3 }\n', 'INVALID_VALUE', '/store/driver'],
    ['beside a PostgreSQL url', 'store: { url: "postgres://h/db", driver: node-sqlite }\n', 'INVALID_VALUE', '/store/driver'],
    ['a number', 'store: { path: a.db, driver: 3 }\n', 'TYPE_MISMATCH', '/store/driver'],
  ])('refuses %s', (_label, yaml, code, pointer) => {
    const { config, diagnostics } = load(yaml);
    expect(diagnostics).toMatchObject([{ code, pointer }]);
    expect(config?.store ?? {}).not.toHaveProperty('driver');
  });

  it.each(availableSqliteDrivers())('openStore opens the store on %s, and tools\' databases beside it use the same', async (driver) => {
    const store = await openStore({ kind: 'sqlite', path: join(root, driver, 'toolcap.db'), driver });
    try {
      expect(store.sqliteDriver).toBe(driver);
      expect(defaultToolDatabases(store)).toEqual({ kind: 'sqlite', dir: join(root, driver, 'tools'), driver });
    } finally {
      await store.close();
    }
  });
});
