/**
 * Snapshots: one successful catalog build, frozen and indexed.
 *
 * A snapshot never changes after it is made (DESIGN principle 3): a reload
 * builds a new one and the registry swaps the reference. Everything a reader
 * can reach is frozen when the snapshot is made, so a reader holding an old
 * snapshot across a reload still sees exactly what it saw before, and no
 * reader can change what another one sees. Indexes are read-only maps over
 * private Maps (a frozen Map can still be `set`, so the Map itself is never
 * handed out).
 * @module
 */
import type { Diagnostic } from '../model/diagnostics.js';
import type { Agent, BundleInfo, Job, Skill, Tool } from '../model/schema.js';
import { shareDefs } from '../model/schema-defs.js';
import { compareToolOrder } from '../model/tool-key.js';
import { catalogDocument, personaTools, type Catalog, type CatalogResult, type PositionedOrigin } from './catalog.js';
import { originPosition, type Entry } from './merge.js';
import { indexToolsNow, type SnapshotIndex } from './snapshot-index.js';
import { documentEtag } from './etag.js';
import { entryLocator } from '../validate/locate.js';
import type { Locate } from '../validate/rules.js';

/** The canonical document a snapshot serves, and the value its etag hashes. */
export interface SnapshotDocument {
  readonly bundles: readonly BundleInfo[];
  readonly tools: readonly Tool[];
  readonly skills: readonly Skill[];
  readonly agents: readonly Agent[];
  readonly jobs: readonly Job[];
}

/**
 * What a snapshot's etag is: the etag (registry/etag.ts `documentEtag`) of
 * its document in the shared form (schema definitions that several tools
 * share hashed once, in `$defs`; model/schema-defs.ts), so hashing costs the
 * catalog's size, not the size of every tool's schemas expanded. A document
 * sharing nothing hashes as `documentEtag(document)`.
 */
export function documentHash(document: SnapshotDocument): string {
  const shared = shareDefs(document.tools);
  if (shared.$defs === undefined) return documentEtag(document);
  return documentEtag({ ...document, tools: shared.tools, $defs: shared.$defs });
}

/** A read-only map whose backing Map cannot be reached, so it cannot be changed at run time either. */
export class ReadonlyIndex<K, V> implements ReadonlyMap<K, V> {
  readonly #map: ReadonlyMap<K, V>;
  constructor(map: ReadonlyMap<K, V>) {
    this.#map = map;
    Object.freeze(this);
  }
  get size(): number {
    return this.#map.size;
  }
  get(key: K): V | undefined {
    return this.#map.get(key);
  }
  has(key: K): boolean {
    return this.#map.has(key);
  }
  keys(): MapIterator<K> {
    return this.#map.keys();
  }
  values(): MapIterator<V> {
    return this.#map.values();
  }
  entries(): MapIterator<[K, V]> {
    return this.#map.entries();
  }
  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    this.#map.forEach((value, key) => callback.call(thisArg, value, key, this));
  }
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.#map.entries();
  }
}

/**
 * Freeze a value and everything reachable from it (plain objects and arrays).
 * An already frozen object is taken as frozen all the way down and not
 * visited again: interned lists and shared schemas are frozen once.
 * @example deepFreeze({ a: { b: [1] } }).a.b // frozen too
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    Object.freeze(v);
    if (Array.isArray(v)) {
      for (const item of v) if (item !== null && typeof item === 'object') stack.push(item);
    } else {
      for (const key of Object.keys(v)) {
        const item = (v as Record<string, unknown>)[key];
        if (item !== null && typeof item === 'object') stack.push(item);
      }
    }
  }
  return value;
}

const isScoped = (t: Tool) => (t.scope?.personas?.length ?? 0) > 0;

/** What a snapshot is made from besides the build itself. */
export interface SnapshotInit {
  /** Monotonic counter given by the registry. */
  version: number;
  /** When the build finished (ISO 8601). */
  builtAt: string;
  /**
   * The etag, when the builder already computed it (registry/build-memo.ts
   * `catalogEtag`, equal to `documentHash(document)`); absent: hashed here.
   */
  etag?: string;
  /** The indexes, when the registry already built them (in slices) for this very catalog; absent: built here. */
  index?: SnapshotIndex;
}

/**
 * An immutable, indexed view of one successful build.
 * @example
 * const snap = createSnapshot(buildCatalog(['examples/manifests']), { version: 1, builtAt: new Date().toISOString() });
 * snap.tool('files.read', 'atlas'); // the tool the atlas persona sees
 */
export class Snapshot {
  /** Monotonic: a later successful build has a higher version. */
  readonly version: number;
  /** {@link documentHash} of {@link Snapshot.document} (registry/etag.ts): equal content, equal etag; any change, a new etag. */
  readonly etag: string;
  /** When the build finished (ISO 8601). */
  readonly builtAt: string;
  /** The diagnostics of this build (no errors: a build with errors never becomes a snapshot). */
  readonly diagnostics: readonly Diagnostic[];
  readonly bundles: readonly BundleInfo[];
  /** Every tool, merged and completed, in merge order (disabled ones included). */
  readonly tools: readonly Tool[];
  readonly skills: readonly Skill[];
  readonly agents: readonly Agent[];
  readonly jobs: readonly Job[];
  /** Tools by name; a shared tool and persona versions of it share a name (shared first). */
  readonly byName: ReadonlyMap<string, readonly Tool[]>;
  /** Tools by merge key (`name`, or `name@persona,…` when scoped): one tool per key. */
  readonly byKey: ReadonlyMap<string, Tool>;
  /** Every persona some tool is scoped to, sorted. */
  readonly personas: readonly string[];
  /** Every tool with its key, ordered by name then key (the order of `/tools`), sorted once per snapshot. */
  readonly ordered: ReadonlyArray<{ readonly key: string; readonly value: Tool }>;
  /** The whole canonical document (what the etag hashes). */
  readonly document: SnapshotDocument;

  readonly #catalog: Catalog;
  readonly #entries: ReadonlyMap<string, Entry<Tool>>;
  readonly #views: ReadonlyMap<string, readonly Tool[]>;
  readonly #all: readonly Tool[];
  readonly #shared: readonly Tool[];
  /** Name -> tool for each callable view, built on a view's first lookup (a persona nobody calls costs nothing on reload). */
  readonly #callableIndex = new Map<readonly Tool[], ReadonlyMap<string, Tool>>();

  /** Use {@link createSnapshot}. */
  constructor(result: Pick<CatalogResult, 'catalog' | 'diagnostics'>, init: SnapshotInit) {
    const catalog = result.catalog;
    this.#catalog = catalog;
    this.version = init.version;
    this.builtAt = init.builtAt;
    // the indexes: given by a registry that built them in slices (registry/snapshot-index.ts), else built here;
    // they hold the document's tools (catalogDocument(catalog).tools) and whether any shares schema definitions
    const index = init.index?.tools === catalog.tools ? init.index : indexToolsNow(catalog.tools);
    const doc = catalogDocument({ ...catalog, tools: [] });
    this.document = deepFreeze({ bundles: catalog.bundles, tools: index.values, skills: doc.skills, agents: doc.agents, jobs: doc.jobs });
    // a build's etag (catalogEtag) hashes each tool as it is; once tools share
    // schema definitions the etag hashes the shared form instead (documentHash)
    this.etag = init.etag !== undefined && !index.sharesDefs ? init.etag : documentHash(this.document);
    ({ bundles: this.bundles, tools: this.tools, skills: this.skills, agents: this.agents, jobs: this.jobs } = this.document);
    this.diagnostics = deepFreeze([...result.diagnostics]);
    this.byName = new ReadonlyIndex(index.byName);
    this.byKey = new ReadonlyIndex(index.byKey);
    this.#entries = new ReadonlyIndex(index.entries);
    this.personas = index.personas;
    const views = index.views;
    this.ordered = views.ordered;
    this.#views = new ReadonlyIndex(new Map(views.personas));
    this.#all = views.all;
    this.#shared = views.shared;
    Object.freeze(this);
  }

  /**
   * The enabled tools a persona sees, sorted by name: shared tools plus its
   * own, its own shadowing a shared one (as `personaTools`). Without a
   * persona: every enabled tool. A persona no tool is scoped to sees the
   * shared tools.
   */
  toolsFor(persona?: string): readonly Tool[] {
    if (persona === undefined) return this.#all;
    return this.#views.get(persona) ?? this.#shared;
  }

  /**
   * The enabled tools a caller may use, sorted by name: the persona's view,
   * or, for a caller without a persona, the shared tools only (a persona's
   * tools are for that persona). `toolsFor()` without a persona is the
   * operator's view of everything; this is the caller's.
   */
  callableTools(persona?: string): readonly Tool[] {
    return persona === undefined ? this.#shared : this.toolsFor(persona);
  }

  /**
   * The tool a caller may call by this name, or undefined: the same rule as
   * `callableTools(persona)` (a persona's own version wins within it; without
   * a persona only shared tools; disabled tools never), looked up through a
   * name index kept per view instead of a scan.
   * @example snap.callable('files.read', 'atlas') // the version atlas calls
   */
  callable(name: string, persona?: string): Tool | undefined {
    const view = this.callableTools(persona);
    let index = this.#callableIndex.get(view);
    if (!index) {
      const byToolName = new Map<string, Tool>();
      // names are unique within a view; keeping the first still matches a scan if that ever changes
      for (const t of view) if (!byToolName.has(t.name)) byToolName.set(t.name, t);
      index = new ReadonlyIndex(byToolName);
      this.#callableIndex.set(view, index);
    }
    return index.get(name);
  }

  /**
   * One tool by name: the version `persona` sees (disabled tools too), or
   * without a persona the shared version, else the first scoped one.
   */
  tool(name: string, persona?: string): Tool | undefined {
    const list = this.byName.get(name);
    if (!list) return undefined;
    if (persona === undefined) return list[0];
    return list.find((t) => isScoped(t) && t.scope?.personas?.includes(persona)) ?? list.find((t) => !isScoped(t));
  }

  /** One persona's view of the document (tools, skills, agents, jobs), frozen. */
  documentFor(persona?: string): SnapshotDocument {
    if (persona === undefined) return this.document;
    const doc = catalogDocument(this.#catalog, persona);
    return deepFreeze({ bundles: this.bundles, tools: this.toolsFor(persona), skills: doc.skills, agents: doc.agents, jobs: doc.jobs });
  }

  /**
   * Which layer set each field of a tool (an index into its provenance,
   * absent: the first) and which fields toolcap assumed because no layer
   * said anything (the rest of `derived` a dialect translated from its
   * source's own words), and where each field stands in the file of the
   * layer that set it (`locate('effects.mode')`). Undefined for an unknown key.
   */
  basis(key: string): { fieldOrigins: ReadonlyMap<string, number>; assumed: readonly string[]; locate: Locate } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    return { fieldOrigins: new ReadonlyIndex(entry.fieldOrigins ?? new Map()), assumed: entry.assumed ?? [], locate: entryLocator('tool', entry, this.#catalog.documents) };
  }

  /** Every file the snapshot was built from, with the dialect it was read as, in path order. */
  files(): Array<{ file: string; dialect: string }> {
    return [...this.#catalog.documents].map(([file, ref]) => ({ file, dialect: ref.dialect.id })).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  }

  /** Where a tool came from (its override chain, oldest first), with line and column; a fresh frozen copy. */
  provenance(key: string): readonly PositionedOrigin[] | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    return deepFreeze(entry.origins.map((o) => ({ ...o, ...originPosition(o, this.#catalog.documents) })));
  }
}

/**
 * Make a snapshot of a successful build. The build's values are frozen in
 * place: do not keep changing them afterwards.
 */
export function createSnapshot(result: Pick<CatalogResult, 'catalog' | 'diagnostics'>, init: SnapshotInit): Snapshot {
  return new Snapshot(result, init);
}
