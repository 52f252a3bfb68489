/**
 * Shared harness for the runtime tests: a real Registry over a temp
 * canonical manifest, a real SQLite store in the same temp folder, and a
 * custom `fake` provider type whose behaviour each test controls.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { ProviderError, type HealthCheckResult, type ProviderCallContext, type ProviderErrorCode, type ProviderInstance, type ProviderType } from '../../src/runtime/providers/types.js';
import { Runtime, type RuntimeOptions } from '../../src/runtime/runtime.js';
import { CallError, type CallErrorCode } from '../../src/runtime/errors.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { StoreUnavailableError, type Store } from '../../src/store/types.js';

/** What a fake provider does for one call. */
export type Behaviour = (args: Record<string, unknown>, ctx: ProviderCallContext) => Promise<unknown>;

export interface FakeCall {
  tool: string;
  provider: string;
  args: Record<string, unknown>;
  ctx: ProviderCallContext;
}

export const ok =
  (value: unknown): Behaviour =>
  async () =>
    value;

export const fail =
  (code: ProviderErrorCode, message: string, beforeEffect: boolean): Behaviour =>
  async () => {
    throw new ProviderError(code, message, beforeEffect);
  };

/** Waits until its signal aborts, then rejects (a well-behaved slow provider). */
export const hang: Behaviour = (_args, ctx) =>
  new Promise((_resolve, reject) => {
    const abort = () => reject(new ProviderError('ABORTED', 'aborted', false));
    if (ctx.signal.aborted) abort();
    else ctx.signal.addEventListener('abort', abort, { once: true });
  });

/** Never settles and never looks at its signal (a badly behaved provider). */
export const ignoreSignal: Behaviour = () => new Promise(() => undefined);

export interface Deferred<T = unknown> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export function deferred<T = unknown>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The fake provider type: behaviour and readiness per `tool/provider` (or per provider name). */
export class FakeProviders {
  readonly calls: FakeCall[] = [];
  readonly #behaviours = new Map<string, Behaviour>();
  readonly #readiness = new Map<string, HealthCheckResult>();

  /** Set the behaviour of a provider (of every tool, or of one tool with `tool/provider`). */
  on(key: string, behaviour: Behaviour): this {
    this.#behaviours.set(key, behaviour);
    return this;
  }

  ready(key: string, result: HealthCheckResult): this {
    this.#readiness.set(key, result);
    return this;
  }

  count(tool?: string, provider?: string): number {
    return this.calls.filter((c) => (tool === undefined || c.tool === tool) && (provider === undefined || c.provider === provider)).length;
  }

  order(tool?: string): string[] {
    return this.calls.filter((c) => tool === undefined || c.tool === tool).map((c) => c.provider);
  }

  type(): ProviderType {
    return {
      type: 'fake',
      create: (entry, tool): ProviderInstance => ({
        name: entry.name,
        type: 'fake',
        ready: () => this.#readiness.get(`${tool.name}/${entry.name}`) ?? this.#readiness.get(entry.name) ?? { healthy: true },
        call: (args, ctx) => {
          this.calls.push({ tool: tool.name, provider: entry.name, args, ctx });
          const behaviour = this.#behaviours.get(`${tool.name}/${entry.name}`) ?? this.#behaviours.get(entry.name) ?? ok({ tool: tool.name, provider: entry.name, args });
          return behaviour(args, ctx);
        },
      }),
    };
  }
}

/** A clock the test moves by hand. */
export class ManualClock {
  now = Date.parse('2030-01-01T00:00:00.000Z');
  readonly fn = (): number => this.now;
  tick(ms: number): void {
    this.now += ms;
  }
}

type Json = Record<string, unknown>;

/** A tool run by the fake provider `p1`, with explicit effects, no approval, never retried. */
export function fakeTool(name: string, overrides: Json = {}): Json {
  return {
    name,
    version: '1.0.0',
    description: `The ${name} test tool`,
    inputSchema: { type: 'object' },
    effects: { mode: 'read', sideEffects: 'compute', risk: 'low', reversible: 'full' },
    approval: { required: false },
    execution: { timeoutSec: 5, retryClass: 'never', allowParallel: true },
    providers: [{ name: 'p1', priority: 0, config: { type: 'fake' } }],
    ...overrides,
  };
}

/** `providers` entries for the fake type, in the given order with the given priorities. */
export const fakeProviders = (...entries: Array<[name: string, priority: number]>) =>
  entries.map(([name, priority]) => ({ name, priority, config: { type: 'fake' } }));

/** A canonical manifest (JSON is YAML). */
export const manifest = (tools: Json[]): string => JSON.stringify({ toolcap: 1, tools }, null, 2);

/** A store that delegates to a real one, except for the methods told to fail. */
export class FlakyStore implements Store {
  readonly failing = new Set<string>();
  constructor(readonly inner: Store) {}
  get kind() {
    return this.inner.kind;
  }
  get location() {
    return this.inner.location;
  }
  #guard<T>(method: string, run: () => Promise<T>, alsoFailsWith: string[] = []): Promise<T> {
    if ([method, ...alsoFailsWith, '*'].some((m) => this.failing.has(m))) return Promise.reject(new StoreUnavailableError(`fake outage: ${method} refused`));
    return run();
  }
  // the batch methods fail with the single writes they stand for
  recordStarts: NonNullable<Store['recordStarts']> = (r) => this.#guard('recordStarts', () => this.inner.recordStarts!(r), ['appendAudit']);
  recordOutcomes: NonNullable<Store['recordOutcomes']> = (o) => this.#guard('recordOutcomes', () => this.inner.recordOutcomes!(o), ['recordCall', 'appendAudit']);
  interruptCalls: NonNullable<Store['interruptCalls']> = (o) => this.#guard('interruptCalls', () => this.inner.interruptCalls!(o), ['appendAudit']);
  createApproval: Store['createApproval'] = (r) => this.#guard('createApproval', () => this.inner.createApproval(r));
  getApproval: Store['getApproval'] = (id) => this.#guard('getApproval', () => this.inner.getApproval(id));
  listApprovals: Store['listApprovals'] = (q) => this.#guard('listApprovals', () => this.inner.listApprovals(q));
  updateApproval: Store['updateApproval'] = (id, from, u) => this.#guard('updateApproval', () => this.inner.updateApproval(id, from, u));
  appendAudit: Store['appendAudit'] = (r) => this.#guard('appendAudit', () => this.inner.appendAudit(r));
  listAudit: Store['listAudit'] = (q) => this.#guard('listAudit', () => this.inner.listAudit(q));
  recordCall: Store['recordCall'] = (r) => this.#guard('recordCall', () => this.inner.recordCall(r));
  listCalls: Store['listCalls'] = (q) => this.#guard('listCalls', () => this.inner.listCalls(q));
  ping: Store['ping'] = () => this.#guard('ping', () => this.inner.ping());
  close: Store['close'] = () => this.inner.close();
}

export interface Harness {
  dir: string;
  file: string;
  registry: Registry;
  store: FlakyStore;
  /** The real store, read after the runtimes' queued call records are written (group commit). */
  sqlite: Store;
  runtime: Runtime;
  /** Write every queued call record of every runtime of this harness. */
  flush(): Promise<void>;
  fakes: FakeProviders;
  clock: ManualClock;
  warnings: string[];
  /** Replace the manifest and force a rebuild (which must succeed). */
  rewrite(text: string): Promise<void>;
  /** A second runtime over the same registry and store (e.g. a restart). */
  another(options?: Partial<RuntimeOptions>): Runtime;
  close(): Promise<void>;
}

const open: Harness[] = [];

/** Build a harness; close every harness with {@link closeAll} (afterEach). */
export async function harness(tools: Json[] | string, options: Partial<RuntimeOptions> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-runtime-'));
  const manifests = join(dir, 'manifests');
  mkdirSync(manifests);
  const file = join(manifests, 'tools.yaml');
  writeFileSync(file, typeof tools === 'string' ? tools : manifest(tools));
  const registry = new Registry({ paths: [manifests] });
  const event = await registry.start();
  if (event.kind !== 'reloaded') throw new Error(`registry did not load: ${JSON.stringify(event)}`);
  const sqlite = await openSqliteStore(join(dir, 'toolcap.db'));
  const store = new FlakyStore(sqlite);
  const fakes = new FakeProviders();
  const clock = new ManualClock();
  const warnings: string[] = [];
  const types = new ProviderTypes({ empty: true }).register(fakes.type());
  const base = (extra: Partial<RuntimeOptions>) =>
    new Runtime({
      registry,
      store,
      providers: types,
      clock: clock.fn,
      random: () => 0.5,
      retryBaseMs: 0,
      onWarning: (m) => warnings.push(m),
      ...options,
      ...extra,
    });
  const runtime = base({});
  const extra: Runtime[] = [];
  const flush = async () => {
    for (const r of [runtime, ...extra]) await r.flush();
  };
  const reader: Store = {
    ...(Object.fromEntries(['kind', 'location'].map((k) => [k, (sqlite as unknown as Record<string, unknown>)[k]])) as Pick<Store, 'kind' | 'location'>),
    createApproval: (r) => sqlite.createApproval(r),
    getApproval: async (id) => (await flush(), sqlite.getApproval(id)),
    listApprovals: async (q) => (await flush(), sqlite.listApprovals(q)),
    updateApproval: (id, from, u) => sqlite.updateApproval(id, from, u),
    appendAudit: (r) => sqlite.appendAudit(r),
    listAudit: async (q) => (await flush(), sqlite.listAudit(q)),
    recordCall: (r) => sqlite.recordCall(r),
    listCalls: async (q) => (await flush(), sqlite.listCalls(q)),
    ping: () => sqlite.ping(),
    close: () => sqlite.close(),
  };
  const h: Harness = {
    dir,
    file,
    registry,
    store,
    sqlite: reader,
    runtime,
    flush,
    fakes,
    clock,
    warnings,
    async rewrite(text) {
      writeFileSync(file, text);
      const e = await registry.refresh({ force: true });
      if (e.kind !== 'reloaded') throw new Error(`registry did not reload: ${JSON.stringify(e)}`);
    },
    another(o = {}) {
      const r = base(o);
      extra.push(r);
      return r;
    },
    async close() {
      for (const r of [runtime, ...extra]) await r.close();
      await registry.close();
      await sqlite.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  open.push(h);
  return h;
}

export async function closeAll(): Promise<void> {
  for (const h of open.splice(0)) await h.close();
}

/** The CallError a promise rejects with (fails the test when it resolves or rejects with something else). */
export async function callError(promise: Promise<unknown>): Promise<CallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CallError) return error;
    throw new Error(`expected a CallError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a CallError, but the promise resolved');
}

export async function expectCode(promise: Promise<unknown>, code: CallErrorCode): Promise<CallError> {
  const e = await callError(promise);
  if (e.code !== code) throw new Error(`expected ${code}, got ${e.code}: ${e.message}`);
  return e;
}

/** Let pending promise callbacks and I/O callbacks run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
