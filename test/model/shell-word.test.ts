import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellWord } from '../../src/model/shell-word.js';

describe('shellWord: a printed hint stays one word in a real shell, and nothing in it runs', () => {
  it.each([
    ['a plain relative path, unquoted', 'examples/toolcap.config.yaml', 'examples/toolcap.config.yaml'],
    ['a URL, unquoted', 'http://127.0.0.1:4317', 'http://127.0.0.1:4317'],
    ['spaces', '/tmp/my configs/toolcap.config.yaml', `'/tmp/my configs/toolcap.config.yaml'`],
    ['command substitution', '/tmp/cfg $(touch /tmp/x) y.yaml', `'/tmp/cfg $(touch /tmp/x) y.yaml'`],
    ['backticks and variables', 'a`id`$HOME', `'a\`id\`$HOME'`],
    ['a single quote', "it's.yaml", `'it'\\''s.yaml'`],
    ['a newline and a semicolon', 'a\nb; rm -rf x', `'a\nb; rm -rf x'`],
  ])('%s', (_label, word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
    // /bin/sh reads it back as exactly one argument, the word itself
    const r = spawnSync('/bin/sh', ['-c', `printf '%s\\0' ${shellWord(word)}`], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${word}\0`);
  });
});
