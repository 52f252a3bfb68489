// Reloads through the build worker (registry/build-worker.ts): correctness of
// add/change/remove, a broken edit keeping the last good snapshot, the
// per-file content-hash cache (asserted on counters, never on timing), a
// worker that fails falling back to a main-thread build, and close() ending
// the worker. The worker runs the compiled script in dist/ (npm run build).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog, personaTools } from '../../src/registry/catalog.js';
import { Registry, type ReloadEvent } from '../../src/registry/registry.js';
import { toolViews } from '../../src/registry/views.js';
import { documentHash } from '../../src/registry/snapshot.js';

const DIST_WORKER = new URL('../../dist/registry/build-worker.js', import.meta.url);
const DIST_INDEX = new URL('../../dist/index.js', import.meta.url);
const CORPUS = '/work/shared/corpus';

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-worker-reload-'));
  made.push(dir);
  return dir;
};

/** A canonical manifest of `count` tools named `<prefix>.toolN`, descriptions naming the generation. */
const manifest = (prefix: string, gen: number, count = 3) =>
  JSON.stringify({ toolcap: 1, tools: Array.from({ length: count }, (_, i) => ({ name: `${prefix}.tool${i}`, description: `Tool ${i}, gen ${gen}`, effects: { mode: 'read' } })) });

const reloaded = (e: ReloadEvent) => {
  if (e.kind !== 'reloaded') throw new Error(`expected a reload, got ${e.kind}: ${JSON.stringify(e.kind === 'failed' ? e.diagnostics.slice(0, 2) : e)}`);
  return e;
};

describe('reloads through the build worker', () => {
  it('the compiled worker is there (run npm run build first)', () => {
    expect(existsSync(fileURLToPath(DIST_WORKER))).toBe(true);
  });

  it('adds, changes and removes files; one-file changes re-import only that file', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'a.json'), manifest('a', 0));
    writeFileSync(join(dir, 'b.json'), manifest('b', 0));
    const registry = new Registry({ paths: [dir], worker: { script: DIST_WORKER } });
    try {
      const first = reloaded(await registry.start());
      expect(first.work).toMatchObject({ where: 'worker', importedFiles: 2, reusedFiles: 0, checkedTools: 6, reusedTools: 0 });
      expect(registry.snapshot().tools.map((t) => t.name)).toEqual(['a.tool0', 'a.tool1', 'a.tool2', 'b.tool0', 'b.tool1', 'b.tool2']);

      // forced, nothing changed: every file a cache hit
      const forced = reloaded(await registry.refresh({ force: true }));
      expect(forced.work).toMatchObject({ where: 'worker', importedFiles: 0, reusedFiles: 2, checkedTools: 0, reusedTools: 6 });
      expect(forced.etag).toBe(first.etag);

      // one file changes: that file is imported, the other reused
      writeFileSync(join(dir, 'b.json'), manifest('b', 1));
      const changed = reloaded(await registry.refresh({ force: true }));
      expect(changed.work).toMatchObject({ importedFiles: 1, reusedFiles: 1, checkedTools: 3, reusedTools: 3 });
      const snap = registry.snapshot();
      expect(snap.tool('b.tool1')?.description).toBe('Tool 1, gen 1');
      expect(snap.tool('a.tool1')?.description).toBe('Tool 1, gen 0');
      expect(documentHash(snap.document)).toBe(snap.etag);

      // a file is added
      writeFileSync(join(dir, 'c.json'), manifest('c', 0, 2));
      const added = reloaded(await registry.refresh({ force: true }));
      expect(added.work).toMatchObject({ importedFiles: 1, reusedFiles: 2 });
      expect(registry.snapshot().tools).toHaveLength(8);

      // a file is removed
      unlinkSync(join(dir, 'a.json'));
      const removed = reloaded(await registry.refresh({ force: true }));
      expect(removed.work).toMatchObject({ importedFiles: 0, reusedFiles: 2 });
      expect(registry.snapshot().tools.map((t) => t.name)).toEqual(['b.tool0', 'b.tool1', 'b.tool2', 'c.tool0', 'c.tool1']);
      expect(registry.snapshot().tool('a.tool0')).toBeUndefined();
      expect(documentHash(registry.snapshot().document)).toBe(registry.snapshot().etag);
    } finally {
      await registry.close();
    }
  });

  it('a broken edit keeps the last good snapshot serving, with a located diagnostic; fixing it reloads', async () => {
    const dir = folder();
    const file = join(dir, 'tools.json');
    writeFileSync(file, manifest('t', 0));
    const registry = new Registry({ paths: [dir], worker: { script: DIST_WORKER } });
    try {
      reloaded(await registry.start());
      const good = registry.snapshot();
      writeFileSync(file, '{"toolcap": 1, "tools": [\n  {"name": "t.tool0",\n   "description": }\n]}');
      const failed = await registry.refresh();
      expect(failed.kind).toBe('failed');
      if (failed.kind !== 'failed') return;
      expect(failed.work?.where).toBe('worker');
      expect(failed.diagnostics).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'PARSE_ERROR', file: file, line: 3, column: 19 })]));
      expect(registry.snapshot()).toBe(good); // never half a reload
      expect(registry.status()).toMatchObject({ ok: false, version: good.version });
      writeFileSync(file, manifest('t', 2));
      reloaded(await registry.refresh());
      expect(registry.snapshot().tool('t.tool0')?.description).toBe('Tool 0, gen 2');
      expect(registry.status().ok).toBe(true);
    } finally {
      await registry.close();
    }
  });

  it('serves the same snapshot as a main-thread build of real corpus files (provenance located lazily)', async () => {
    const paths = [join(CORPUS, 'mcp-github-server/tools.json')];
    const inWorker = new Registry({ paths, worker: { script: DIST_WORKER } });
    const onMain = new Registry({ paths, worker: false });
    try {
      const w = reloaded(await inWorker.start());
      const m = reloaded(await onMain.start());
      expect(w.work?.where).toBe('worker');
      expect(m.work?.where).toBe('main');
      expect(w.etag).toBe(m.etag);
      expect(inWorker.snapshot().document).toEqual(onMain.snapshot().document);
      const key = inWorker.snapshot().ordered[0]!.key;
      expect(inWorker.snapshot().provenance(key)).toEqual(onMain.snapshot().provenance(key));
      expect(inWorker.snapshot().provenance(key)?.[0]).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
    } finally {
      await inWorker.close();
      await onMain.close();
    }
  });

  it.each([
    ['exits on the first request', 'import { parentPort } from "node:worker_threads"; parentPort.on("message", () => process.exit(3));', /exited \(code 3\)/],
    ['throws while loading', 'throw new Error("broken worker script");', /crashed: broken worker script/],
    ['answers with an error', 'import { parentPort } from "node:worker_threads"; parentPort.on("message", (r) => parentPort.postMessage({ kind: "error", id: r.id, message: "boom" }));', /failed: boom/],
  ])('a worker that %s falls back to a main-thread build, with BUILD_WORKER_FAILED', async (_name, source, message) => {
    const dir = folder();
    writeFileSync(join(dir, 'tools.json'), manifest('t', 0));
    const script = join(folder(), 'worker.mjs');
    writeFileSync(script, source);
    const registry = new Registry({ paths: [dir], worker: { script } });
    try {
      const first = reloaded(await registry.start());
      expect(first.work?.where).toBe('main');
      expect(registry.snapshot().tools).toHaveLength(3);
      const note = first.diagnostics.find((d) => d.code === 'BUILD_WORKER_FAILED');
      expect(note).toMatchObject({ severity: 'info' });
      expect(note?.message).toMatch(message);
      // the next reload tries a worker again, and falls back again
      const again = reloaded(await registry.refresh({ force: true }));
      expect(again.work?.where).toBe('main');
    } finally {
      await registry.close();
    }
  });

  it.each([
    ['after close(), run with -e', 'await registry.close();', false],
    ['without close() (an idle worker is unref-ed), run with -e', '', false],
    ['after close(), run from a file with a per-process flag (--expose-gc)', 'await registry.close();', true],
  ])('no worker keeps the process alive %s', (_name, closing, fromFile) => {
    const dir = folder();
    writeFileSync(join(dir, 'tools.json'), manifest('t', 0));
    const program = `
      import { Registry } from ${JSON.stringify(DIST_INDEX.href)};
      const registry = new Registry({ paths: [${JSON.stringify(dir)}] });
      const event = await registry.start();
      if (event.work?.where !== 'worker') throw new Error('not built in the worker: ' + JSON.stringify(event.diagnostics));
      ${closing}
      console.log('done');
    `;
    const file = join(folder(), 'program.mjs');
    writeFileSync(file, program);
    const args = fromFile ? ['--expose-gc', file] : ['--input-type=module', '-e', program];
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30_000 });
    expect(run.error).toBeUndefined(); // a kept-alive process would hit the timeout
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe('done');
  });
});

describe('main-thread builds reuse unchanged files too', () => {
  it('counts imports and reuses', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'a.json'), manifest('a', 0));
    writeFileSync(join(dir, 'b.json'), manifest('b', 0));
    const registry = new Registry({ paths: [dir], worker: false });
    try {
      expect(reloaded(await registry.start()).work).toMatchObject({ where: 'main', importedFiles: 2, reusedFiles: 0 });
      writeFileSync(join(dir, 'a.json'), manifest('a', 1));
      expect(reloaded(await registry.refresh({ force: true })).work).toMatchObject({ where: 'main', importedFiles: 1, reusedFiles: 1, checkedTools: 3, reusedTools: 3 });
      expect(documentHash(registry.snapshot().document)).toBe(registry.snapshot().etag);
    } finally {
      await registry.close();
    }
  });
});

describe('snapshot views', () => {
  // shared, persona versions shadowing shared ones, a disabled persona version hiding the shared one, duplicates across layers
  const yaml = (tools: string) => `toolcap: 1\ntools:\n${tools}`;
  it('match personaTools for every persona and for no persona', () => {
    const dir = folder();
    writeFileSync(
      join(dir, '1-base.yaml'),
      yaml(
        [
          '  - { name: z.last, description: shared z }',
          '  - { name: a.first, description: shared a }',
          '  - { name: m.mid, description: shared m }',
          '  - { name: m.mid, description: atlas m, scope: { personas: [atlas] } }',
          '  - { name: a.first, description: medic a, scope: { personas: [medic] }, enabled: false }',
          '  - { name: q.only, description: atlas only, scope: { personas: [atlas, medic] } }',
          '  - { name: d.off, description: disabled, enabled: false }',
        ].join('\n') + '\n',
      ),
    );
    const { catalog } = buildCatalog([dir]);
    const personas = ['atlas', 'medic', 'nobody'];
    const views = toolViews(catalog.tools, personas);
    for (const p of personas) expect(views.personas.get(p)).toEqual(personaTools(catalog, p));
    expect(views.all).toEqual(personaTools(catalog));
    expect(views.shared.map((t) => t.name)).toEqual(['a.first', 'm.mid', 'z.last']);
    expect(views.ordered.map((o) => o.key)).toEqual([...views.ordered.map((o) => o.key)].sort((a, b) => (a.split('@')[0]! < b.split('@')[0]! ? -1 : a.split('@')[0]! > b.split('@')[0]! ? 1 : a < b ? -1 : 1)));
  });
});
