import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const script = new URL('../../scripts/build-if-stale.mjs', import.meta.url).pathname;

/** A project tree with the given files, each at the given time (seconds). */
function tree(files: Record<string, number>): string {
  const root = mkdtempSync(join(tmpdir(), 'toolcap-build-'));
  for (const file of Object.keys(files)) {
    const path = join(root, file);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '');
  }
  // times last, deepest first, so creating a file does not move its folder's time afterwards
  for (const [file, seconds] of Object.entries(files)) utimesSync(join(root, file), seconds, seconds);
  for (const dir of ['src/cli', 'src', 'dist']) utimesSync(join(root, dir), 1000, 1000);
  return root;
}

function decide(root: string): string {
  const r = spawnSync(process.execPath, [script], { env: { ...process.env, TOOLCAP_BUILD_ROOT: root, TOOLCAP_BUILD_DRY_RUN: '1' }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  return r.stderr.includes('no build yet') ? 'first build' : r.stderr.includes('sources changed') ? 'rebuild' : 'skip';
}

const base = { 'src/index.ts': 1000, 'src/cli/a.ts': 1000, 'package.json': 1000, 'tsconfig.json': 1000, 'tsconfig.build.json': 1000 };

describe('build-if-stale: npm start builds only when a source is newer than the last build', () => {
  it.each([
    ['built after every source: skip', { ...base, 'dist/index.js': 2000 }, 'skip'],
    ['a nested source edited after the build: rebuild', { ...base, 'src/cli/a.ts': 3000, 'dist/index.js': 2000 }, 'rebuild'],
    ['package.json edited after the build: rebuild', { ...base, 'package.json': 3000, 'dist/index.js': 2000 }, 'rebuild'],
    ['tsconfig.build.json edited after the build: rebuild', { ...base, 'tsconfig.build.json': 3000, 'dist/index.js': 2000 }, 'rebuild'],
    ['no dist: first build', { ...base, 'dist/other.js': 2000 }, 'first build'],
  ] as const)('%s', (_label, files, expected) => {
    expect(decide(tree(files))).toBe(expected);
  });
});
