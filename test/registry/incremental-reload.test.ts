// A reload through the build worker reuses what did not change: files by
// content hash, unchanged entries as they were (registry/catalog-transfer.ts)
// and the previous snapshot's indexes (registry/index-update.ts). Here the
// result is held equal to a full build of the same files, on a catalog where
// one file changes, one is added, one is removed and an override layer
// changes, all in one reload; over one-file reloads of a file that stands
// apart, which reuse every other file's tool entries whole (tool-reuse.ts;
// its own test covers the edits that decline); and updateIndex is held equal to indexing
// afresh (and shown to be used, not declined). The worker runs the compiled
// script in dist/ (npm run build).
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BuildMemo, catalogEtag } from '../../src/registry/build-memo.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { CatalogDecoder, CatalogEncoder } from '../../src/registry/catalog-transfer.js';
import { updateIndex } from '../../src/registry/index-update.js';
import { Registry, type ReloadEvent } from '../../src/registry/registry.js';
import { MAX_DEPTH, OverlayMap } from '../../src/registry/overlay-map.js';
import { indexTools, indexToolsNow, type SnapshotIndex } from '../../src/registry/snapshot-index.js';
import { createSnapshot, type Snapshot } from '../../src/registry/snapshot.js';
import { DEFAULT_LIMITS } from '../../src/source/source.js';

const DIST_WORKER = new URL('../../dist/registry/build-worker.js', import.meta.url);

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** `count` tools named `<prefix>.tN`: every 5th scoped to atlas or medic, every 7th disabled, every 9th (outside a) a persona's version of a tool of a. */
const tools = (prefix: string, gen: number, count = 40) =>
  Array.from({ length: count }, (_, i) => ({
    name: i % 9 === 4 && prefix !== 'a' ? `a.t${i}` : `${prefix}.t${i}`,
    description: `${prefix} tool ${i}, generation ${i === 3 ? gen : 0}`,
    effects: { mode: 'read' },
    ...(i % 5 === 0 ? { scope: { personas: [i % 2 === 0 ? 'atlas' : 'medic'] } } : {}),
    ...(i % 9 === 4 && prefix !== 'a' ? { scope: { personas: [prefix === 'b' ? 'atlas' : 'medic'] } } : {}),
    ...(i % 7 === 6 ? { enabled: false } : {}),
  }));
const write = (file: string, list: object[]) => writeFileSync(file, JSON.stringify({ toolcap: 1, tools: list }));

/** Two layers: base/ (files a, b, c) and over/ (a policy file overriding some tools). */
function catalogFolders() {
  const root = mkdtempSync(join(tmpdir(), 'toolcap-incremental-'));
  made.push(root);
  const base = join(root, 'base');
  const over = join(root, 'over');
  mkdirSync(base);
  mkdirSync(over);
  write(join(base, 'a.json'), tools('a', 0));
  write(join(base, 'b.json'), tools('b', 0));
  write(join(base, 'c.json'), tools('c', 0));
  write(join(over, 'policy.json'), [{ name: 'a.t1', approval: { required: true } }, { name: 'b.t2', enabled: false }]);
  return { base, over, paths: [base, over] };
}

/** One file changes (a tool edited, a scoped one added), one is added, one removed, the override layer changes. */
function changeAll({ base, over }: { base: string; over: string }) {
  write(join(base, 'a.json'), [...tools('a', 1), { name: 'a.new', description: 'added to a', effects: { mode: 'read' }, scope: { personas: ['medic'] } }]);
  write(join(base, 'd.json'), tools('d', 0, 10));
  unlinkSync(join(base, 'c.json'));
  write(join(over, 'policy.json'), [{ name: 'a.t1', approval: { required: false } }, { name: 'b.t8', cost: { lane: 'high' } }]);
}

const reloaded = (e: ReloadEvent) => {
  if (e.kind !== 'reloaded') throw new Error(`expected a reload, got ${e.kind}: ${JSON.stringify(e.kind === 'failed' ? e.diagnostics.slice(0, 2) : e)}`);
  return e;
};

/** Everything a snapshot serves, as plain data. */
function served(s: Snapshot) {
  const personas = [...s.personas, 'nobody'];
  return {
    etag: s.etag,
    document: s.document,
    diagnostics: s.diagnostics,
    byName: [...s.byName],
    byKey: [...s.byKey],
    personas: s.personas,
    ordered: s.ordered,
    all: s.toolsFor(),
    views: personas.map((p) => [p, s.toolsFor(p), s.callableTools(p)]),
    shared: s.callableTools(),
    callable: s.ordered.map(({ value }) => [s.callable(value.name)?.description, ...personas.map((p) => s.callable(value.name, p)?.description)]),
    provenance: s.ordered.map(({ key }) => s.provenance(key)),
    basis: s.ordered.map(({ key }) => {
      const b = s.basis(key)!;
      return [[...b.fieldOrigins], b.assumed];
    }),
    files: s.files(),
  };
}


/** An index without its entries array, its maps as lists of pairs (an overlay and a Map with the same pairs in the same order are equal). */
const plain = ({ tools: _tools, byName, byKey, entries, ...rest }: SnapshotIndex) => ({ ...rest, byName: [...byName], byKey: [...byKey], entries: [...entries] });

/** The folders' catalog as a worker build sends it and the main thread decodes it, with one memo, encoder and decoder across builds. */
function workerTransfer(paths: string[]) {
  const memo = new BuildMemo();
  const encoder = new CatalogEncoder(memo);
  const decoder = new CatalogDecoder(DEFAULT_LIMITS);
  return async () => {
    const result = buildCatalog(paths, { memo });
    return (await decoder.decode(encoder.encode(1, result, catalogEtag(result.catalog, memo), 0), async () => undefined)).result.catalog.tools;
  };
}

describe('an incremental reload equals a full build', () => {
  it('after one file changed, one added, one removed and an override layer changed, in one reload', async () => {
    const folders = catalogFolders();
    const registry = new Registry({ paths: folders.paths, worker: { script: DIST_WORKER } });
    try {
      reloaded(await registry.start());
      expect(served(registry.snapshot())).toEqual(served(createSnapshot(buildCatalog(folders.paths), { version: 1, builtAt: 'x' })));
      changeAll(folders);
      const event = reloaded(await registry.refresh());
      expect(event.work).toMatchObject({ where: 'worker', importedFiles: 3, reusedFiles: 1 });
      const full = createSnapshot(buildCatalog(folders.paths), { version: 2, builtAt: 'x' });
      expect(full.tool('a.new')?.description).toBe('added to a');
      expect(full.tool('c.t0')).toBeUndefined();
      const [got, want] = [served(registry.snapshot()), served(full)];
      for (const key of Object.keys(want) as Array<keyof typeof want>) expect.soft(got[key], key).toEqual(want[key]);
    } finally {
      await registry.close();
    }
  });

  it('stays equal to a full build over more one-file reloads than an overlay keeps layers: edits, a tool removed, tools reordered', async () => {
    const folders = catalogFolders();
    const registry = new Registry({ paths: folders.paths, worker: { script: DIST_WORKER } });
    const file = join(folders.base, 'b.json');
    try {
      reloaded(await registry.start());
      let list = tools('b', 0);
      for (let round = 1; round <= MAX_DEPTH + 3; round++) {
        list = list.map((t, i) => (i === round ? { ...t, description: `edited in round ${round}` } : t));
        if (round === 4) list = list.slice(0, -1); // a key gone
        if (round === 6) list = [list[1]!, list[0]!, ...list.slice(2)]; // two keys swap places
        write(file, list);
        const event = reloaded(await registry.refresh());
        expect(event.work).toMatchObject({ where: 'worker', importedFiles: 1 });
        const [got, want] = [served(registry.snapshot()), served(createSnapshot(buildCatalog(folders.paths), { version: 1, builtAt: 'x' }))];
        for (const key of Object.keys(want) as Array<keyof typeof want>) expect.soft(got[key], `round ${round}: ${key}`).toEqual(want[key]);
      }
      expect(registry.snapshot().tool('b.t5')?.description).toBe('edited in round 5');
    } finally {
      await registry.close();
    }
  });

  it('one-file reloads of a file that stands apart reuse every other file\'s entries whole in the worker (tool-reuse.ts), and equal a full build', async () => {
    const folders = catalogFolders();
    const file = join(folders.base, 'e.json');
    let list = tools('e', 0, 4); // e.t0..e.t3: names no other file declares or overrides
    write(file, list);
    const registry = new Registry({ paths: folders.paths, worker: { script: DIST_WORKER } });
    try {
      reloaded(await registry.start());
      const rounds: Array<[string, () => void]> = [
        ['a tool edited', () => (list = list.map((t, i) => (i === 1 ? { ...t, description: 'edited' } : t)))],
        ['a tool added', () => (list = [...list, { name: 'e.extra', description: 'added', effects: { mode: 'read' } }])],
        ['two tools swap places', () => (list = [list[1]!, list[0]!, ...list.slice(2)])],
        ['a tool removed', () => (list = list.slice(0, -1))],
      ];
      for (const [what, change] of rounds) {
        change();
        write(file, list);
        const event = reloaded(await registry.refresh());
        const total = registry.snapshot().tools.length;
        // only e's tools checked; every other entry (overridden ones too) reused whole, none merged again
        expect(event.work, what).toMatchObject({ where: 'worker', importedFiles: 1, checkedTools: list.length, reusedTools: total - list.length });
        const [got, want] = [served(registry.snapshot()), served(createSnapshot(buildCatalog(folders.paths), { version: 1, builtAt: 'x' }))];
        for (const key of Object.keys(want) as Array<keyof typeof want>) expect.soft(got[key], `${what}: ${key}`).toEqual(want[key]);
      }
    } finally {
      await registry.close();
    }
  });

  it('an unchanged file keeps its entries\' origin objects between builds; a changed file\'s entries get new, equal ones', () => {
    const folders = catalogFolders();
    const memo = new BuildMemo();
    const first = buildCatalog(folders.paths, { memo }).catalog.tools;
    write(join(folders.base, 'b.json'), tools('b', 1));
    const second = buildCatalog(folders.paths, { memo }).catalog.tools;
    const before = new Map(first.map((e) => [e.key, e.origins]));
    const inFile = (name: string) => second.filter((e) => e.origins[0]!.file.endsWith(name));
    expect(inFile('a.json').length).toBeGreaterThan(0);
    for (const e of inFile('a.json')) expect(e.origins[0]).toBe(before.get(e.key)![0]);
    for (const e of inFile('b.json')) {
      expect(e.origins[0]).toEqual(before.get(e.key)![0]);
      expect(e.origins[0]).not.toBe(before.get(e.key)![0]);
    }
    expect(second).toEqual(buildCatalog(folders.paths).catalog.tools);
  });

  it('updateIndex, given decoded entries that are mostly the previous ones, equals indexing afresh', async () => {
    const folders = catalogFolders();
    const decode = workerTransfer(folders.paths);
    const first = await decode();
    const previous = await indexTools(first, async () => undefined);
    changeAll(folders);
    const second = await decode();
    const updated = await updateIndex(previous, second, async () => undefined);
    // used, not declined: most entries are the previous objects
    expect(updated).toBeDefined();
    expect(second.filter((e) => previous.entries.get(e.key) === e).length).toBeGreaterThan(second.length / 2);
    expect(plain(updated!)).toEqual(plain(indexToolsNow(second)));
    // the previous indexes are untouched (the serving snapshot's)
    expect(previous).toEqual(await indexTools(first, async () => undefined));
  });

  it('updateIndex after an edit that only replaced values reuses the previous views with the new values in them, equal to indexing afresh', async () => {
    const folders = catalogFolders();
    const decode = workerTransfer(folders.paths);
    const first = await decode();
    const previous = await indexTools(first, async () => undefined);
    // a scoped tool and a shared one edited, an override changed: same keys, same order
    write(join(folders.base, 'b.json'), tools('b', 0).map((t, i) => (i === 0 || i === 1 ? { ...t, description: `edited ${i}` } : t)));
    write(join(folders.over, 'policy.json'), [{ name: 'a.t1', approval: { required: false } }, { name: 'b.t2', enabled: false }]);
    const second = await decode();
    const updated = await updateIndex(previous, second, async () => undefined);
    expect(updated).toBeDefined();
    expect(updated!.personas).toBe(previous.personas);
    expect(plain(updated!)).toEqual(plain(indexToolsNow(second)));
    // the maps are the previous ones with the changes laid over them, not copies
    expect(updated!.byKey).toBeInstanceOf(OverlayMap);
    expect(updated!.entries).toBeInstanceOf(OverlayMap);
    expect(updated!.views.ordered.find((p) => p.key === 'b.t0@atlas')?.value.description).toBe('edited 0');
    expect(updated!.views.ordered.find((p) => p.key === 'b.t2')).toBe(previous.views.ordered.find((p) => p.key === 'b.t2'));
  });

  it('updateIndex declines when most entries changed', async () => {
    const folders = catalogFolders();
    const entries = buildCatalog(folders.paths).catalog.tools;
    const previous = indexToolsNow(entries);
    // the same tools, new entry objects (a main-thread build): nothing to reuse
    expect(await updateIndex(previous, entries.map((e) => ({ ...e })), async () => undefined)).toBeUndefined();
  });
});
