/**
 * Learned tools: tool entries a workflow writes at run time (Xena's
 * "workflows upsert generated tool entries"), kept in the store and served
 * as the catalog's learned layer.
 *
 * - An upsert is judged like any manifest entry: the entry is wrapped in its
 *   dialect's file shape and read by that dialect's importer (Xena: `surface`
 *   required, its vocabulary, capability naming), then the whole catalog is
 *   built with it, without serving it (`Registry.preview`). Any error refuses
 *   it (an {@link InvalidLearnedTool} with findings located in the entry as
 *   sent) and nothing changes: not the store, not the serving snapshot.
 * - Accepted, it is written to the store, then the registry reloads (one
 *   swap: readers see the old catalog or the new one), and the write is
 *   audited (`tool.learned`, `tool.forgotten`) with the principal.
 * - At start {@link LearnedTools.load} reads the store, so learned tools
 *   survive a restart.
 * - A learned entry never loosens a tool a reviewed layer defines
 *   (registry/learned-floor.ts), and never says what runs: `providers`,
 *   `implementation` and `metadata.probe.file` (a task file the probe-file
 *   provider would read) are refused (a learned tool is served to planners; it
 *   runs only through providers a manifest file gives it).
 * - The same checks run on every row read from the store ({@link load},
 *   {@link resync}): a row written straight into the table (another writer
 *   of the database) that fails them is not served, with a warning. And the
 *   catalog build drops `providers`/`implementation` from any learned-layer
 *   entry (registry/merge.ts), a new name or not.
 * Writes are serialised in this process.
 * @module
 */
import type { DialectId } from '../../dialects/types.js';
import type { LayerInput, LayerSpec, LayerText } from '../../load/loader.js';
import { isPlainObject } from '../../model/objects.js';
import { runFieldsOf } from '../../registry/learned-floor.js';
import type { Registry, ReloadEvent } from '../../registry/registry.js';
import type { LearnedToolRecord, LearnedToolStore } from '../../store/learned-tools.js';
import type { Store } from '../../store/types.js';
import { LEARNED_DIALECTS, learnedDialectIds, learnedDocumentName, learnedText, locateInBody, type LocatedFinding } from './documents.js';


/** The path the learned layer is shown as. */
export const LEARNED_LAYER_PATH = '(learned tools)';

/** An upsert refused: the entry is not a valid tool (HTTP 422, CLI exit 1). Nothing changed. */
export class InvalidLearnedTool extends Error {
  override readonly name = 'InvalidLearnedTool' as const;
  constructor(
    message: string,
    readonly findings: readonly LocatedFinding[],
  ) {
    super(message);
  }
}

/** A summary of one learned tool, for listings (without its body). */
export interface LearnedToolInfo {
  id: string;
  dialect: string;
  writtenBy: string;
  createdAt: string;
  updatedAt: string;
}

/** What an upsert or a delete did. */
export interface LearnedWrite {
  tool: LearnedToolInfo;
  /** The registry's reload: the version now serving. */
  reload: { kind: ReloadEvent['kind']; version: number };
  /** Warnings on the entry (it was kept), located in it. */
  findings?: LocatedFinding[];
}

const info = (r: LearnedToolRecord): LearnedToolInfo => ({ id: r.id, dialect: r.dialect, writtenBy: r.writtenBy, createdAt: r.createdAt, updatedAt: r.updatedAt });

/** The learned layer and the writes to it. */
export class LearnedTools {
  #records = new Map<string, LearnedToolRecord>();
  #registry: Registry | undefined;
  #store: (Store & LearnedToolStore) | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #clock: () => number;
  #onWrite: ((id: string) => void) | undefined;
  #queuedResync: Promise<ReloadEvent | undefined> | undefined;

  readonly #warn: (message: string) => void;
  readonly #refused = new Set<string>();

  /** `warn` is told of each row in the store that is not served (it fails {@link checkEntry}). */
  constructor(options: { clock?: () => number; warn?: (message: string) => void } = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#warn = options.warn ?? ((message) => process.emitWarning(message));
  }

  /** The layer the registry loads: the learned tools kept, read at every build. */
  layer(): LayerSpec {
    return { path: LEARNED_LAYER_PATH, learned: true, texts: () => this.#texts(this.#records) };
  }

  #texts(records: ReadonlyMap<string, LearnedToolRecord>): LayerText[] {
    return [...records.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) => learnedText(r.id, r.dialect as DialectId, r.body));
  }

  /** Read the learned tools from the store and reload the registry when there are any (at start). */
  async load(store: Store & LearnedToolStore, registry: Registry): Promise<ReloadEvent | undefined> {
    this.#store = store;
    this.#registry = registry;
    this.#records = this.#admit(await store.listLearnedTools());
    return this.#records.size > 0 ? registry.refresh({ force: true }) : undefined;
  }

  /** Every learned tool kept, by id. */
  list(): LearnedToolInfo[] {
    return [...this.#records.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map(info);
  }

  /** One learned tool as kept (with its body), or undefined. */
  get(id: string): LearnedToolRecord | undefined {
    return this.#records.get(id);
  }

  /**
   * Judge, keep and serve a learned tool. `body` is one tool entry (a JSON
   * object as text) in `dialect`; its id (`name`, Xena `id`) must be `id`.
   * @throws {InvalidLearnedTool} when it is not a valid tool; nothing changed then.
   */
  upsert(id: string, dialect: string, body: string, principal: string): Promise<LearnedWrite> {
    return this.#serial(async () => {
      const { store, registry } = this.#ready();
      checkEntry(id, dialect, body);
      const at = new Date(this.#clock()).toISOString();
      const old = this.#records.get(id);
      const record: LearnedToolRecord = { id, dialect, body, writtenBy: principal, createdAt: old?.createdAt ?? at, updatedAt: at };
      const candidate = new Map(this.#records).set(id, record);
      const check = registry.preview((layer) => (this.#isLearned(layer) ? { ...(layer as LayerSpec), texts: () => this.#texts(candidate) } : layer));
      const name = learnedDocumentName(id);
      const mine = check.result.diagnostics.filter((d) => d.file === name);
      if (check.failed) {
        const errors = check.result.diagnostics.filter((d) => d.severity === 'error' || d.file === name);
        throw new InvalidLearnedTool(`The learned tool "${id}" is not a valid ${dialect} tool entry; nothing was changed.`, locateInBody(errors.length > 0 ? errors : check.result.diagnostics, name));
      }
      const stored = await store.putLearnedTool(record);
      this.#records = new Map(this.#records).set(id, stored);
      const reload = await registry.refresh({ force: true });
      this.#onWrite?.(id);
      await store.appendAudit({ at, kind: 'tool.learned', tool: id, callId: null, persona: null, actor: principal, detail: { dialect, replaced: old !== undefined, version: reload.version, warnings: mine.length } });
      return { tool: info(stored), reload: { kind: reload.kind, version: reload.version }, ...(mine.length > 0 ? { findings: locateInBody(mine, name) } : {}) };
    });
  }

  /** Forget a learned tool; resolves to undefined when there was none. */
  forget(id: string, principal: string): Promise<LearnedWrite | undefined> {
    return this.#serial(async () => {
      const { store, registry } = this.#ready();
      const old = this.#records.get(id);
      if (!old) return undefined;
      await store.deleteLearnedTool(id);
      const next = new Map(this.#records);
      next.delete(id);
      this.#records = next;
      const reload = await registry.refresh({ force: true });
      this.#onWrite?.(id);
      const at = new Date(this.#clock()).toISOString();
      await store.appendAudit({ at, kind: 'tool.forgotten', tool: id, callId: null, persona: null, actor: principal, detail: { dialect: old.dialect, version: reload.version } });
      return { tool: info(old), reload: { kind: reload.kind, version: reload.version } };
    });
  }

  /** Be told of each learned tool this process wrote or forgot, once it is in the store (the cluster sync tells the other instances). */
  onWrite(listener: ((id: string) => void) | undefined): void {
    this.#onWrite = listener;
  }

  /**
   * Re-read the learned tools from the store (another instance wrote one,
   * or the cluster channel came back) and reload when they differ from the
   * ones served; resolves to the reload, or undefined when nothing changed.
   * Runs in turn with this process's writes; calls made while one waits to
   * run share it.
   */
  resync(): Promise<ReloadEvent | undefined> {
    if (this.#queuedResync) return this.#queuedResync;
    const run = this.#serial(async () => {
      this.#queuedResync = undefined;
      const { store, registry } = this.#ready();
      const next = this.#admit(await store.listLearnedTools());
      if (sameRecords(this.#records, next)) return undefined;
      this.#records = next;
      return registry.refresh({ force: true });
    });
    this.#queuedResync = run;
    return run;
  }

  /**
   * The rows read from the store that pass {@link checkEntry}; each other row
   * is left out with a warning (once per row version), never served.
   */
  #admit(rows: readonly LearnedToolRecord[]): Map<string, LearnedToolRecord> {
    const out = new Map<string, LearnedToolRecord>();
    for (const r of rows) {
      try {
        checkEntry(r.id, r.dialect, r.body);
        out.set(r.id, r);
      } catch (error) {
        const key = `${r.id}\u0000${r.updatedAt}\u0000${r.body.length}`;
        if (this.#refused.has(key)) continue;
        if (this.#refused.size >= 1000) this.#refused.clear();
        this.#refused.add(key);
        this.#warn(`learned tool "${r.id}" in the store is not served: ${(error as Error).message.replace(/; nothing was changed\.$/, '.')}`);
      }
    }
    return out;
  }

  #isLearned(layer: LayerInput): boolean {
    return typeof layer !== 'string' && layer.learned === true;
  }

  #ready(): { store: Store & LearnedToolStore; registry: Registry } {
    if (!this.#store || !this.#registry) throw new Error('LearnedTools.load() has not run: no store and registry yet');
    return { store: this.#store, registry: this.#registry };
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * The checks every learned entry passes, whether it comes through
 * {@link LearnedTools.upsert} or is read from the store (where anything with
 * write access to the table could have put it): a learned dialect, one JSON
 * object, its id the id it is kept under, and nothing that says what runs.
 * @throws {InvalidLearnedTool} naming what is wrong.
 */
export function checkEntry(id: string, dialect: string, body: string): void {
  const shape = LEARNED_DIALECTS[dialect as DialectId];
  if (!shape) throw new InvalidLearnedTool(`Learned tools are written in ${learnedDialectIds().join(' or ')}, not "${dialect}".`, []);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new InvalidLearnedTool(`The entry is not JSON: ${(error as Error).message}.`, [{ code: 'PARSE_ERROR', severity: 'error', message: (error as Error).message, pointer: '' }]);
  }
  if (!isPlainObject(value)) throw new InvalidLearnedTool('A learned tool is one tool entry: a JSON object.', [{ code: 'TYPE_MISMATCH', severity: 'error', message: 'Expected an object.', pointer: '' }]);
  if (value[shape.idKey] !== id) {
    const message = `The entry's "${shape.idKey}" is ${JSON.stringify(value[shape.idKey] ?? null)}; it must be "${id}", the id it is written under.`;
    throw new InvalidLearnedTool(message, [{ code: 'INVALID_VALUE', severity: 'error', message, pointer: `/${shape.idKey}` }]);
  }
  // what runs is reviewed in a manifest file: a learned entry describes a tool, it does not say how to run one
  const runs = runFieldsOf(value).map((pointer) => pointer.slice(1).replaceAll('/', '.'));
  if (runs.length > 0) {
    const findings = runs.map((key): LocatedFinding => ({ code: 'INVALID_VALUE', severity: 'error', message: `A learned tool cannot declare "${key}": what runs is reviewed in a manifest file.`, pointer: `/${key.replaceAll('.', '/')}`, hint: 'Drop it, and give the tool its providers in a manifest file (a learned entry for the same name keeps them).' }));
    throw new InvalidLearnedTool(`The learned tool "${id}" declares ${runs.map((k) => `"${k}"`).join(' and ')}; nothing was changed.`, findings);
  }
}

function sameRecords(a: ReadonlyMap<string, LearnedToolRecord>, b: ReadonlyMap<string, LearnedToolRecord>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, r] of a) {
    const o = b.get(id);
    if (!o || o.updatedAt !== r.updatedAt || o.body !== r.body || o.dialect !== r.dialect || o.writtenBy !== r.writtenBy) return false;
  }
  return true;
}
