import { describe, expect, it } from 'vitest';
import type { Provider, Tool } from '../../../src/model/schema.js';
import { declaredEnvNames } from '../../../src/runtime/providers/declared-env.js';

describe('declaredEnvNames', () => {
  it.each<[string, Tool, Provider | undefined, string[]]>([
    ['nothing declared', { name: 't' }, undefined, []],
    ['auth.envs', { name: 't', auth: { envs: { GITHUB_TOKEN: {}, GH_HOST: {} } } }, undefined, ['GH_HOST', 'GITHUB_TOKEN']],
    ['requiredEnv', { name: 't' }, { name: 'p', config: { requiredEnv: ['PGPASSWORD', 3, ''] } }, ['PGPASSWORD']],
    ['*_env and *Env config keys', { name: 't' }, { name: 'p', config: { api_key_env: 'SEARCH_KEY', tokenEnv: 'TOKEN', environment: 'prod' } }, ['SEARCH_KEY', 'TOKEN']],
    ['nested auth.env (http)', { name: 't' }, { name: 'p', config: { auth: { type: 'bearer', env: 'API_TOKEN' } } }, ['API_TOKEN']],
    ['not config.env values (they are set, not passed through)', { name: 't' }, { name: 'p', config: { env: { MODE: 'fast', TOKEN: '${SECRET}' } } }, []],
  ])('%s', (_label, tool, entry, expected) => {
    expect(declaredEnvNames(tool, entry)).toEqual(expected);
  });
});
