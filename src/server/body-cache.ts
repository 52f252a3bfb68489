/**
 * Snapshot reads answered through a body cache, with strong ETags and 304.
 *
 * Every answer is read from one snapshot, taken once per request: a reload
 * that lands mid-request changes the next answer, never half of this one.
 * Because snapshots are immutable, a body is a function of (snapshot version
 * and etag, health version, path and query), and the cache key holds all of
 * them: a reload or new health data changes the key, so the cache needs no
 * news of reloads, and bodies of old snapshots age out of the LRU. A body
 * is kept from the second time its query is asked: a query asked once (a
 * new filter every request) is answered without pushing kept bodies out.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { HealthSource } from '../query/views.js';
import { stringifyWithTools } from '../query/views.js';
import { JsonBytes } from '../query/tools-json.js';
import type { Registry } from '../registry/registry.js';
import type { Snapshot } from '../registry/snapshot.js';
import { JSON_TYPE } from './context.js';

/** A bounded map that forgets the least recently used entry. */
class Lru<V> {
  readonly #map = new Map<string, V>();
  constructor(readonly capacity: number) {}
  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value as string);
  }
}

interface Cached {
  /** UTF-8 bytes, encoded once. */
  body: Uint8Array;
  etag: string;
}

const ENCODER = new TextEncoder();

/**
 * Does If-None-Match name this etag (weak comparison, or `*`)?
 * @example etagMatches('W/"abc", "def"', '"abc"') // true
 */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || bare(t) === etag);
}

const strongEtag = (body: Uint8Array) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;

/** Query parameters in a stable order, so equal queries share a cache entry. */
function canonicalQuery(params: URLSearchParams): string {
  const pairs = [...params].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return new URLSearchParams(pairs).toString();
}

/** Builds the answer of a snapshot read from the snapshot and the query (a value, or JSON text already made); throws an ApiProblem for a bad request. */
export type BuildAnswer = (snap: Snapshot, params: URLSearchParams) => unknown;

/** Answers GETs from the registry's current snapshot through a bounded cache of bodies. */
export class BodyCache {
  readonly #cache: Lru<Cached>;
  /** Keys asked once, without their bodies. */
  readonly #seen: Lru<true>;

  constructor(
    readonly registry: Registry,
    readonly health: HealthSource,
    entries: number,
  ) {
    this.#cache = new Lru<Cached>(entries);
    this.#seen = new Lru<true>(entries * 4);
  }

  /**
   * Answer from the snapshot, through the cache, with ETag and 304. The
   * cache is looked up by the raw path and query first (what a client
   * repeating a request sends), then by the canonical query. `query`
   * replaces the request's own (the principal's personas written in).
   */
  answer(c: Context, build: BuildAnswer, query?: URLSearchParams): Response {
    const snap = this.registry.snapshot();
    const raw = c.req.url;
    const start = raw.indexOf('/', raw.indexOf('//') + 2);
    const prefix = `${snap.version}|${snap.etag}|${this.health.version()}|`;
    // a query rewritten for the principal is not the raw one: only the canonical key may name it
    let hit = query ? undefined : this.#cache.get(prefix + raw.slice(start));
    if (!hit) {
      const url = new URL(raw);
      const params = query ?? url.searchParams;
      const key = `${prefix}${url.pathname}?${canonicalQuery(params)}`;
      hit = this.#cache.get(key);
      if (!hit) {
        const answer = build(snap, params);
        const body = answer instanceof JsonBytes ? answer.bytes : ENCODER.encode(stringifyWithTools(answer));
        hit = { body, etag: strongEtag(body) };
        // a body is kept from its query's second ask on: one-off queries (a new filter each time) would
        // only push kept bodies out and leave the garbage collector tens of megabytes to move
        if (this.#seen.get(key)) this.#cache.set(key, hit);
        else this.#seen.set(key, true);
      }
      if (!query && this.#cache.get(key) === hit) this.#cache.set(prefix + raw.slice(start), hit);
    }
    const headers = { etag: hit.etag, 'cache-control': 'no-cache', 'x-toolcap-version': String(snap.version) };
    if (etagMatches(c.req.header('if-none-match'), hit.etag)) return new Response(null, { status: 304, headers });
    return new Response(hit.body, { status: 200, headers: { 'content-type': JSON_TYPE, ...headers } });
  }
}
