/**
 * `store.secretKeyEnv`: the variable holding the OAuth token key, beside
 * `path` or `url` or alone; anything but a variable name is refused (the
 * config names the variable, never the key).
 */
import { describe, expect, it } from 'vitest';
import { configLoader } from './helpers.js';

const load = configLoader('toolcap-secret-key-');

describe('store.secretKeyEnv', () => {
  it.each([
    ['beside path', 'store: { path: a.db, secretKeyEnv: MY_KEY }\n', { kind: 'sqlite', secretKeyEnv: 'MY_KEY' }],
    ['beside url', 'store: { url: "postgres://h/db", secretKeyEnv: MY_KEY }\n', { kind: 'postgres', url: 'postgres://h/db', secretKeyEnv: 'MY_KEY' }],
    ['alone (the default store)', 'store: { secretKeyEnv: MY_KEY }\n', { kind: 'sqlite', secretKeyEnv: 'MY_KEY' }],
    ['absent', 'store: { path: a.db }\n', { kind: 'sqlite' }],
  ])('is read %s', (_label, yaml, expected) => {
    const { config, diagnostics } = load(yaml);
    expect(diagnostics).toEqual([]);
    expect(config?.store).toMatchObject(expected);
    if (!yaml.includes('secretKeyEnv')) expect(config?.store).not.toHaveProperty('secretKeyEnv');
  });

  it.each([
    ['a key instead of a variable name', 'store: { path: a.db, secretKeyEnv: "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq8=" }\n', 'INVALID_VALUE', '/store/secretKeyEnv'],
    ['a number', 'store: { path: a.db, secretKeyEnv: 3 }\n', 'TYPE_MISMATCH', '/store/secretKeyEnv'],
  ])('refuses %s', (_label, yaml, code, pointer) => {
    const { diagnostics } = load(yaml);
    expect(diagnostics).toMatchObject([{ code, pointer }]);
    expect(JSON.stringify(diagnostics)).not.toContain('q83vEjRWeJ');
  });
});
