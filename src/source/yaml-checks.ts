/**
 * Checks of a parsed YAML document that the yaml package does not make, or
 * makes too slowly, before it is turned into data: repeated keys, keys that
 * are collections, and aliases inside the node they name (a cycle). Keys are
 * also looked up here for positions.
 *
 * The yaml package checks key uniqueness (`uniqueKeys`) by comparing each new
 * key with every earlier one of its mapping, and a pointer lookup by
 * `items.find` is the same: both quadratic in the keys of one mapping, so one
 * mapping of 50,000 keys (1 MB of text) took about a minute to validate. Here
 * each mapping is indexed once.
 * @module
 */
import { isAlias, isCollection, isMap, isScalar, isSeq, visit, type Alias, type Document, type Node, type Pair, type YAMLMap } from 'yaml';

/**
 * The key a mapping key becomes in the data (yaml's `toJS` into a plain
 * object): a scalar of a plain value by its string form, as an object key is
 * written (`1` and `"1"` are one key, `true` and `"true"` too, and `~` is
 * `""`); a YAML 1.1 merge key by its symbol; any other key (a tagged scalar
 * whose value is an object, such as a timestamp) by its node.
 */
function dataKey(key: unknown): unknown {
  if (!isScalar(key)) return key;
  const value = key.value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'symbol') return value;
  return typeof value === 'object' ? key : String(value);
}

/** Problems of one document: offsets, in document order. */
export interface YamlProblems {
  /** Keys that repeat an earlier key of their mapping, as the data has them (see {@link dataKey}). */
  duplicates: number[];
  /** Keys that are a sequence or a mapping (yaml would turn them into strings such as "[ a, b ]"). */
  collections: number[];
  /** Aliases inside the node they refer to: the data would contain itself (JSON output of it throws). */
  cycles: number[];
}

/** Find repeated and collection-valued mapping keys and cyclic aliases, in one pass over the document. */
export function yamlProblems(doc: Document.Parsed): YamlProblems {
  const duplicates: number[] = [];
  const collections: number[] = [];
  const cycles: number[] = [];
  const offsetOf = (key: unknown): number | undefined => (key as { range?: [number, number, number] } | null)?.range?.[0];
  const targets = aliasTargets(doc);
  visit(doc, {
    Alias(_key, alias, path) {
      // an anchor's node is complete before any alias after it, so an alias can only loop back through an ancestor
      const target = targets.get(alias);
      if (target !== undefined && path.includes(target)) {
        const offset = offsetOf(alias);
        if (offset !== undefined) cycles.push(offset);
      }
    },
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        // an alias key is the key it names: `*k : 2` beside `a: 1`, with `&k a`, is `a` twice
        const key = aliased(pair.key, targets);
        if (isCollection(key)) {
          const offset = offsetOf(pair.key);
          if (offset !== undefined) collections.push(offset);
          continue; // refused as a collection key already: one finding per key
        }
        // keys the data makes one (`1` and "1", `.nan` twice) keep only the last value: a duplicate, though
        // yaml's own check compares the parsed values and lets them pass
        const id = dataKey(key);
        if (seen.has(id)) {
          const offset = offsetOf(pair.key);
          if (offset !== undefined) duplicates.push(offset);
        } else seen.add(id);
      }
    },
  });
  const sorted = (offsets: number[]) => offsets.sort((a, b) => a - b);
  return { duplicates: sorted(duplicates), collections: sorted(collections), cycles: sorted(cycles) };
}

/** The node `node` stands for: an alias's target (the alias itself when it names no anchor), else the node. */
function aliased(node: unknown, targets: ReadonlyMap<Alias, Node | undefined>): unknown {
  return isAlias(node) ? (targets.get(node) ?? node) : node;
}

/**
 * What each alias of `doc` resolves to, as `Alias.resolve(doc)` finds it
 * (the last node before the alias, in the same visiting order, carrying its
 * anchor), for the whole document in one walk: `resolve` without a context
 * walks the whole document for every alias, quadratic in a file of many
 * aliases (8,000 `*a` in 32 KB took 5 s, before the alias limit is checked).
 */
export function aliasTargets(doc: Document.Parsed): Map<Alias, Node | undefined> {
  const last = new Map<string, Node>();
  const targets = new Map<Alias, Node | undefined>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) targets.set(node, last.get(node.source));
      else if (node.anchor) last.set(node.anchor, node);
    },
  });
  return targets;
}

const indexes = new WeakMap<YAMLMap, Map<string, Pair>>();

/**
 * Is `key` a YAML 1.1 merge key (`<<`)? With `%YAML 1.1` yaml's merge tag
 * resolves it to a symbol; in YAML 1.2 (the default) it stays the string "<<",
 * an ordinary key.
 */
function isMergeKey(key: unknown): boolean {
  return isScalar(key) && typeof key.value === 'symbol' && key.value.description === '<<';
}

/**
 * The pair of `map` whose scalar key reads as `token` (the first one, as a
 * pointer resolves it), from an index built on the first lookup in that map.
 * An alias key reads as the scalar it names (as the data has it), looked up
 * in `targets` (from {@link aliasTargets}); a key a YAML 1.1 merge key brings
 * in is found in the mapping it was written in.
 */
export function pairByKey(map: YAMLMap, token: string, targets: ReadonlyMap<Alias, Node | undefined>): Pair | undefined {
  return keyIndex(map, targets).get(token);
}

function keyIndex(map: YAMLMap, targets: ReadonlyMap<Alias, Node | undefined>): Map<string, Pair> {
  let index = indexes.get(map);
  if (index) return index;
  index = new Map();
  // stored before the merges are followed, so a source that leads back here ends the walk
  indexes.set(map, index);
  const merged: unknown[] = [];
  for (const pair of map.items) {
    const key = aliased(pair.key, targets);
    if (isMergeKey(key)) {
      merged.push(pair.value);
      continue;
    }
    if (!isScalar(key)) continue;
    const id = dataKey(key);
    const name = typeof id === 'string' ? id : String(key.value);
    if (!index.has(name)) index.set(name, pair as Pair);
  }
  // as yaml merges: the mapping's own keys win, then the sources in order (a list of them, or one)
  for (const value of merged) {
    const source = aliased(value, targets);
    for (const item of isSeq(source) ? source.items.map((node) => aliased(node, targets)) : [source]) {
      if (!isMap(item)) continue;
      for (const [name, pair] of keyIndex(item, targets)) if (!index.has(name)) index.set(name, pair);
    }
  }
  return index;
}
