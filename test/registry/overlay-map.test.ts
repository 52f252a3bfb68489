// OverlayMap (registry/overlay-map.ts): a map with keys replaced or removed,
// held equal to a Map copied and changed the same way, layer after layer,
// while the maps below it stay as they were.
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, OverlayMap } from '../../src/registry/overlay-map.js';

const base = () => new Map<string, number>(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
const same = (got: ReadonlyMap<string, number>, want: Map<string, number>) => {
  expect([...got]).toEqual([...want]);
  expect([...got.keys()]).toEqual([...want.keys()]);
  expect([...got.values()]).toEqual([...want.values()]);
  expect(got.size).toBe(want.size);
  for (const key of ['k0', 'k3', 'k39', 'k40', 'nope']) {
    expect(got.get(key)).toBe(want.get(key));
    expect(got.has(key)).toBe(want.has(key));
  }
  const seen: Array<[string, number]> = [];
  got.forEach((value, key, map) => {
    expect(map).toBe(got);
    seen.push([key, value]);
  });
  expect(seen).toEqual([...want]);
};

describe('OverlayMap', () => {
  it.each<[string, Array<[string, number]>, string[]]>([
    ['one key replaced', [['k3', 300]], []],
    ['keys replaced and removed', [['k0', -1], ['k39', -39]], ['k3', 'k20']],
    ['only removed', [], ['k39']],
  ])('%s: equals a changed copy, its base untouched', (_what, set, removed) => {
    const start = base();
    const want = new Map(start);
    for (const [k, v] of set) want.set(k, v);
    for (const k of removed) want.delete(k);
    const got = OverlayMap.over(start, set, removed);
    expect(got).toBeInstanceOf(OverlayMap);
    same(got, want);
    expect([...start]).toEqual([...base()]);
  });

  it('gives back the base itself when nothing changes', () => {
    const start = base();
    expect(OverlayMap.over(start, [], [])).toBe(start);
  });

  it('stays equal to a copied map over many layers, flattening past MAX_DEPTH, every layer left as it was', () => {
    let want = base();
    let got: ReadonlyMap<string, number> = base();
    const layers: Array<[ReadonlyMap<string, number>, Array<[string, number]>]> = [];
    for (let round = 0; round < MAX_DEPTH * 2 + 3; round++) {
      const set: Array<[string, number]> = [[`k${round}`, 1000 + round], [`k${(round * 7) % 40}`, 2000 + round]];
      const removed = round % 5 === 4 ? [`k${39 - round}`] : [];
      want = new Map(want);
      for (const [k, v] of set) if (want.has(k)) want.set(k, v);
      for (const k of removed) want.delete(k);
      got = OverlayMap.over(got, set.filter(([k]) => got.has(k)), removed);
      expect((got as { depth?: number }).depth ?? 0).toBeLessThanOrEqual(MAX_DEPTH);
      same(got, want);
      layers.push([got, [...want]]);
    }
    expect(layers.some(([map]) => !(map instanceof OverlayMap))).toBe(true);
    for (const [map, pairs] of layers) expect([...map]).toEqual(pairs);
  });

  it('copies flat when most keys change', () => {
    const start = base();
    const set = [...start.keys()].slice(0, 20).map((k) => [k, -1] as [string, number]);
    const got = OverlayMap.over(start, set);
    expect(got).toBeInstanceOf(Map);
    expect(got).not.toBe(start);
    expect(start.get('k0')).toBe(0);
  });

  it('refuses a key its base does not hold (it would have no place in the order)', () => {
    expect(() => OverlayMap.over(base(), [['new', 1]])).toThrow(/adds no key/);
  });
});
