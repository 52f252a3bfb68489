// Duplicates within one layer (registry/merge.ts). While the merged map was empty when a layer began, it
// stands in for the layer's "seen" map; in a later layer it also holds earlier layers' entries, and the
// first definition a duplicate points to must still be the one in its own layer.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';

const dir = mkdtempSync(join(tmpdir(), 'toolcap-dup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function layer(name: string, files: Record<string, string[]>): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  for (const [file, tools] of Object.entries(files)) {
    writeFileSync(join(folder, file), JSON.stringify({ toolcap: 1, tools: tools.map((t) => ({ name: t, description: `${t} in ${file}` })) }, null, 2));
  }
  return folder;
}

const duplicates = (layers: string[]) =>
  buildCatalog(layers)
    .diagnostics.filter((d) => d.code === 'DUPLICATE_TOOL')
    .map((d) => ({ file: d.file?.replace(`${dir}/`, ''), pointer: d.pointer, first: d.related?.[0] && `${d.related[0].file?.replace(`${dir}/`, '')}#${d.related[0].pointer}` }));

describe('duplicate tools within one layer', () => {
  const first = layer('first', { 'a.json': ['x', 'y', 'x'], 'b.json': ['y', 'z'] });
  const second = layer('second', { 'c.json': ['x', 'w'], 'd.json': ['w', 'x'] });

  it('in the first layer: each repeat points at the first definition, which is kept', () => {
    expect(duplicates([first])).toEqual([
      { file: 'first/a.json', pointer: '/tools/2', first: 'first/a.json#/tools/0' },
      { file: 'first/b.json', pointer: '/tools/0', first: 'first/a.json#/tools/1' },
    ]);
    const { catalog } = buildCatalog([first]);
    expect(catalog.tools.map((e) => [e.value.name, e.value.description])).toEqual([
      ['x', 'x in a.json'],
      ['y', 'y in a.json'],
      ['z', 'z in b.json'],
    ]);
  });

  it('in a later layer: an override of an earlier layer is no duplicate, a repeat within the layer points into that layer', () => {
    expect(duplicates([first, second]).filter((d) => d.file?.startsWith('second/'))).toEqual([
      { file: 'second/d.json', pointer: '/tools/0', first: 'second/c.json#/tools/1' },
      { file: 'second/d.json', pointer: '/tools/1', first: 'second/c.json#/tools/0' },
    ]);
    const x = buildCatalog([first, second]).catalog.tools.find((e) => e.value.name === 'x');
    expect(x?.origins.map((o) => `${o.file.replace(`${dir}/`, '')}#${o.pointer}`)).toEqual(['first/a.json#/tools/0', 'second/c.json#/tools/0']);
    expect(x?.value.description).toBe('x in c.json');
  });
});
