/**
 * What `npm pack` puts in the tarball the README tells people to install
 * from (toolcap is not on the registry): every path the docs send a user to
 * once it is installed, and nothing from the tests.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const packed = (): string[] => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
};

describe('npm pack: the tarball a user installs', () => {
  const files = packed();
  it.each([
    'bin/toolcap.js',
    'dist/index.js',
    'dist/entries/host.js',
    'dist/entries/mcp.js',
    'dist/entries/server.js',
    'schema/toolcap.schema.json',
    'schema/atlas-functions.schema.json',
    'runners/pylot_runner.py',
    'README.md',
    'package.json',
  ])('holds %s', (path) => {
    expect(files).toContain(path);
  });

  it('holds no tests, examples state or sources of secrets', () => {
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('examples/') || f.includes('.toolcap/') || f.endsWith('.db'))).toEqual([]);
  });
});
