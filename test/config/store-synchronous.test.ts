/**
 * `store.synchronous`: the SQLite store's sync setting, `full` (the default,
 * left out of the config when not given) or `normal`; anything else, or the
 * key on a PostgreSQL store, is refused with a located diagnostic. The store
 * opens with it (openStore passes it to openSqliteStore).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { configLoader } from './helpers.js';

const load = configLoader('toolcap-store-sync-');

describe('store.synchronous', () => {
  it.each([
    ['normal beside path', 'store: { path: a.db, synchronous: normal }\n', { kind: 'sqlite', synchronous: 'normal' }],
    ['full beside path', 'store: { path: a.db, synchronous: full }\n', { kind: 'sqlite', synchronous: 'full' }],
    ['alone (the default store)', 'store: { synchronous: normal }\n', { kind: 'sqlite', synchronous: 'normal' }],
    ['with the key variable', 'store: { synchronous: normal, secretKeyEnv: MY_KEY }\n', { kind: 'sqlite', synchronous: 'normal', secretKeyEnv: 'MY_KEY' }],
  ])('is read %s', (_label, yaml, expected) => {
    const { config, diagnostics } = load(yaml);
    expect(diagnostics).toEqual([]);
    expect(config?.store).toMatchObject(expected);
  });

  it('is absent unless given (the store defaults to full)', () => {
    const { config, diagnostics } = load('store: { path: a.db }\n');
    expect(diagnostics).toEqual([]);
    expect(config?.store).not.toHaveProperty('synchronous');
  });

  it.each([
    ['an unknown value', 'store: { path: a.db, synchronous: off }\n', 'UNKNOWN_ENUM_VALUE', '/store/synchronous'],
    ['a number', 'store: { path: a.db, synchronous: 1 }\n', 'TYPE_MISMATCH', '/store/synchronous'],
    ['a PostgreSQL store', 'store: { url: "postgres://h/db", synchronous: normal }\n', 'INVALID_VALUE', '/store/synchronous'],
  ])('refuses %s', (_label, yaml, code, pointer) => {
    const { config, diagnostics } = load(yaml);
    expect(diagnostics).toMatchObject([{ code, pointer }]);
    expect(config?.store ?? {}).not.toHaveProperty('synchronous');
  });

  it.each(['full', 'normal'] as const)('opens an SQLite store with synchronous=%s', async (synchronous) => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcap-store-sync-open-'));
    try {
      const store = await openStore({ kind: 'sqlite', path: join(dir, 't.db'), synchronous });
      await store.appendAudit({ at: new Date().toISOString(), kind: 'test', tool: null, callId: null, persona: null, actor: null, detail: {} });
      expect((await store.listAudit({})).length).toBe(1);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
