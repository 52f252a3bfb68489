/**
 * 5. Paths: a missing file, a folder with no manifests, a folder with a
 * symbolic-link loop, an unreadable file, and a folder where a file is
 * expected (and the other way round). Exit 2 only for a path that cannot be
 * read; never 70, never a stack trace.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';
import { expectNoCrash, put, tmp, validate, removeTmp } from './helpers.js';

afterAll(removeTmp);

const GOOD = 'toolcap: 1\ntools:\n  - name: a\n    effects: { mode: read, sideEffects: none }\n';
const LIMIT_MS = 10_000;

describe('paths that are not there or hold nothing', () => {
  it('a missing file -> exit 2, PATH_NOT_FOUND', async () => {
    const missing = join(tmp(), 'nope', 'tools.yaml');
    const r = await validate(missing);
    expect(r.code).toBe(2);
    expect(r.diagnostics).toMatchObject([{ code: 'PATH_NOT_FOUND', file: missing }]);
  });

  it('a missing file among good ones -> exit 2, the good ones still read', async () => {
    const good = put(tmp(), 'tools.yaml', GOOD);
    const r = await validate(good, join(tmp(), 'missing.yaml'));
    expect(r.code).toBe(2);
    expect(r.tools).toBe(1);
  });

  it('a folder with no manifests -> exit 0, zero tools', async () => {
    const dir = tmp();
    put(dir, 'README.md', '# nothing here\n');
    put(dir, 'notes.txt', 'toolcap: 1\n');
    mkdirSync(join(dir, 'empty', 'deeper'), { recursive: true });
    put(dir, '.hidden/tools.yaml', GOOD);
    put(dir, 'node_modules/pkg/tools.yaml', GOOD);
    const r = await validate(dir);
    expect(r).toMatchObject({ code: 0, tools: 0 });
    expect(r.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
  });

  it('a file path with a trailing slash -> exit 2', async () => {
    const file = put(tmp(), 'tools.yaml', GOOD);
    const r = await validate(`${file}/`);
    expect(r.code).toBe(2);
  });
});

describe('symbolic-link loops', () => {
  function loopFolder(): string {
    const dir = tmp();
    put(dir, 'tools.yaml', GOOD);
    symlinkSync(dir, join(dir, 'self'));
    symlinkSync(join(dir, 'b.yaml'), join(dir, 'a.yaml'));
    symlinkSync(join(dir, 'a.yaml'), join(dir, 'b.yaml'));
    mkdirSync(join(dir, 'sub'));
    symlinkSync('..', join(dir, 'sub', 'up'));
    return dir;
  }

  it('in a folder walk: finishes, skips every link with a NOT_A_MANIFEST note, reads the rest', async () => {
    const dir = loopFolder();
    const r = await validate(dir);
    expect(r).toMatchObject({ code: 0, tools: 1 });
    const notes = r.diagnostics.filter((d) => d.code === 'NOT_A_MANIFEST');
    expect(notes.map((d) => d.file).sort()).toEqual([join(dir, 'a.yaml'), join(dir, 'b.yaml'), join(dir, 'self'), join(dir, 'sub', 'up')].sort());
    for (const d of notes) expect(d.severity).toBe('info');
  }, LIMIT_MS);

  it('a looping link given as the path -> exit 2, PATH_NOT_FOUND', async () => {
    const dir = loopFolder();
    const r = await validate(join(dir, 'a.yaml'));
    expect(r.code).toBe(2);
    expect(r.diagnostics).toMatchObject([{ code: 'PATH_NOT_FOUND' }]);
  }, LIMIT_MS);

  it('a link to its own folder given as the path: finishes and reads the folder once', async () => {
    const dir = loopFolder();
    const r = await validate(join(dir, 'self'));
    expect(r).toMatchObject({ code: 0, tools: 1 });
  }, LIMIT_MS);
});

describe('unreadable files', () => {
  const root = process.getuid?.() === 0;

  it('an unreadable file given as the path -> exit 2, FILE_UNREADABLE', async () => {
    if (root) {
      // root reads anything chmod forbids; /proc/self/mem fails to read for everyone (EIO)
      expect(existsSync('/proc/self/mem')).toBe(true);
      const r = await validate('/proc/self/mem');
      expect(r.code).toBe(2);
      expect(r.diagnostics).toMatchObject([{ code: 'FILE_UNREADABLE', file: '/proc/self/mem' }]);
    } else {
      const file = put(tmp(), 'tools.yaml', GOOD);
      chmodSync(file, 0o000);
      const r = await validate(file);
      expect(r.code).toBe(2);
      expect(r.diagnostics).toMatchObject([{ code: 'FILE_UNREADABLE', file }]);
    }
  });

  it('a chmod 000 file in a folder walk -> FILE_UNREADABLE and exit 1 (as root: read like any file)', async () => {
    const dir = tmp();
    put(dir, 'a.yaml', GOOD);
    const locked = put(dir, 'b.yaml', GOOD.replace('name: a', 'name: b'));
    chmodSync(locked, 0o000);
    const r = await validate(dir);
    if (root) {
      expect(r).toMatchObject({ code: 0, tools: 2 });
    } else {
      expect(r.code).toBe(1);
      expect(r.tools).toBe(1);
      expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'FILE_UNREADABLE', file: locked }));
    }
  });

  it('a chmod 000 sub-folder in a folder walk -> FILE_UNREADABLE, the rest read (as root: read like any folder)', async () => {
    const dir = tmp();
    put(dir, 'a.yaml', GOOD);
    put(dir, 'locked/b.yaml', GOOD.replace('name: a', 'name: b'));
    chmodSync(join(dir, 'locked'), 0o000);
    const r = await validate(dir);
    chmodSync(join(dir, 'locked'), 0o755);
    if (root) {
      expect(r).toMatchObject({ code: 0, tools: 2 });
    } else {
      expect(r.code).toBe(1);
      expect(r.tools).toBe(1);
      expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'FILE_UNREADABLE' }));
    }
  });
});

describe('a folder where a file is expected, a file where a folder is expected', () => {
  it('inspect --out <an existing folder> -> a usage error, not a crash', async () => {
    const input = put(tmp(), 'tools.yaml', GOOD);
    const out = tmp();
    const r = await cli('inspect', input, '--out', out);
    expectNoCrash(r);
    expect([1, 2]).toContain(r.code);
  });

  it('convert --to toolcap --out <an existing folder> -> a usage error, not a crash', async () => {
    const input = put(tmp(), 'tools.yaml', GOOD);
    const out = tmp();
    const r = await cli('convert', input, '--to', 'toolcap', '--out', out);
    expectNoCrash(r);
    expect([1, 2]).toContain(r.code);
  });

  it('convert --to atlas --out <an existing file> -> a usage error, not a crash; the file is untouched', async () => {
    // a shared tool and a persona's tool: two files, so --out must be a folder
    const input = put(tmp(), 'tools.yaml', `${GOOD}  - name: b\n    scope: { personas: [Ops] }\n    effects: { mode: read, sideEffects: none }\n`);
    const out = put(tmp(), 'out.txt', 'keep me');
    const r = await cli('convert', input, '--to', 'atlas', '--out', out);
    expectNoCrash(r);
    expect([1, 2]).toContain(r.code);
    expect(readFileSync(out, 'utf8')).toBe('keep me');
  });

  it('inspect --out below an existing file -> a usage error, not a crash', async () => {
    const input = put(tmp(), 'tools.yaml', GOOD);
    const blocker = put(tmp(), 'file.json', '{}');
    const r = await cli('inspect', input, '--out', join(blocker, 'catalog.json'));
    expectNoCrash(r);
    expect([1, 2]).toContain(r.code);
  });

  it('a manifest folder named like a manifest file is walked, not read as a file', async () => {
    const dir = tmp();
    put(dir, 'tools.yaml/inner.yaml', GOOD);
    const r = await validate(join(dir, 'tools.yaml'));
    expect(r).toMatchObject({ code: 0, tools: 1 });
  });
});
