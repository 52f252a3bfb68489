/**
 * Merging layers into one catalog.
 *
 * The rule: entries match by name (tools by name and persona scope). A later
 * layer overrides field by field: top-level fields are replaced; the grouping
 * objects (MERGED_GROUPS: effects, hints, approval, auth, cost, latency,
 * execution, surface, implementation, observability, scope, storage,
 * extensions) merge one level deep, so an
 * overlay can say `approval: { required: true }` without restating the rest;
 * schemas, arrays and free-form objects are replaced whole. A derived value
 * never overrides a declared one. Why field by field: overlays are partial by
 * nature (Pylot's "layer local manifests to disable risky tools"); replacing
 * whole tools would make every overlay restate, and silently drop, the rest.
 * @module
 */
import type { Dialect, DialectId } from '../dialects/types.js';
import type { SourceFile } from '../source/source.js';
import type { LoadedDocument, Layer } from '../load/loader.js';
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { Agent, BundleInfo, Job, Skill, Tool } from '../model/schema.js';
import { toolKey } from '../model/tool-key.js';
import { applyFloor, floorOf, withoutLooserHints, type Floor } from './floors.js';
import { floorLearned, withoutRunFields } from './learned-floor.js';
import { isPlainObject } from '../model/objects.js';
import { unmatchedOverride } from './override-notes.js';

/** What a catalog keeps of a loaded file: enough to show positions, not its parsed value. */
export interface SourceRef {
  file: Pick<SourceFile, 'path' | 'text' | 'locate'>;
  dialect: Dialect;
}

/** Where one version of an entry came from. Line and column are looked up only when shown. */
export interface Origin {
  file: string;
  pointer: string;
  dialect: DialectId;
  layer: number;
  /** The path the layer was given as. */
  source: string;
}

/** A merged entry, with its override chain (oldest first). */
export interface Entry<T> {
  key: string;
  value: T;
  origins: Origin[];
  /** Canonical field path -> index in `origins` of the layer that last set it (absent: origins[0]; no map until a second layer). */
  fieldOrigins?: Map<string, number>;
  /**
   * Fields toolcap assumed because no layer said anything (complete()), as
   * opposed to fields a dialect translated from other words in its source.
   */
  assumed?: readonly string[];
}

export interface MergedCatalog {
  bundles: BundleInfo[];
  tools: Array<Entry<Tool>>;
  skills: Array<Entry<Skill>>;
  agents: Array<Entry<Agent>>;
  jobs: Array<Entry<Job>>;
  /** Every loaded document by file path, for locating findings. */
  documents: Map<string, LoadedDocument>;
}

/** Objects merged one level deep rather than replaced. */
export const MERGED_GROUPS: ReadonlySet<string> = new Set([
  'effects',
  'hints',
  'approval',
  'auth',
  'cost',
  'latency',
  'execution',
  'surface',
  'implementation',
  'observability',
  'scope',
  'storage',
  'extensions',
]);

/** The identity of a tool within a layer: name, plus personas when scoped. */
export { toolKey };

type Named = { name: string; derived?: string[] };

/** Apply `over` on top of `base`, recording which fields `index` set. */
function overlay<T extends Named>(base: T, over: T, index: number, fieldOrigins: Map<string, number>): T {
  const out: Record<string, unknown> = { ...base };
  const baseDerived = new Set(base.derived ?? []);
  const overDerived = new Set(over.derived ?? []);
  const derived = new Set(baseDerived);
  const apply = (path: string, write: () => void) => {
    if (overDerived.has(path) && !baseDerived.has(path) && hasPath(base, path)) return;
    write();
    fieldOrigins.set(path, index);
    if (overDerived.has(path)) derived.add(path);
    else derived.delete(path);
  };
  for (const [key, value] of Object.entries(over)) {
    if (key === 'name' || key === 'derived' || value === undefined) continue;
    const current = out[key];
    if (MERGED_GROUPS.has(key) && isPlainObject(value) && (current === undefined || isPlainObject(current))) {
      const group: Record<string, unknown> = { ...current };
      for (const [sub, subValue] of Object.entries(value)) apply(`${key}.${sub}`, () => (group[sub] = subValue));
      out[key] = group;
    } else {
      apply(key, () => (out[key] = value));
    }
  }
  if (derived.size > 0) out['derived'] = [...derived].sort();
  else delete out['derived'];
  return out as T;
}


function hasPath(obj: object, path: string): boolean {
  const [head, sub] = path.split('.') as [string, string | undefined];
  const v = (obj as Record<string, unknown>)[head];
  if (sub === undefined) return v !== undefined;
  return isPlainObject(v) && v[sub] !== undefined;
}

/**
 * Origins kept between the builds of one registry (registry/build-memo.ts),
 * per loaded document and the layer it was read in: the import cache hands
 * back the very document while its file is unchanged, so that file's entries
 * carry the very origin objects of the last build, and the build worker's
 * encoder finds them unchanged by identity instead of field by field
 * (registry/entry-compare.ts). Origins are never changed once made.
 */
export type OriginCache = WeakMap<LoadedDocument, { layer: number; source: string; byPointer: Map<string, Origin> }>;

function keptOrigins(doc: LoadedDocument, layer: Layer, cache: OriginCache | undefined): (pointer: string) => Origin {
  const make = (pointer: string): Origin => ({ file: doc.file.path, pointer, dialect: doc.dialect.id, layer: layer.index, source: layer.source });
  if (!cache) return make;
  let kept = cache.get(doc);
  if (!kept || kept.layer !== layer.index || kept.source !== layer.source) {
    kept = { layer: layer.index, source: layer.source, byPointer: new Map() };
    cache.set(doc, kept);
  }
  const { byPointer } = kept;
  return (pointer) => {
    let origin = byPointer.get(pointer);
    if (!origin) {
      origin = make(pointer);
      byPointer.set(pointer, origin);
    }
    return origin;
  };
}

/** What the merge of the tools leaves for the next build to reuse (registry/tool-reuse.ts). */
export interface ToolMerge {
  /** The merged tool entries by key (the map the merge filled; its entries are `catalog.tools`). */
  byKey: Map<string, Entry<Tool>>;
  /** For each document, in layer and document order: how many tool entries it declared first (its run of `catalog.tools`). */
  blocks: number[];
  /** Tool keys declared again in the same layer (a DUPLICATE_TOOL; the first is kept). */
  repeated: Set<string>;
  /** The merge's findings about tools (duplicates, unmatched overrides), in the order found. */
  diagnostics: Diagnostic[];
}

/** What to merge: everything, only the tools, or everything but the tools. */
export type MergePart = 'all' | 'tools' | 'rest';

/**
 * Merge layers in order. Duplicates within one layer are errors; the first is
 * kept. `origins`: kept between the builds of one registry (see {@link OriginCache}).
 * `part`: a build that reuses the last build's tool entries merges the rest
 * alone, and the changed files' tools alone. The diagnostics are the tools'
 * first, then the rest's, each in the order found.
 */
export function mergeLayers(
  layers: readonly Layer[],
  origins?: OriginCache,
  part: MergePart = 'all',
): { catalog: MergedCatalog; diagnostics: Diagnostic[]; tools: ToolMerge } {
  const diagnostics: Diagnostic[] = [];
  const toolDiagnostics: Diagnostic[] = [];
  const blocks: number[] = [];
  const repeated = new Set<string>();
  const catalog: MergedCatalog = { bundles: [], tools: [], skills: [], agents: [], jobs: [], documents: new Map() };
  const maps = { tools: new Map<string, Entry<Tool>>(), skills: new Map<string, Entry<Skill>>(), agents: new Map<string, Entry<Agent>>(), jobs: new Map<string, Entry<Job>>() };

  /** Floors from discovered tools' hints, by tool key (registry/floors.ts). */
  const floors = new Map<string, Floor>();
  /** Tools a discovered layer holds: a later (reviewed) layer over one is checked against its hints. */
  const discovered = new Set<string>();
  for (const layer of layers) {
    const fresh = () => ({ tools: new Map<string, Origin>(), skills: new Map<string, Origin>(), agents: new Map<string, Origin>(), jobs: new Map<string, Origin>() });
    let seen = fresh();
    // A kind whose merged map was empty when this (sub-)layer began holds exactly this layer's entries,
    // each under its first origin: that map answers "seen in this layer?" without a second map (the
    // first layer of every load, 10,000 entries in a large catalog).
    const mapIsSeen = () => ({ tools: maps.tools.size === 0, skills: maps.skills.size === 0, agents: maps.agents.size === 0, jobs: maps.jobs.size === 0 });
    let own = mapIsSeen();
    let tier = 0;
    for (const doc of layer.documents) {
      // An override file is a sub-layer of its own (load/override-order.ts): names repeat across tiers by design.
      if ((doc.tier ?? 0) !== tier) {
        tier = doc.tier ?? 0;
        seen = fresh();
        own = mapIsSeen();
      }
      catalog.documents.set(doc.file.path, doc);
      if (doc.imported.bundle) catalog.bundles.push(doc.imported.bundle);
      const originOf = keptOrigins(doc, layer, origins);
      const add = <T extends Named>(kind: keyof typeof maps, entries: ReadonlyArray<{ value: T; pointer: string }>, keyOf: (v: T) => string) => {
        const map = maps[kind] as unknown as Map<string, Entry<T>>;
        for (const { value, pointer } of entries) {
          const key = keyOf(value);
          const origin = originOf(pointer);
          const existing = map.get(key);
          const first = own[kind] ? existing?.origins[0] : seen[kind].get(key);
          if (first) {
            if (kind === 'tools') {
              toolDiagnostics.push(duplicate(kind, key, origin, first, catalog.documents));
              repeated.add(key);
            } else diagnostics.push(duplicate(kind, key, origin, first, catalog.documents));
            continue;
          }
          if (!own[kind]) seen[kind].set(key, origin);
          if (kind === 'tools' && layer.discovered) {
            discovered.add(key);
            const floor = floorOf(value as Tool);
            if (floor) floors.set(key, floor);
          }
          if (!existing) {
            if (kind === 'tools' && tier > 0) toolDiagnostics.push(unmatchedOverride(value as Tool, origin, originPosition(origin, catalog.documents)));
            // a learned tool never says what runs, even one no reviewed layer defines (a row written straight into the store)
            map.set(key, { key, value: kind === 'tools' && layer.learned ? (withoutRunFields(value as unknown as Tool) as unknown as T) : value, origins: [origin] });
          } else {
            existing.origins.push(origin);
            existing.fieldOrigins ??= new Map();
            const before = existing.value;
            existing.value = overlay(before, value, existing.origins.length - 1, existing.fieldOrigins);
            // a learned tool may not loosen what a reviewed layer said (registry/learned-floor.ts)
            if (kind === 'tools' && layer.learned) existing.value = floorLearned(before as unknown as Tool, existing.value as unknown as Tool) as unknown as T;
          }
        }
      };
      if (part !== 'rest') {
        const before = maps.tools.size;
        add('tools', doc.imported.tools, toolKey);
        blocks.push(maps.tools.size - before);
      }
      if (part === 'tools') continue;
      add('skills', doc.imported.skills, (s) => s.name);
      add('agents', doc.imported.agents, (a) => a.name);
      add('jobs', doc.imported.jobs, (j) => j.name);
    }
  }
  // a reviewed manifest may not go below what the server itself reports, and the server's hints may not claim less than it
  for (const key of discovered) {
    const entry = maps.tools.get(key);
    if (!entry || entry.origins.length <= 1) continue;
    const floor = floors.get(key);
    if (floor) entry.value = applyFloor(entry.value, floor);
    entry.value = withoutLooserHints(entry.value);
  }
  catalog.tools = [...maps.tools.values()];
  catalog.skills = [...maps.skills.values()];
  catalog.agents = [...maps.agents.values()];
  catalog.jobs = [...maps.jobs.values()];
  return { catalog, diagnostics: [...toolDiagnostics, ...diagnostics], tools: { byKey: maps.tools, blocks, repeated, diagnostics: toolDiagnostics } };
}

/** Line and column of an origin, looked up in its source. */
export function originPosition(origin: Origin, documents: ReadonlyMap<string, SourceRef>): { line?: number; column?: number } {
  return documents.get(origin.file)?.file.locate(origin.pointer) ?? {};
}

function duplicate(kind: string, key: string, origin: Origin, first: Origin, documents: ReadonlyMap<string, LoadedDocument>): Diagnostic {
  const what = kind === 'tools' ? 'tool' : kind.slice(0, -1);
  const here = originPosition(origin, documents);
  const there = originPosition(first, documents);
  const firstAt = `${first.file}:${there.line ?? '?'}:${there.column ?? '?'}`;
  return diagnostic(kind === 'tools' ? 'DUPLICATE_TOOL' : 'DUPLICATE_ENTRY', `Duplicate ${what} "${key}" in one layer; the first, at ${firstAt}, is kept.`, {
    file: origin.file,
    pointer: origin.pointer,
    ...here,
    hint: 'Rename one, or move the override to a later layer.',
    related: [{ file: first.file, pointer: first.pointer, ...there, message: 'first defined here' }],
  });
}
