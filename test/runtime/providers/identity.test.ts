import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeIdentityOf, fileSha256 } from '../../../src/runtime/providers/identity.js';

const dir = mkdtempSync(join(tmpdir(), 'toolcap-identity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('code identity helpers', () => {
  it('codeIdentityOf ignores key order and names the type', () => {
    expect(codeIdentityOf('http', { a: 1, b: [1, 2] })).toBe(codeIdentityOf('http', { b: [1, 2], a: 1 }));
    expect(codeIdentityOf('http', { a: 1 })).not.toBe(codeIdentityOf('command', { a: 1 }));
  });

  it('fileSha256 hashes the bytes and follows edits of the same size', async () => {
    const file = join(dir, 'f');
    writeFileSync(file, 'one');
    const a = await fileSha256(file);
    expect(a).toBe('7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed');
    expect(await fileSha256(file)).toBe(a);
    writeFileSync(file, 'two');
    expect(await fileSha256(file)).not.toBe(a);
  });

  it('fileSha256 is undefined for a folder or a missing file', async () => {
    expect(await fileSha256(dir)).toBeUndefined();
    expect(await fileSha256(join(dir, 'missing'))).toBeUndefined();
  });
});
