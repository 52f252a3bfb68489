// The worker's encoding of a build (registry/catalog-transfer.ts): entries
// whose value and rest are as last time go as runs of their places in the
// last message; any difference in either sends the whole entry, and the
// decoded catalog equals the built one either way.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BuildMemo, catalogEtag } from '../../src/registry/build-memo.js';
import { buildCatalog, catalogDocument, provenance } from '../../src/registry/catalog.js';
import { documentEtag } from '../../src/registry/etag.js';
import { nameOrder, NameOrder } from '../../src/registry/views.js';
import { CatalogDecoder, CatalogEncoder, type BuiltMessage } from '../../src/registry/catalog-transfer.js';
import { DEFAULT_LIMITS } from '../../src/source/source.js';

const dir = mkdtempSync(join(tmpdir(), 'toolcap-catalog-transfer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const write = (file: string, tools: Array<Record<string, unknown>>) => writeFileSync(join(dir, file), JSON.stringify({ toolcap: 1, tools }));
const items = (m: BuiltMessage) => m.ends.flatMap((end, i) => JSON.parse(Buffer.from(m.buffer).toString('utf8', m.ends[i - 1] ?? 0, end)) as Array<{ s?: number; n?: number; v?: { name: string } }>);

describe('CatalogEncoder', () => {
  it('sends unchanged entries as runs, changed values and changed places in full', async () => {
    const tools = (gen: number) => Array.from({ length: 5 }, (_, i) => ({ name: `a.t${i}`, description: i === 2 ? `changed in generation ${gen}` : `tool ${i}` }));
    write('a.json', tools(1));
    write('b.json', [{ name: 'b.one', description: 'one' }]);
    const memo = new BuildMemo();
    const encoder = new CatalogEncoder(memo);
    const decoder = new CatalogDecoder(DEFAULT_LIMITS);
    const send = async (id: number) => {
      const result = buildCatalog([dir], { memo });
      const message = encoder.encode(id, result, catalogEtag(result.catalog, memo), 0);
      const decoded = await decoder.decode(message, async () => undefined);
      expect(decoded.result.catalog.tools.map((e) => e.value)).toEqual(result.catalog.tools.map((e) => e.value));
      expect(decoded.result.catalog.tools.map((e) => e.origins)).toEqual(result.catalog.tools.map((e) => e.origins));
      return items(message);
    };
    expect((await send(1)).every((i) => i.v !== undefined)).toBe(true);
    // nothing changed: every entry in one run
    expect(await send(2)).toEqual([{ s: 0, n: 6 }]);
    // one value changed (its file imported again: the other values of that file are new objects with the same JSON)
    write('a.json', tools(2));
    const third = await send(3);
    expect(third.filter((i) => i.v !== undefined).map((i) => i.v!.name)).toEqual(['a.t2']);
    expect(third.filter((i) => i.v === undefined)).toEqual([{ s: 0, n: 2 }, { s: 3, n: 3 }]);
    // the same value at another place (its origin pointer moved): the entry's rest changed, so it is sent in full
    write('b.json', [{ name: 'b.zero', description: 'zero' }, { name: 'b.one', description: 'one' }]);
    expect((await send(4)).filter((i) => i.v !== undefined).map((i) => i.v!.name).sort()).toEqual(['b.one', 'b.zero']);
  });

  it('the etag computed after encoding (re-imported values that serialise as before take the kept tool digests) is the etag of the document', async () => {
    const tools = (gen: number) => Array.from({ length: 4 }, (_, i) => ({ name: `e.t${i}`, description: i === 1 ? `gen ${gen}` : `tool ${i}` }));
    write('e.json', tools(1));
    const memo = new BuildMemo();
    const encoder = new CatalogEncoder(memo);
    const etagOf = () => {
      const result = buildCatalog([dir], { memo });
      const { catalog } = result;
      let etag = '';
      encoder.encode(1, result, () => (etag = catalogEtag(catalog, memo)), 0);
      const document = catalogDocument(catalog);
      return { etag, want: documentEtag({ bundles: catalog.bundles, tools: document.tools, skills: document.skills, agents: document.agents, jobs: document.jobs }) };
    };
    const first = etagOf();
    expect(first.etag).toBe(first.want);
    write('e.json', tools(2)); // e.t1 changes; e.t0, e.t2, e.t3 are new objects serialising as before
    const second = etagOf();
    expect(second.etag).toBe(second.want);
    expect(second.etag).not.toBe(first.etag);
  });
});

describe('document texts', () => {
  it('go only when changed since the last message; the decoded sources and positions are the build\'s either way', async () => {
    const sub = mkdtempSync(join(dir, 'texts-'));
    const put = (file: string, tools: Array<Record<string, unknown>>) => writeFileSync(join(sub, file), JSON.stringify({ toolcap: 1, tools }, null, 2));
    put('a.json', [{ name: 'a.one', description: 'one' }]);
    put('b.json', [{ name: 'b.one', description: 'one', inputSchema: { type: 'nope' } }]);
    const memo = new BuildMemo();
    const encoder = new CatalogEncoder(memo);
    const decoder = new CatalogDecoder(DEFAULT_LIMITS);
    const send = async () => {
      const result = buildCatalog([sub], { memo });
      const message = encoder.encode(1, result, catalogEtag(result.catalog, memo), 0);
      const decoded = await decoder.decode(message, async () => undefined);
      expect(decoded.result.sources).toEqual(result.sources);
      expect(provenance(decoded.result.catalog)).toEqual(provenance(result.catalog));
      return message;
    };
    expect((await send()).texts.every((t) => typeof t === 'string')).toBe(true);
    const again = await send();
    expect(again.texts).toEqual([null, null]);
    put('a.json', [{ name: 'a.zero', description: 'zero' }, { name: 'a.one', description: 'one' }]);
    expect((await send()).texts.map((t) => t === null)).toEqual([false, true]);
    // a side that holds no texts (a new main-thread decoder) refuses a message that refers to them
    await expect(new CatalogDecoder(DEFAULT_LIMITS).decode(again, async () => undefined)).rejects.toThrow(/as unchanged/);
  });
});

describe('CatalogEncoder and tools that share schema definitions', () => {
  it('sends the entries cloned whenever some tool carries $defs, also after builds that reused every other entry, and as chunks once none does', async () => {
    const sub = mkdtempSync(join(dir, 'defs-'));
    const put = (file: string, tools: Array<Record<string, unknown>>) => writeFileSync(join(sub, file), JSON.stringify({ toolcap: 1, tools }));
    const withDefs = { name: 'd.one', description: 'has definitions', inputSchema: { type: 'object', $defs: { id: { type: 'string' } }, properties: { id: { $ref: '#/$defs/id' } } } };
    const plain = (gen: number) => [{ name: 'p.one', description: `plain ${gen}` }, { name: 'p.two', description: 'plain' }];
    put('d.json', [withDefs]);
    put('p.json', plain(0));
    const memo = new BuildMemo();
    const encoder = new CatalogEncoder(memo);
    const send = () => {
      const result = buildCatalog([sub], { memo });
      return encoder.encode(1, result, () => catalogEtag(result.catalog, memo), 0);
    };
    expect(send().cloned).toHaveLength(3);
    put('p.json', plain(1)); // the tool with definitions is the very value of the last build, at its place
    expect(send().cloned).toHaveLength(3);
    put('d.json', [{ name: 'd.one', description: 'no definitions now' }]);
    const message = send();
    expect(message.cloned).toBeUndefined();
    expect(items(message)).toHaveLength(3);
    put('p.json', plain(2));
    expect(send().cloned).toBeUndefined();
    put('d.json', [withDefs]); // back: at the place of a value the last etag found without definitions
    expect(send().cloned).toHaveLength(3);
  });
});

describe('NameOrder', () => {
  it('gives nameOrder, reusing the last order while the names are the same, sorting again when they change', () => {
    const entries = (names: string[]) => names.map((name) => ({ key: name, value: { name, description: name }, origins: [] }));
    const order = new NameOrder();
    const a = entries(['c', 'a', 'b']);
    expect([...order.of(a)]).toEqual([...nameOrder(a)]);
    const again = order.of(entries(['c', 'a', 'b']));
    expect([...again]).toEqual([1, 2, 0]);
    again[0] = 99; // a copy each time: the caller may transfer or change it
    expect([...order.of(a)]).toEqual([1, 2, 0]);
    const renamed = entries(['c', 'z', 'b']);
    expect([...order.of(renamed)]).toEqual([...nameOrder(renamed)]);
  });
});
