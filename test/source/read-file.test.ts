// The one bounded read of a manifest file (source/read-file.ts), sync and async: everything is judged on the open
// file, so what the name is at the moment of the read counts (a FIFO or device never blocks it, nothing past the
// limit is read). The loader, referenced files and the registry's change detection read through it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileLimited, readFileLimitedAsync, type FileBytes } from '../../src/source/read-file.js';
import { loadLayers } from '../../src/load/loader.js';

const dir = mkdtempSync(join(tmpdir(), 'toolcap-read-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
const posix = process.platform !== 'win32';

type Case = [string, () => string, number, Partial<FileBytes> & { text?: string }];
const cases: Case[] = [
  ['a small file', () => file('a.json', '{"a": 1}'), 100, { ok: true, text: '{"a": 1}' }],
  ['an empty file', () => file('e.json', ''), 100, { ok: true, text: '' }],
  ['a file exactly at the limit', () => file('x.json', 'x'.repeat(100)), 100, { ok: true, text: 'x'.repeat(100) }],
  ['a file one byte over', () => file('y.json', 'y'.repeat(101)), 100, { ok: false, problem: 'too-large', size: 101 }],
  ['a missing file', () => join(dir, 'missing.json'), 100, { ok: false, problem: 'unreadable', code: 'ENOENT' }],
  ['a folder', () => (mkdirSync(join(dir, 'folder.json'), { recursive: true }), join(dir, 'folder.json')), 100, { ok: false, problem: 'not-a-file' }],
  ...(posix
    ? ([
        ['a FIFO without a writer', () => (execFileSync('mkfifo', [join(dir, 'pipe.json')]), join(dir, 'pipe.json')), 100, { ok: false, problem: 'not-a-file' }],
        ['/dev/zero', () => '/dev/zero', 100, { ok: false, problem: 'not-a-file' }],
      ] satisfies Case[])
    : []),
];

describe('readFileLimited', () => {
  it.each(cases)('%s', async (_label, make, max, want) => {
    const path = make();
    for (const read of [readFileLimited(path, max), await readFileLimitedAsync(path, max)]) {
      const { text, ...rest } = want;
      expect(read).toMatchObject(rest);
      if (text !== undefined && read.ok) expect(read.bytes.toString('utf8')).toBe(text);
    }
  });
});

describe('the loader reads through it', () => {
  it.skipIf(!posix)('a FIFO named as a layer is FILE_UNREADABLE, the layer unreadable, at once', () => {
    const fifo = join(dir, 'layer-pipe.json');
    execFileSync('mkfifo', [fifo]);
    const result = loadLayers([fifo]);
    expect(result.unreadable).toBe(true);
    expect(result.diagnostics).toMatchObject([{ code: 'FILE_UNREADABLE' }]);
  });

  it('a file over limits.maxBytes is FILE_TOO_LARGE with its size', () => {
    const big = file('big.json', `{"tools": [], "pad": "${'z'.repeat(500)}"}`);
    const result = loadLayers([big], { limits: { maxBytes: 100 } });
    expect(result.diagnostics).toMatchObject([{ code: 'FILE_TOO_LARGE', message: expect.stringContaining('over the limit of 100') }]);
  });
});
