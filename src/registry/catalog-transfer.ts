/**
 * A built catalog sent from the build worker to the main thread without
 * blocking it. Structured-cloning 10,000 tools costs the receiving thread
 * one long block when the message arrives; instead the worker writes the
 * tools as JSON text in chunks into one buffer that is transferred (no
 * copy), and the main thread parses and freezes the chunks a few
 * milliseconds at a time, yielding to the event loop between slices. Tool
 * entries unchanged since the previous message are sent as runs of their
 * places in it, and the receiver reuses the (frozen, immutable) entries it
 * already has: a one-file change serialises and parses one file's tools.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { getDialect } from '../dialects/lookup.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { Agent, BundleInfo, Job, Skill, Tool } from '../model/schema.js';
import { parseSource, type ParseLimits, type SourceFile } from '../source/source.js';
import type { BuildMemo, BuildMemoStats } from './build-memo.js';
import type { Catalog, CatalogResult } from './catalog.js';
import type { Entry, SourceRef } from './merge.js';
import { restJson, sameRest } from './entry-compare.js';
import { deepFreeze } from './snapshot.js';
import { nameOrder, NameOrder } from './views.js';

/** Tool entries per chunk of the buffer. */
const CHUNK = 200;
/** Most main-thread time one slice of decoding takes before yielding, in milliseconds. */
export const SLICE_MS = 6;

type WireEntry<T> = Omit<Entry<T>, 'fieldOrigins'> & { fieldOrigins?: Array<[string, number]> };

/** The small part of a built catalog, sent as one JSON text. */
interface Head {
  bundles: BundleInfo[];
  skills: Array<WireEntry<Skill>>;
  agents: Array<WireEntry<Agent>>;
  jobs: Array<WireEntry<Job>>;
  diagnostics: Diagnostic[];
  unreadable: boolean;
  etag: string;
  /** Loaded documents: path and dialect id; their texts travel beside (`texts`, same order; null: as in the last message). */
  documents: Array<[string, string]>;
  tools: number;
}

/** What the worker posts for one build (the buffer is transferred). */
export interface BuiltMessage {
  kind: 'built';
  id: number;
  head: string;
  /** Each loaded document's text, or null when it is the text the last message sent for that path (4.7 MB for 10,000 tools: not copied twice per reload for nothing). */
  texts: Array<string | null>;
  buffer: ArrayBuffer;
  /** Byte offsets of the tool chunks in `buffer`: chunk i is [ends[i-1] ?? 0, ends[i]). */
  ends: number[];
  /** The memo's counters after this build. */
  stats: BuildMemoStats;
  /** Worker milliseconds spent building and encoding. */
  buildMs: number;
  /** The tools' indexes sorted by name (views.ts `nameOrder`), an Int32Array's buffer (transferred). */
  order: ArrayBuffer;
  /**
   * The tool entries themselves (structured clone), instead of JSON chunks,
   * when tools carry schema definitions: those are shared by identity
   * (schema-defs.ts), which a clone keeps and JSON text would expand (one
   * Stripe operation reaches ~600 KB of definitions).
   */
  cloned?: Array<Entry<Tool>>;
}

const wire = <T>(e: Entry<T>): WireEntry<T> => {
  const { fieldOrigins, ...rest } = e;
  return fieldOrigins ? { ...rest, fieldOrigins: [...fieldOrigins] } : rest;
};
const unwire = <T>(e: WireEntry<T>): Entry<T> => {
  const { fieldOrigins, ...rest } = e;
  return fieldOrigins ? { ...rest, fieldOrigins: new Map(fieldOrigins) } : rest;
};

/** The small part of a build as JSON, and the loaded documents' texts beside it (null: the text `sent` holds for that path). */
function headOf(result: CatalogResult, etag: string, sent: Map<string, string>): { head: string; texts: Array<string | null> } {
  const { catalog } = result;
  const documents = [...catalog.documents];
  const head: Head = {
    bundles: catalog.bundles,
    skills: catalog.skills.map(wire),
    agents: catalog.agents.map(wire),
    jobs: catalog.jobs.map(wire),
    diagnostics: result.diagnostics,
    unreadable: result.unreadable,
    etag,
    documents: documents.map(([path, d]) => [path, d.dialect.id]),
    tools: catalog.tools.length,
  };
  const texts = documents.map(([path, d]) => (sent.get(path) === d.file.text ? null : d.file.text));
  sent.clear();
  for (const [path, d] of documents) sent.set(path, d.file.text);
  return { head: JSON.stringify(head), texts };
}

/**
 * The worker's side: remembers what it sent last, so unchanged entries go as
 * runs of their places in the last message (`{"s":start,"n":count}`); a
 * changed one goes in full (`{"v":value,"e":rest}`). An entry is unchanged
 * when its value is the very object sent last time (the memo's completed
 * value, its file a cache hit) and its rest is the same field by field, or,
 * failing that, when both serialise to the same text as last time.
 */
export class CatalogEncoder {
  /** The tool entries of the last message, in its order, and the JSON of their rests once computed. */
  #sent: ReadonlyArray<Entry<Tool>> = [];
  #rests: Array<string | undefined> = [];
  /** Key -> place in the last message; made only when a key is not at the place it had (a tool added or removed before it). */
  #at: Map<string, number> | undefined;
  /** The document texts of the last message, by path. */
  readonly #texts = new Map<string, string>();
  readonly #order = new NameOrder();
  constructor(private readonly memo: BuildMemo) {}

  /**
   * Encode one build. `etag` is `catalogEtag(result.catalog, memo)`, or a
   * function computing it, called after the tools are encoded (the encoder
   * tells the memo which new values serialise as the old, so it is cheaper then).
   */
  encode(id: number, result: CatalogResult, etagOf: string | (() => string), started: number): BuiltMessage {
    const { catalog } = result;
    const etag = () => (typeof etagOf === 'string' ? etagOf : etagOf());
    if (this.memo.sharesDefs(catalog.tools)) return this.#encodeCloned(id, result, etag(), started);
    const rests = new Array<string | undefined>(catalog.tools.length);
    const chunks: string[] = [];
    let items: string[] = [];
    let runStart = -1;
    let runLength = 0;
    const push = (item: string) => {
      items.push(item);
      if (items.length === CHUNK) {
        chunks.push(`[${items.join(',')}]`);
        items = [];
      }
    };
    const flush = () => {
      if (runLength > 0) push(`{"s":${runStart},"n":${runLength}}`);
      runLength = 0;
    };
    const [tools, sent] = [catalog.tools, this.#sent];
    for (let i = 0; i < tools.length; i++) {
      // a run of the very entries of the last message at their places (files the build reused whole): one step
      if (tools[i] === sent[i]) {
        let end = i + 1;
        while (end < tools.length && tools[end] === sent[end]) end++;
        if (runLength > 0 && runStart + runLength === i) runLength += end - i;
        else {
          flush();
          runStart = i;
          runLength = end - i;
        }
        i = end - 1;
        continue;
      }
      const entry = tools[i]!;
      const j = this.#placeOf(entry.key, i);
      const before = j === undefined ? undefined : this.#sent[j];
      let value: string | undefined;
      let same = false;
      if (before !== undefined) {
        // the very entry (a file the build reused whole), or its very value with the same rest
        if (before === entry || (before.value === entry.value && sameRest(before, entry))) same = true;
        else if ((value = this.memo.json(entry.value)) === this.memo.json(before.value)) {
          this.memo.same(entry.value, before.value);
          // the rests field by field first: serialising both costs more than the values' comparison did
          same = sameRest(before, entry) || (this.#rests[j!] ??= restJson(before)) === (rests[i] = restJson(entry));
        }
      }
      if (same) {
        if (runLength > 0 && runStart + runLength === j) runLength++;
        else {
          flush();
          runStart = j!;
          runLength = 1;
        }
        continue;
      }
      flush();
      push(`{"v":${value ?? this.memo.json(entry.value)},"e":${(rests[i] ??= restJson(entry))}}`);
    }
    flush();
    if (items.length > 0) chunks.push(`[${items.join(',')}]`);
    this.#sent = catalog.tools.slice();
    this.#rests = rests;
    this.#at = undefined;
    const ends: number[] = [];
    let total = 0;
    for (const c of chunks) ends.push((total += Buffer.byteLength(c)));
    // not from the pool: its ArrayBuffer is ours alone, so it can be transferred
    const buffer = Buffer.allocUnsafeSlow(total);
    chunks.forEach((c, i) => buffer.write(c, ends[i - 1] ?? 0));
    return {
      kind: 'built',
      id,
      ...headOf(result, etag(), this.#texts),
      buffer: buffer.buffer as ArrayBuffer,
      ends,
      stats: this.memo.stats,
      buildMs: performance.now() - started,
      order: this.#order.of(catalog.tools).buffer as ArrayBuffer,
    };
  }

  /** Where the entry with `key` was in the last message: `i` when it is still there, else looked up. */
  #placeOf(key: string, i: number): number | undefined {
    if (this.#sent[i]?.key === key) return i;
    if (this.#at === undefined) {
      this.#at = new Map();
      for (let k = 0; k < this.#sent.length; k++) this.#at.set(this.#sent[k]!.key, k);
    }
    return this.#at.get(key);
  }

  /** One build as cloned entries (see `BuiltMessage.cloned`); the next build sends every entry in full. */
  #encodeCloned(id: number, result: CatalogResult, etag: string, started: number): BuiltMessage {
    this.reset();
    const { catalog } = result;
    return {
      kind: 'built',
      id,
      ...headOf(result, etag, this.#texts),
      buffer: new ArrayBuffer(0),
      ends: [],
      stats: this.memo.stats,
      buildMs: performance.now() - started,
      order: nameOrder(catalog.tools).buffer as ArrayBuffer,
      cloned: [...catalog.tools],
    };
  }

  /** Forget what was sent (the receiver lost its copy: a new worker, a dropped message). */
  reset(): void {
    this.#sent = [];
    this.#rests = [];
    this.#at = undefined;
    this.#texts.clear();
  }
}

/** A decoded build: a catalog result and the etag the worker computed. */
export interface DecodedBuild {
  result: CatalogResult;
  etag: string;
  /** The tools' indexes sorted by name, as the worker computed them (checked before use). */
  order?: Int32Array;
}

/** The main thread's side: decodes in slices, reusing entries the worker marked unchanged. */
export class CatalogDecoder {
  /** The tool entries of the last message, in its order (what a run refers to). */
  #entries: ReadonlyArray<Entry<Tool>> = [];
  /** The documents of the last message, by path (what a null text refers to; an unchanged one keeps its parsed positions). */
  #documents = new Map<string, { text: string; ref?: SourceRef }>();
  constructor(private readonly limits: ParseLimits) {}

  /**
   * Decode a build, yielding to the event loop every {@link SLICE_MS}. Tool
   * values come back frozen (the snapshot would freeze them anyway).
   */
  async decode(message: BuiltMessage, yieldNow: () => Promise<void>): Promise<DecodedBuild> {
    // the message itself was just deserialised, in the turn that delivered it: start a fresh one
    await yieldNow();
    const head = JSON.parse(message.head) as Head;
    const documents = new Map<string, SourceRef>();
    const known = new Map<string, { text: string; ref?: SourceRef }>();
    const sources = new Map<string, string>();
    head.documents.forEach(([path, dialectId], i) => {
      const sent = message.texts[i];
      const last = sent === null ? this.#documents.get(path) : undefined;
      // the worker and this side disagree: a bug; the caller falls back to an in-process build
      if (sent === null && last === undefined) throw new Error(`build worker sent ${path} as unchanged; this side holds no text for it`);
      const text = last?.text ?? sent ?? '';
      const dialect = getDialect(dialectId as Parameters<typeof getDialect>[0]);
      // an unchanged document read the same way keeps its object (and the positions it parsed on demand)
      const ref = !dialect ? undefined : last?.ref?.dialect === dialect ? last.ref : { file: lazyFile(path, text, this.limits), dialect };
      if (ref) documents.set(path, ref);
      known.set(path, ref ? { text, ref } : { text });
      sources.set(path, text);
    });
    this.#documents = known;
    const bytes = Buffer.from(message.buffer);
    const tools: Array<Entry<Tool>> = [];
    const last = this.#entries;
    for (const entry of message.cloned ?? []) tools.push({ ...entry, value: deepFreeze(entry.value) });
    let sliceStart = performance.now();
    for (let i = 0; i < message.ends.length; i++) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldNow();
        sliceStart = performance.now();
      }
      const items = JSON.parse(bytes.toString('utf8', message.ends[i - 1] ?? 0, message.ends[i])) as Array<{ s: number; n: number } | { v: Tool; e: Omit<WireEntry<Tool>, 'value'> }>;
      for (const item of items) {
        if ('s' in item) {
          // the worker and this side disagree: a bug; the caller falls back to an in-process build
          if (!(Number.isInteger(item.s) && Number.isInteger(item.n) && item.s >= 0 && item.n > 0 && item.s + item.n <= last.length)) {
            throw new Error(`build worker referred to tools ${item.s}..${item.s + item.n - 1} of its last message; this side holds ${last.length}`);
          }
          for (let k = item.s; k < item.s + item.n; k++) tools.push(last[k]!);
        } else {
          tools.push(unwire({ ...item.e, value: deepFreeze(item.v) }));
        }
      }
    }
    this.#entries = tools;
    const catalog: Catalog = {
      bundles: head.bundles,
      tools,
      skills: head.skills.map(unwire),
      agents: head.agents.map(unwire),
      jobs: head.jobs.map(unwire),
      documents,
    };
    return { result: { catalog, diagnostics: head.diagnostics, unreadable: head.unreadable, sources }, etag: head.etag, order: new Int32Array(message.order) };
  }

  /** Forget held entries (a new worker starts from nothing). */
  reset(): void {
    this.#entries = [];
    this.#documents = new Map();
  }
}

/** A source file whose positions are computed on first use (a provenance lookup), from its text. */
function lazyFile(path: string, text: string, limits: ParseLimits): Pick<SourceFile, 'path' | 'text' | 'locate'> {
  let parsed: SourceFile | undefined | null;
  return {
    path,
    text,
    locate(pointer, key) {
      if (parsed === undefined) parsed = parseSource(path, text, limits).file ?? null;
      return parsed?.locate(pointer, key);
    },
  };
}
