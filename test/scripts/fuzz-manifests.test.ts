import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const script = new URL('../../scripts/fuzz-manifests.mjs', import.meta.url).pathname;
const fuzz = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('scripts/fuzz-manifests.mjs command line', () => {
  it.each([['--help'], ['-h']])('%s prints every option and runs nothing', (flag) => {
    const r = fuzz(flag);
    expect(r.status).toBe(0);
    for (const option of ['--seed', '--count', '--from', '--formats', '--classes', '--workers', '--budget', '--slow', '--heap-mb', '--targets', '--no-convert', '--out', '--quiet']) {
      expect(r.stdout).toContain(`  ${option} `);
    }
    expect(r.stdout).not.toContain('"findings"');
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--count', 'x'], '--count must be a whole number, not "x"'],
    [['--budget=-5'], '--budget must be a whole number, not "-5"'],
    [['--budget', '-5'], "Option '--budget' argument is ambiguous"],
    [['--classes', 'bytes,nope'], 'unknown --classes nope; known: bytes,'],
    [['--count', '1', 'stray'], "Unexpected argument 'stray'"],
  ])('%j -> exit 2, saying what is wrong, then the usage', (args, message) => {
    const r = fuzz(...args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('Usage: node scripts/fuzz-manifests.mjs');
    expect(r.stdout).toBe('');
  });
});
