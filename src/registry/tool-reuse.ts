/**
 * Whole tool entries handed from one build to the next. After a one-file
 * change, every other file's tool entries (merged, completed, their per-tool
 * findings found) are the last build's, as long as the changed files stand
 * apart: each of their tools, before and after the change, is declared
 * nowhere else (no override, no duplicate, in any layer). Then the changed
 * files' tools are merged on their own and put in the place their files'
 * run held, and the build completes and checks only those; the cross-file
 * checks (references, skill coverage, module paths) still run over the whole
 * catalog. Anything else (a file added, removed or moved to another layer, a
 * changed override file, a changed tool that another file also declares)
 * declines, and the build merges everything as it always did.
 * @module
 */
import type { Layer, LoadedDocument } from '../load/loader.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import { toolKey } from '../model/tool-key.js';
import { mergeLayers, type Entry, type OriginCache, type ToolMerge } from './merge.js';

/** One document of a build, with the layer it was read in. */
interface Placed {
  layer: Layer;
  doc: LoadedDocument;
}

/** What a build keeps for the next: its documents and merge, its tool entries as completed, and their findings. */
export interface KeptBuild {
  docs: Placed[];
  merge: ToolMerge;
  /** The completed entries in merge order (before any audit gate). */
  tools: Array<Entry<Tool>>;
  /** Each entry's own findings (lintTool and honesty). */
  findings: Map<Entry<Tool>, readonly Diagnostic[]>;
}

/** A build's tools with the last build's reused: the fresh entries are merged but not completed yet. */
export interface ReusedTools {
  /** Every tool entry in merge order: the last build's, and the fresh ones in their files' place. */
  tools: Array<Entry<Tool>>;
  /** The changed files' entries, merged, to complete and check. */
  fresh: Array<Entry<Tool>>;
  /** The reused entries' findings; the caller adds the fresh ones'. */
  findings: Map<Entry<Tool>, readonly Diagnostic[]>;
  /** The merge as it stands with the fresh entries (to keep once the build is done). */
  merge: ToolMerge;
  /** The documents of this build. */
  docs: Placed[];
}

/** Every document of the layers, in merge order. */
export function placedDocuments(layers: readonly Layer[]): Placed[] {
  const out: Placed[] = [];
  for (const layer of layers) for (const doc of layer.documents) out.push({ layer, doc });
  return out;
}

/** The same file at the same place in the same kind of layer. */
function sameSlot(a: Placed, b: Placed): boolean {
  const [x, y] = [a.layer, b.layer];
  return (
    x.index === y.index &&
    x.source === y.source &&
    x.persona === y.persona &&
    x.discovered === y.discovered &&
    x.learned === y.learned &&
    a.doc.file.path === b.doc.file.path &&
    (a.doc.tier ?? 0) === (b.doc.tier ?? 0)
  );
}

/** The very import of the last build (the import cache hands it back while the file's bytes are the same). */
const sameImport = (a: LoadedDocument, b: LoadedDocument) => a.imported === b.imported && a.file === b.file && a.dialect === b.dialect;

/**
 * The last build kept by a {@link BuildMemo} (registry/build-memo.ts), and
 * the one step that reuses it. Taking it hands it over: a build that throws
 * halfway leaves nothing half-updated behind, and the next one merges afresh.
 */
export class KeptTools {
  #last: KeptBuild | undefined;

  /** Keep a finished build for the next (its maps are handed over, and changed by the next reuse). */
  keep(build: KeptBuild): void {
    this.#last = build;
  }

  /** Forget the last build. */
  clear(): void {
    this.#last = undefined;
  }

  /**
   * The tool entries of a build of `layers`, the last build's reused, or
   * undefined when the changed files do not stand apart (then merge afresh).
   */
  reuse(layers: readonly Layer[], origins: OriginCache | undefined): ReusedTools | undefined {
    const last = this.#last;
    this.#last = undefined;
    if (!last) return undefined;
    const docs = placedDocuments(layers);
    if (docs.length !== last.docs.length) return undefined;
    const changed: number[] = [];
    for (let i = 0; i < docs.length; i++) {
      const [now, then] = [docs[i]!, last.docs[i]!];
      if (!sameSlot(now, then)) return undefined;
      if (!sameImport(now.doc, then.doc)) changed.push(i);
    }
    const { byKey, repeated } = last.merge;
    if (changed.length === 0) return { tools: last.tools.slice(), fresh: [], findings: last.findings, merge: last.merge, docs };
    // an override file overrides (or notes that it matches nothing): its tools never stand apart
    if (changed.some((i) => (docs[i]!.doc.tier ?? 0) > 0)) return undefined;
    // most of the catalog changed: merging it all afresh costs no more than checking it apart
    let changedTools = 0;
    for (const i of changed) changedTools += last.docs[i]!.doc.imported.tools.length;
    if (changedTools * 2 > byKey.size) return undefined;
    // before: each tool of a changed file was declared there alone, once
    const gone = new Set<string>();
    for (const i of changed) {
      for (const { value } of last.docs[i]!.doc.imported.tools) {
        const key = toolKey(value);
        if (byKey.get(key)?.origins.length !== 1 || repeated.has(key)) return undefined;
        gone.add(key);
      }
    }
    // after: merged on their own (each file as a layer of its own, so two changed files that share a key show as an override), and declared nowhere else
    const alone = mergeLayers(
      changed.map((i) => ({ ...docs[i]!.layer, documents: [docs[i]!.doc] })),
      origins,
      'tools',
    );
    if (alone.tools.diagnostics.length > 0) return undefined;
    const fresh = alone.catalog.tools;
    for (const entry of fresh) if (entry.origins.length !== 1 || (byKey.has(entry.key) && !gone.has(entry.key))) return undefined;
    // from here on the kept maps are this build's
    const { findings } = last;
    for (const key of gone) {
      const entry = byKey.get(key)!;
      findings.delete(entry);
      byKey.delete(key);
    }
    for (const entry of fresh) byKey.set(entry.key, entry);
    const blocks = last.merge.blocks.slice();
    // the runs of unchanged documents copied as slices between the changed ones' fresh runs
    const parts: Array<ReadonlyArray<Entry<Tool>>> = [];
    let from = 0; // where the next unchanged run starts in the last build's tools
    let at = 0; // where document i's run starts in the last build's tools
    let next = 0; // the next fresh entry
    changed.forEach((i, c) => {
      for (let d = changed[c - 1] === undefined ? 0 : changed[c - 1]! + 1; d < i; d++) at += last.merge.blocks[d]!;
      parts.push(last.tools.slice(from, at));
      const count = alone.tools.blocks[c]!;
      parts.push(fresh.slice(next, (next += count)));
      blocks[i] = count;
      at += last.merge.blocks[i]!;
      from = at;
    });
    parts.push(last.tools.slice(from));
    const tools = ([] as Array<Entry<Tool>>).concat(...parts);
    return { tools, fresh, findings, merge: { byKey, blocks, repeated, diagnostics: last.merge.diagnostics }, docs };
  }
}
