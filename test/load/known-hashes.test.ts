// loadLayers with `knownHashes` (the registry's fingerprint): a file whose
// known hash is the one its cached import was kept under is not read again;
// any other hash, or none, reads it. Asserted on what was loaded and on the
// cache's counters, never on timing.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportCache } from '../../src/load/import-cache.js';
import { loadLayers, type LoadedDocument } from '../../src/load/loader.js';
import { fileHashes, takeFingerprint } from '../../src/registry/fingerprint.js';

const dir = mkdtempSync(join(tmpdir(), 'toolcap-known-hashes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const doc = (description: string) => JSON.stringify({ toolcap: 1, tools: [{ name: 'k.one', description }] });
const names = (r: ReturnType<typeof loadLayers>) => r.layers.flatMap((l) => l.documents.flatMap((d) => d.imported.tools.map((t) => `${t.value.name}: ${t.value.description}`)));

describe('loadLayers with known hashes', () => {
  it('reuses a cached import by the known hash without reading the file; another hash reads it', async () => {
    const file = join(dir, 'k.json');
    writeFileSync(file, doc('first'));
    const cache = new ImportCache<LoadedDocument>();
    const print = await takeFingerprint([dir], undefined);
    const known = fileHashes(print);
    // the fingerprint's hash is the hash of the bytes the loader keeps imports under
    expect(known.get(file)).toBe(createHash('sha256').update(readFileSync(file)).digest('hex'));
    expect(names(loadLayers([dir], { cache, knownHashes: known }))).toEqual(['k.one: first']);
    expect(cache.stats).toEqual({ hits: 0, misses: 1 });

    // the file changes after the fingerprint: told the old hash, the build serves what the fingerprint saw
    writeFileSync(file, doc('second'));
    expect(names(loadLayers([dir], { cache, knownHashes: known }))).toEqual(['k.one: first']);
    expect(cache.stats).toEqual({ hits: 1, misses: 1 });

    // a new fingerprint has the new hash: the file is read and imported again
    const again = fileHashes(await takeFingerprint([dir], print));
    expect(names(loadLayers([dir], { cache, knownHashes: again }))).toEqual(['k.one: second']);
    expect(cache.stats).toEqual({ hits: 1, misses: 2 });

    // no known hash: read and hashed as before (a hit, same bytes)
    expect(names(loadLayers([dir], { cache }))).toEqual(['k.one: second']);
    expect(cache.stats).toEqual({ hits: 2, misses: 2 });
  });
});
