/**
 * A read-only map made of another map and a few changes to it: what a
 * reload that replaced or removed some of 10,000 keys gives its snapshot's
 * indexes (registry/index-update.ts), instead of copying every map whole on
 * the main thread. Neither map is ever changed after it is made, so the
 * previous snapshot's indexes stay as they were.
 *
 * It adds no key (a new key has its own place in merge order; the indexes
 * are then made afresh), so it iterates in its base's order, a replaced key
 * in its place, as a copied `Map` would after `set`. Each layer costs a
 * lookup, so past {@link MAX_DEPTH} layers, or when the changes are a large
 * share of the base, the result is a plain `Map` again.
 * @module
 */

/** Layers of changes one lookup may walk before the map is copied flat. */
export const MAX_DEPTH = 8;
/** Above this share of the base's keys changed, a flat copy is made instead. */
const MOST_CHANGED = 0.25;

const GONE: unique symbol = Symbol('gone');

/** A map with some keys replaced or removed; see the module comment. */
export class OverlayMap<K, V> implements ReadonlyMap<K, V> {
  readonly #base: ReadonlyMap<K, V>;
  readonly #own: ReadonlyMap<K, V | typeof GONE>;
  readonly size: number;
  /** Layers below this one (a plain map: 0). */
  readonly depth: number;

  private constructor(base: ReadonlyMap<K, V>, own: ReadonlyMap<K, V | typeof GONE>, size: number) {
    this.#base = base;
    this.#own = own;
    this.size = size;
    this.depth = (base instanceof OverlayMap ? base.depth : 0) + 1;
    Object.freeze(this);
  }

  /**
   * `base` with the keys of `set` given new values and the keys of `removed`
   * dropped. Every key must already be in `base` (a new key throws: it would
   * have no place in the order). Never changes `base`.
   * @example
   * const next = OverlayMap.over(previous.byKey, [['a', toolA]], ['gone']);
   */
  static over<K, V>(base: ReadonlyMap<K, V>, set: Iterable<readonly [K, V]>, removed: Iterable<K> = []): ReadonlyMap<K, V> {
    const own = new Map<K, V | typeof GONE>();
    for (const [key, value] of set) own.set(key, value);
    for (const key of removed) own.set(key, GONE);
    let size = base.size;
    for (const [key, value] of own) {
      if (!base.has(key)) throw new Error('OverlayMap adds no key: the caller makes the map afresh when keys are new');
      if (value === GONE) size--;
    }
    if (own.size === 0) return base;
    const depth = base instanceof OverlayMap ? base.depth : 0;
    if (depth + 1 > MAX_DEPTH || own.size > base.size * MOST_CHANGED) return OverlayMap.#flat(base, own);
    return new OverlayMap(base, own, size);
  }

  /**
   * `base` with `own` applied, as a plain `Map`: the plain map at the bottom
   * copied (a native copy), then each layer's changes applied from the bottom
   * up. A key set keeps its place and none is added, so the order is the
   * overlay's. Not by iterating the overlay: that walks every layer for every
   * key, tens of milliseconds in one block for 10,000 keys under 8 layers.
   */
  static #flat<K, V>(base: ReadonlyMap<K, V>, own: ReadonlyMap<K, V | typeof GONE>): Map<K, V> {
    const layers = [own];
    let bottom = base;
    while (bottom instanceof OverlayMap) {
      layers.push((bottom as OverlayMap<K, V>).#own);
      bottom = (bottom as OverlayMap<K, V>).#base;
    }
    const flat = new Map(bottom);
    for (let i = layers.length - 1; i >= 0; i--) {
      for (const [key, value] of layers[i]!) {
        if (value === GONE) flat.delete(key);
        else flat.set(key, value);
      }
    }
    return flat;
  }

  get(key: K): V | undefined {
    if (this.#own.has(key)) {
      const value = this.#own.get(key);
      return value === GONE ? undefined : value;
    }
    return this.#base.get(key);
  }

  has(key: K): boolean {
    return this.#own.has(key) ? this.#own.get(key) !== GONE : this.#base.has(key);
  }

  *entries(): MapIterator<[K, V]> {
    for (const [key, value] of this.#base) {
      if (!this.#own.has(key)) yield [key, value];
      else {
        const own = this.#own.get(key)!;
        if (own !== GONE) yield [key, own];
      }
    }
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }
}
