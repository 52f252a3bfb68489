// The sliced indexing a registry does before it makes a snapshot
// (registry/snapshot-index.ts indexTools, registry/views.ts toolViewSteps):
// the same indexes and views as the one-go versions, with the views' loops
// paused too (not one long block at the end). Counts pauses, never time.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';
import { indexTools, indexToolsNow } from '../../src/registry/snapshot-index.js';
import { createSnapshot, documentHash } from '../../src/registry/snapshot.js';
import { nameOrder, toolViews, toolViewSteps } from '../../src/registry/views.js';

const dir = mkdtempSync(join(tmpdir(), 'toolcap-snapshot-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// 3,000 tools, names out of order, every 7th scoped to a persona (some shadowing a shared tool), every 11th disabled
const COUNT = 3_000;
const tools = Array.from({ length: COUNT }, (_, i) => ({
  name: `t${(i * 7919) % COUNT}`,
  description: `tool ${i}`,
  ...(i % 7 === 0 ? { scope: { personas: [i % 2 === 0 ? 'atlas' : 'medic'] } } : {}),
  ...(i % 11 === 0 ? { enabled: false } : {}),
}));
writeFileSync(join(dir, 'base.json'), JSON.stringify({ toolcap: 1, tools }));
// atlas versions of 50 shared, enabled tools (one layer: the folder)
const shadows = tools
  .filter((t) => !('scope' in t) && !('enabled' in t))
  .slice(0, 50)
  .map((t) => ({ name: t.name, description: `atlas version of ${t.name}`, scope: { personas: ['atlas'] } }));
writeFileSync(join(dir, 'personas.json'), JSON.stringify({ toolcap: 1, tools: shadows }));
const { catalog, diagnostics } = buildCatalog([dir]);

describe('sliced indexing', () => {
  it('builds a catalog to index', () => {
    expect(diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`)).toEqual([]);
    expect(catalog.tools.length).toBe(COUNT + shadows.length);
  });

  it.each([
    ['without an order', undefined],
    ['with the worker order', nameOrder(catalog.tools)],
  ])('toolViewSteps pauses every so many iterations and returns what toolViews does (%s)', (_label, order) => {
    const steps = toolViewSteps(catalog.tools, ['atlas', 'medic'], order);
    let pauses = 0;
    let step = steps.next();
    while (!step.done) {
      pauses++;
      step = steps.next();
    }
    // several pauses per pass over the tools, so no pass over the catalog is one block
    expect(pauses).toBeGreaterThan(4 * Math.floor(catalog.tools.length / 1024));
    expect(step.value).toEqual(toolViews(catalog.tools, ['atlas', 'medic'], order));
  });

  it('indexTools yields through the views as well, and gives the indexes indexToolsNow gives', async () => {
    let yields = 0;
    const pausesInViews = (() => {
      const steps = toolViewSteps(catalog.tools, ['atlas', 'medic'], nameOrder(catalog.tools));
      let n = 0;
      while (!steps.next().done) n++;
      return n;
    })();
    // sliceMs 0: every pause point yields
    const index = await indexTools(catalog.tools, async () => void yields++, nameOrder(catalog.tools), 0);
    const now = indexToolsNow(catalog.tools);
    expect(yields).toBeGreaterThanOrEqual(pausesInViews + Math.floor(catalog.tools.length / 256));
    expect(index.personas).toEqual(['atlas', 'medic']);
    expect(index.personas).toEqual(now.personas);
    expect(index.views).toEqual(now.views);
    expect(index.byName).toEqual(now.byName);
    expect(index.byKey).toEqual(now.byKey);
    // the document's tools (merge order) and the schema-definitions flag the snapshot takes from the index
    expect(index.values).toEqual(catalog.tools.map((e) => e.value));
    expect(index.values.every((v, i) => v === catalog.tools[i]!.value)).toBe(true);
    expect(index.sharesDefs).toBe(false);
    expect([...index.byName.values()].every(Object.isFrozen)).toBe(true);
    expect(index.views.personas.get('atlas')?.filter((t) => t.description?.startsWith('atlas version')).length).toBe(shadows.length);
  });
});

describe('schema definitions', () => {
  it('an index that saw a tool with $defs makes the snapshot hash the shared form, not the given etag', async () => {
    const defs = mkdtempSync(join(tmpdir(), 'toolcap-snapshot-index-defs-'));
    try {
      const inputSchema = { type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'string' } } };
      writeFileSync(join(defs, 'tools.json'), JSON.stringify({ toolcap: 1, tools: [{ name: 'd.one', description: 'one', inputSchema }, { name: 'd.two', description: 'two' }] }));
      const result = buildCatalog([defs]);
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const index = await indexTools(result.catalog.tools, async () => undefined);
      expect(index.sharesDefs).toBe(true);
      const given = createSnapshot(result, { version: 1, builtAt: 'x', etag: 'sha256:given', index });
      expect(given.etag).toBe(documentHash(given.document));
      expect(given.etag).toBe(createSnapshot(result, { version: 1, builtAt: 'x' }).etag);
      // without definitions the given etag is taken as it is
      const plain = buildCatalog([dir]);
      expect(createSnapshot(plain, { version: 1, builtAt: 'x', etag: 'sha256:given', index: await indexTools(plain.catalog.tools, async () => undefined) }).etag).toBe('sha256:given');
    } finally {
      rmSync(defs, { recursive: true, force: true });
    }
  });
});
