import { describe, expect, it } from 'vitest';
import { BASE_ENV, envAllowList } from '../../../src/runtime/containment/child-env.js';

const parent = { PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', TZ: 'UTC', SHELL: '/bin/bash', TERM: 'xterm', PGPASSWORD: 'pw', GITHUB_TOKEN: 't', NODE_OPTIONS: '--inspect', EMPTY: '' };

describe('envAllowList', () => {
  it.each([
    [[], { PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', TZ: 'UTC' }],
    [['GITHUB_TOKEN'], { PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', TZ: 'UTC', GITHUB_TOKEN: 't' }],
    [['UNSET', 'EMPTY'], { PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', TZ: 'UTC', EMPTY: '' }],
    [['PGPASSWORD'], { PATH: '/bin', HOME: '/h', LANG: 'C.UTF-8', TZ: 'UTC', PGPASSWORD: 'pw' }],
  ])('declared %j', (declared, expected) => {
    expect(envAllowList({ base: parent, declared })).toEqual(expected);
  });

  it('never passes the undeclared secrets, SHELL, TERM or NODE_OPTIONS', () => {
    const env = envAllowList({ base: parent, declared: [] });
    for (const name of ['PGPASSWORD', 'GITHUB_TOKEN', 'SHELL', 'TERM', 'NODE_OPTIONS']) expect(env).not.toHaveProperty(name);
    expect(BASE_ENV).toContain('PATH');
  });

  it('reads process.env by default', () => {
    expect(envAllowList({ declared: [] })['PATH']).toBe(process.env['PATH']);
  });
});
