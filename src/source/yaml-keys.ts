/**
 * Keys of YAML mappings, looked up in linear time. The yaml package checks
 * key uniqueness (`uniqueKeys`) by comparing each new key with every earlier
 * one of its mapping, and a pointer lookup by `items.find`: both quadratic in
 * the keys of one mapping, so one mapping of 50,000 keys (1 MB of text) took
 * about a minute to validate. Here each mapping is indexed once.
 * @module
 */
import { isScalar, visit, type Document, type Pair, type YAMLMap } from 'yaml';

/**
 * The identity yaml's default `uniqueKeys` compares: a scalar key by its
 * value (so `1` and `"1"` differ), any other key node by itself.
 */
function keyIdentity(key: unknown): unknown {
  return isScalar(key) ? key.value : key;
}

/**
 * Offsets of every key that repeats an earlier key of its mapping (what
 * yaml reports as DUPLICATE_KEY with `uniqueKeys: true`), in document order.
 */
export function duplicateKeyOffsets(doc: Document.Parsed): number[] {
  const offsets: number[] = [];
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const id = keyIdentity(pair.key);
        // NaN is never equal to itself, as in yaml's own check
        if (typeof id === 'number' && Number.isNaN(id)) continue;
        if (seen.has(id)) {
          const range = (pair.key as { range?: [number, number, number] } | null)?.range;
          if (range) offsets.push(range[0]);
        } else seen.add(id);
      }
    },
  });
  return offsets.sort((a, b) => a - b);
}

const indexes = new WeakMap<YAMLMap, Map<string, Pair>>();

/**
 * The pair of `map` whose scalar key reads as `token` (the first one, as a
 * pointer resolves it), from an index built on the first lookup in that map.
 */
export function pairByKey(map: YAMLMap, token: string): Pair | undefined {
  let index = indexes.get(map);
  if (!index) {
    index = new Map();
    for (const pair of map.items) {
      if (!isScalar(pair.key)) continue;
      const name = String(pair.key.value);
      if (!index.has(name)) index.set(name, pair as Pair);
    }
    indexes.set(map, index);
  }
  return index.get(token);
}
