// Runtime benchmark: what the call router adds to a call. A no-op `module`
// tool is called through `runtime.call` (resolve, validate, approval check,
// provider selection, timeout signal, health, metrics, span, store record)
// and, as the baseline, the same exported function is called directly, in
// the same run. The tool opts into `isolation: inline`, so what is measured
// is the router, not a worker thread's message round trip (bench/module.mjs
// measures that). The store's share is split out by running the router over
// an in-memory store whose writes do nothing. Then throughput with
// concurrency 16 (Promise.all batches) on SQLite and on PostgreSQL (skipped
// with a note when the server is not reachable).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Registry } from '../dist/index.js';
import { ProviderTypes } from '../dist/runtime/providers/provider-types.js';
import { Runtime } from '../dist/runtime/runtime.js';
import { openSqliteStore } from '../dist/store/sqlite.js';
import { openPostgresStore } from '../dist/store/postgres.js';
import { fmt } from './stats.mjs';

const WARMUP = 2_000;
const ITERATIONS = 20_000;
const CONCURRENCY = 16;
const BATCHES = 1_000;
const PG_URL = process.env.TOOLCAP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ARGS = { n: 1 };

const MANIFEST = `toolcap: 1
tools:
  - name: bench.noop
    version: 1.0.0
    description: Do nothing (the router benchmark's tool).
    inputSchema:
      type: object
      properties: { n: { type: integer } }
      required: [n]
      additionalProperties: false
    effects: { mode: read, sideEffects: none, risk: low, reversible: full }
    approval: { required: false }
    execution: { timeoutSec: 5, retryClass: never, allowParallel: true, idempotent: true }
    providers:
      - { name: local, priority: 0, config: { type: module, module: ./noop.mjs, export: noop, isolation: inline } }
`;

/** A store whose writes do nothing and whose reads find nothing: the router without the store. */
function nullStore() {
  let seq = 0;
  return {
    kind: 'sqlite',
    location: ':null:',
    createApproval: async () => undefined,
    getApproval: async () => undefined,
    listApprovals: async () => [],
    updateApproval: async () => undefined,
    appendAudit: async (r) => ({ seq: ++seq, ...r }),
    listAudit: async () => [],
    recordCall: async () => undefined,
    listCalls: async () => [],
    ping: async () => undefined,
    close: async () => undefined,
  };
}

/** Per-call latency samples in µs (sequential), after warm-up. */
/**
 * Per-call latency (what the caller waits for) and calls/s. `settle` runs
 * inside the timed total after the last call: the runtime writes call
 * records behind the answer (group commit), so calls/s includes writing them.
 */
async function sample(fn, iterations = ITERATIONS, warmup = WARMUP, settle = async () => undefined) {
  for (let i = 0; i < warmup; i++) await fn();
  await settle();
  globalThis.gc?.();
  const samples = new Float64Array(iterations);
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) {
    const s = performance.now();
    await fn();
    samples[i] = (performance.now() - s) * 1000;
  }
  await settle();
  const totalMs = performance.now() - t0;
  samples.sort();
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  let sum = 0;
  for (const v of samples) sum += v;
  return { p50: at(0.5), p99: at(0.99), mean: sum / samples.length, perSec: (iterations / totalMs) * 1000 };
}

/** Calls per second with `concurrency` calls in flight per Promise.all batch. */
async function batched(fn, batches = BATCHES, concurrency = CONCURRENCY, settle = async () => undefined) {
  for (let i = 0; i < 50; i++) await Promise.all(Array.from({ length: concurrency }, fn));
  await settle();
  globalThis.gc?.();
  const t0 = performance.now();
  for (let i = 0; i < batches; i++) await Promise.all(Array.from({ length: concurrency }, fn));
  await settle(); // every call's record written
  return ((batches * concurrency) / (performance.now() - t0)) * 1000;
}

async function reachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function dropSchema(url, schema) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

const row = (name, s, base) =>
  console.log(`| ${name} | ${fmt(s.p50, 1)} | ${fmt(s.p99, 1)} | ${fmt(s.mean, 1)} | ${base ? `+${fmt(s.p50 - base.p50, 1)}` : '-'} | ${fmt(s.perSec, 0)} |`);

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-router-'));
  const registry = new Registry({ paths: [join(dir, 'tools.yaml')] });
  const runtimes = [];
  const stores = [];
  const warnings = [];
  let schema;
  try {
    writeFileSync(join(dir, 'noop.mjs'), 'export function noop(args) {\n  return { ok: true, n: args.n };\n}\n');
    writeFileSync(join(dir, 'tools.yaml'), MANIFEST);
    const started = await registry.start();
    if (started.kind !== 'reloaded') throw new Error(`the bench manifest did not build: ${JSON.stringify(started.diagnostics?.slice(0, 3))}`);
    const { noop } = await import(pathToFileURL(join(dir, 'noop.mjs')).href);

    const make = (store) => {
      const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: (m) => warnings.push(m) });
      runtimes.push(runtime);
      return runtime;
    };
    const sqlite = await openSqliteStore(join(dir, 'toolcap.db'));
    stores.push(sqlite);
    const overSqlite = make(sqlite);
    const sqliteNormal = await openSqliteStore(join(dir, 'toolcap-normal.db'), { synchronous: 'normal' });
    stores.push(sqliteNormal);
    const overNormal = make(sqliteNormal);
    const overNull = make(nullStore());
    const check = await overSqlite.call('bench.noop', ARGS);
    if (check.status !== 'ok' || check.result?.ok !== true) throw new Error(`the bench tool did not run: ${JSON.stringify(check)}`);

    // the baseline: the same export, awaited, with a context like the one the router passes
    const direct = await sample(async () => noop(ARGS, { signal: undefined, callId: 'x', attempt: 1 }));
    const viaNull = await sample(() => overNull.call('bench.noop', ARGS), ITERATIONS, WARMUP, () => overNull.flush());
    const viaSqlite = await sample(() => overSqlite.call('bench.noop', ARGS), ITERATIONS, WARMUP, () => overSqlite.flush());
    const viaNormal = await sample(() => overNormal.call('bench.noop', ARGS), ITERATIONS, WARMUP, () => overNormal.flush());

    console.log(`\n## Router overhead: a no-op module tool, ${ITERATIONS} sequential calls after ${WARMUP} warm-up (µs per call)`);
    console.log('| path | p50 µs | p99 µs | mean µs | added at p50 µs | calls/s sequential |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    row('direct call of the exported function (baseline)', direct, undefined);
    row('runtime.call, in-memory store with no-op writes (router only)', viaNull, direct);
    row('runtime.call, SQLite store (WAL, synchronous=FULL, the default)', viaSqlite, direct);
    row('runtime.call, SQLite store (WAL, synchronous=NORMAL)', viaNormal, direct);
    const added = viaSqlite.p50 - direct.p50;
    const routerOnly = viaNull.p50 - direct.p50;
    console.log(`store share at p50: ${fmt(viaSqlite.p50 - viaNull.p50, 1)} µs of the ${fmt(added, 1)} µs added (router alone ${fmt(routerOnly, 1)} µs)`);
    const addedNormal = viaNormal.p50 - direct.p50;
    console.log(`aim < 50 µs added at p50 with the SQLite store: synchronous=FULL ${added < 50 ? 'met' : 'NOT met'} (${fmt(added, 1)} µs); synchronous=NORMAL ${addedNormal < 50 ? 'met' : 'NOT met'} (${fmt(addedNormal, 1)} µs); router without the store ${routerOnly < 50 ? 'met' : 'NOT met'} (${fmt(routerOnly, 1)} µs)`);

    console.log(`\n## Router throughput, concurrency ${CONCURRENCY} (Promise.all batches x ${BATCHES})`);
    console.log('| store | calls/s | ratio to in-memory |');
    console.log('| --- | --- | --- |');
    const nullRate = await batched(() => overNull.call('bench.noop', ARGS), BATCHES, CONCURRENCY, () => overNull.flush());
    console.log(`| in-memory, no-op writes | ${fmt(nullRate, 0)} | 1.00x |`);
    const sqliteRate = await batched(() => overSqlite.call('bench.noop', ARGS), BATCHES, CONCURRENCY, () => overSqlite.flush());
    console.log(`| SQLite | ${fmt(sqliteRate, 0)} | ${(sqliteRate / nullRate).toFixed(2)}x |`);
    const probe = await reachable(PG_URL);
    if (!probe.ok) {
      console.log(`| PostgreSQL | skipped | - |`);
      console.log(`note: PostgreSQL at ${PG_URL} is not reachable (${probe.reason}); set TOOLCAP_TEST_PG_URL to include it.`);
    } else {
      schema = `toolcap_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
      const pgStore = await openPostgresStore(PG_URL, { schema });
      stores.push(pgStore);
      const overPg = make(pgStore);
      const pgRate = await batched(() => overPg.call('bench.noop', ARGS), Math.max(50, BATCHES / 4), CONCURRENCY, () => overPg.flush());
      console.log(`| PostgreSQL (schema ${schema}, dropped after) | ${fmt(pgRate, 0)} | ${(pgRate / nullRate).toFixed(2)}x |`);
      const pgSeq = await sample(() => overPg.call('bench.noop', ARGS), 2_000, 200, () => overPg.flush());
      console.log(`PostgreSQL sequential: p50 ${fmt(pgSeq.p50, 1)} µs, p99 ${fmt(pgSeq.p99, 1)} µs, ${fmt(pgSeq.perSec, 0)} calls/s`);
    }
    if (warnings.length > 0) console.log(`note: ${warnings.length} store warnings, first: ${warnings[0]}`);
  } finally {
    for (const r of runtimes) await r.close();
    for (const s of stores) await s.close().catch(() => undefined);
    if (schema) await dropSchema(PG_URL, schema).catch((e) => console.log(`note: could not drop schema ${schema}: ${e.message}`));
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
