/**
 * What one catalog build can hand to the next, so a rebuild after a one-file
 * change does the work of that file: parse and import results by content
 * hash (load/import-cache.ts), the last build's tool entries whole for the
 * files that did not change (registry/tool-reuse.ts), and, for every tool whose merged value is the
 * very object the last build saw (its file was a cache hit and no other
 * layer touched it), its completed value, its per-tool findings and its
 * digest for the snapshot's etag (registry/etag.ts). Everything kept is a pure
 * function of what it is keyed by; the keys are the imported objects
 * themselves (WeakMaps), so dropped files take their memos with them.
 * @module
 */
import { ImportCache } from '../load/import-cache.js';
import { hasSchemaDefs } from '../model/schema-defs.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { Agent, BundleInfo, Job, Skill, Tool } from '../model/schema.js';
import type { LoadedDocument } from '../load/loader.js';
import type { OriginCache } from './merge.js';
import { etagOf, toolDigest } from './etag.js';
import { KeptTools } from './tool-reuse.js';

/** Counters of one build memo (tests assert on these, not on timing). */
export interface BuildMemoStats {
  /** Files whose parse and import were reused. */
  importHits: number;
  /** Files parsed and imported. */
  importMisses: number;
  /** Tools whose completion and per-tool findings were reused. */
  toolHits: number;
  /** Tools completed and checked afresh. */
  toolMisses: number;
}

/** Per-tool results of one build, for one merged value at one place. */
interface ToolMemo {
  /** The file and pointer of the tool's only origin: the same value elsewhere is located elsewhere. */
  file: string;
  pointer: string;
  completed: Tool;
  findings: readonly Diagnostic[];
}

/**
 * Results kept between the builds of one registry (pass it as
 * `CatalogOptions.memo`). The options a build runs with must not change
 * between builds that share a memo (a registry's never do).
 * @example
 * const memo = new BuildMemo();
 * buildCatalog(paths, { memo }); buildCatalog(paths, { memo }); // the second reuses every unchanged file
 */
export class BuildMemo {
  readonly imports = new ImportCache<LoadedDocument>();
  /** Origins per loaded document, so an unchanged file's entries carry the same origin objects (registry/merge.ts). */
  readonly origins: OriginCache = new WeakMap();
  /** The last build's tool entries, completed and checked, for the files a reload did not change (registry/tool-reuse.ts). */
  readonly kept = new KeptTools();
  readonly #tools = new WeakMap<Tool, ToolMemo>();
  readonly #digests = new WeakMap<object, string>();
  readonly #plain = new WeakMap<object, string>();
  /** The values and digests of the last etag, by place (see {@link BuildMemo.digests}). */
  #lastValues: readonly Tool[] = [];
  #lastDigests: string[] = [];
  #toolHits = 0;
  #toolMisses = 0;

  /** The counters so far. */
  get stats(): BuildMemoStats {
    return { importHits: this.imports.stats.hits, importMisses: this.imports.stats.misses, toolHits: this.#toolHits, toolMisses: this.#toolMisses };
  }

  /**
   * The completed value and per-tool findings of a merged tool value found at
   * `file` and `pointer`: reused when the same value was seen there last
   * time, else computed by `run` and kept.
   */
  /** Count `count` tool entries reused whole from the last build (registry/tool-reuse.ts) as reused. */
  reusedEntries(count: number): void {
    this.#toolHits += count;
  }

  tool(value: Tool, file: string, pointer: string, run: () => { completed: Tool; findings: readonly Diagnostic[] }): { completed: Tool; findings: readonly Diagnostic[] } {
    const kept = this.#tools.get(value);
    if (kept && kept.file === file && kept.pointer === pointer) {
      this.#toolHits++;
      return kept;
    }
    this.#toolMisses++;
    const fresh = run();
    this.#tools.set(value, { file, pointer, ...fresh });
    return fresh;
  }

  /** `JSON.stringify(value)`, kept per object (what a worker sends a tool as). */
  json(value: object): string {
    let text = this.#plain.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      this.#plain.set(value, text);
    }
    return text;
  }

  /**
   * Tell the memo that `value` serialises (`JSON.stringify`) exactly as `as`
   * does, so its etag digest is the one kept for `as`, if any: a tool of a
   * re-imported file that did not change is not hashed again. Tool values
   * are plain JSON data, for which equal texts mean equal content.
   */
  same(value: object, as: object): void {
    if (value === as || this.#digests.has(value)) return;
    const digest = this.#digests.get(as);
    if (digest !== undefined) this.#digests.set(value, digest);
  }

  /**
   * The etag digests of `values` in order, or undefined when one carries
   * schema definitions (see {@link catalogEtag}). A value at the place it had
   * in the last call takes the digest found there (and had no definitions),
   * with no lookup: after a reload that reused most entries, most are.
   */
  digests(tools: ReadonlyArray<{ value: Tool }>): string[] | undefined {
    const [last, lastDigests] = [this.#lastValues, this.#lastDigests];
    const values = new Array<Tool>(tools.length);
    const out = new Array<string>(tools.length);
    for (let i = 0; i < tools.length; i++) {
      const value = (values[i] = tools[i]!.value);
      if (last[i] === value) out[i] = lastDigests[i]!;
      else if (hasSchemaDefs(value)) return undefined;
      else out[i] = this.digest(value);
    }
    this.#lastValues = values;
    this.#lastDigests = out;
    return out;
  }

  /**
   * Whether some tool carries schema definitions (model/schema-defs.ts),
   * asked only of the values not at the place they had in the last etag
   * (those had none).
   */
  sharesDefs(tools: ReadonlyArray<{ value: Tool }>): boolean {
    const last = this.#lastValues;
    for (let i = 0; i < tools.length; i++) {
      const value = tools[i]!.value;
      if (last[i] !== value && hasSchemaDefs(value)) return true;
    }
    return false;
  }

  /** `toolDigest(value)` (registry/etag.ts), kept per object (a completed tool is never changed after its build). */
  digest(value: object): string {
    let digest = this.#digests.get(value);
    if (digest === undefined) {
      digest = toolDigest(value);
      this.#digests.set(value, digest);
    }
    return digest;
  }
}

/**
 * The etag of the document a snapshot of `catalog` serves: the same value as
 * `documentEtag(snapshot.document)` (registry/etag.ts), with each tool's
 * digest taken from the memo (so an unchanged tool is not hashed again).
 * Empty when tools carry schema definitions: the snapshot then hashes the
 * shared form.
 */
export function catalogEtag(
  catalog: {
    bundles: readonly BundleInfo[];
    tools: ReadonlyArray<{ value: Tool }>;
    skills: ReadonlyArray<{ value: Skill }>;
    agents: ReadonlyArray<{ value: Agent }>;
    jobs: ReadonlyArray<{ value: Job }>;
  },
  memo: BuildMemo,
): string {
  const values = <T>(entries: ReadonlyArray<{ value: T }>) => entries.map((e) => e.value);
  const digests = memo.digests(catalog.tools);
  // tools sharing schema definitions: the snapshot hashes their shared form itself (documentHash)
  if (digests === undefined) return '';
  const rest = { bundles: catalog.bundles, skills: values(catalog.skills), agents: values(catalog.agents), jobs: values(catalog.jobs) };
  return etagOf(rest, digests);
}
