import { describe, expect, it } from 'vitest';
import { missingEnv } from '../../src/runtime/credentials.js';

describe('declarative provider readiness: the env vars an entry names', () => {
  const google = { name: 'google_cse', priority: 0, config: { api_key_env: 'GOOGLE_API_KEY', cse_id_env: 'GOOGLE_CSE_ID' } };
  it.each([
    ['both set', google, { GOOGLE_API_KEY: 'k', GOOGLE_CSE_ID: 'c' }, []],
    ['one missing', google, { GOOGLE_API_KEY: 'k' }, ['GOOGLE_CSE_ID']],
    ['one empty', google, { GOOGLE_API_KEY: '', GOOGLE_CSE_ID: 'c' }, ['GOOGLE_API_KEY']],
    ['requiredEnv list', { name: 'x', config: { requiredEnv: ['A', 'B'] } }, { A: '1' }, ['B']],
    ['camelCase *Env key', { name: 'x', config: { tokenEnv: 'TOKEN' } }, {}, ['TOKEN']],
    ['no config', { name: 'serpapi', priority: 10 }, {}, []],
    ['non-string values are not names', { name: 'x', config: { api_key_env: 3, requiredEnv: [1, 'C'] } }, { C: 'c' }, []],
  ])('%s', (_name, entry, env, expected) => {
    expect(missingEnv(entry, env)).toEqual(expected);
  });
});
