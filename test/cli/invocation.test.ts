import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocation } from '../../src/cli/invocation.js';

// a checkout with bin/toolcap.js, a PATH folder whose `toolcap` links to it, and one whose `toolcap` is another file
const root = mkdtempSync(join(tmpdir(), 'toolcap-invocation-'));
const script = join(root, 'checkout', 'bin', 'toolcap.js');
mkdirSync(join(root, 'checkout', 'bin'), { recursive: true });
writeFileSync(script, '#!/usr/bin/env node\n');
mkdirSync(join(root, 'linked'));
symlinkSync(script, join(root, 'linked', 'toolcap'));
mkdirSync(join(root, 'other'));
writeFileSync(join(root, 'other', 'toolcap'), '#!/bin/sh\n');

describe('invocation(): the command a hint names works from where the reader is', () => {
  it.each([
    ['toolcap on PATH is this script (npm link, a global install)', { PATH: join(root, 'linked') }, join(root, 'checkout'), 'toolcap'],
    ['on PATH, even when npm started it', { PATH: join(root, 'linked'), npm_command: 'exec' }, join(root, 'checkout'), 'toolcap'],
    ['npx toolcap in the checkout', { PATH: '', npm_command: 'exec' }, join(root, 'checkout'), 'npx toolcap'],
    ['npm start', { PATH: '', npm_lifecycle_event: 'start' }, join(root, 'checkout'), 'npx toolcap'],
    ['another toolcap on PATH is not this one: node and the path, relative from the checkout', { PATH: join(root, 'other') }, join(root, 'checkout'), 'node bin/toolcap.js'],
    ['run by path from elsewhere: the absolute path', { PATH: '' }, join(root, 'other'), `node ${script}`],
  ] as const)('%s', (_label, env, cwd, expected) => {
    expect(invocation({ env, script, cwd })).toBe(expected);
  });

  it('no script (embedded): plain toolcap', () => {
    expect(invocation({ env: {}, script: undefined, cwd: root })).toBe('toolcap');
  });
});
