// Cluster benchmark: how long until three toolcap instances on one PostgreSQL
// database (a fresh one, dropped afterwards) agree. Three hosts run in this
// process, as `toolcap serve` wires them, each with its own pool and LISTEN
// connection.
// - circuit: A's health book records an outcome that opens (then closes) a
//   provider's circuit; measured until B and C have merged it (the later of
//   the two: "every instance backs off").
// - learned tool: from A's upsert resolving (A serves it) until B and C
//   serve it too (their registries reloaded).
// Baseline, same run: a bare NOTIFY from one pg client heard by another
// LISTENing one (the floor any NOTIFY-based design pays). Skipped with a
// note when PostgreSQL is not reachable. Needs a build (dist/).
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createToolcap } from '../dist/host.js';
import { fmt } from './stats.mjs';

const PG_URL = process.env.TOOLCAP_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SAMPLES = 100;

const MANIFEST = `toolcap: 1
tools:
  - name: bench.status
    version: 1.0.0
    description: A tool whose provider's circuit the benchmark moves.
    inputSchema: { type: object, properties: {}, additionalProperties: false }
    effects: { mode: read, sideEffects: none, risk: low, reversible: full }
    execution: { timeoutSec: 5, retryClass: never, idempotent: true }
    providers:
      - { name: upstream, priority: 0, config: { type: http, baseUrl: 'http://127.0.0.1:9', method: GET, path: /status } }
`;

const pct = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function admin(sql) {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  c.on('error', () => undefined);
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Resolves when `book.mergeCircuit` takes a change with this `changedAt`. */
function mergedAt(book, changedAt) {
  return new Promise((resolve) => {
    const original = book.mergeCircuit.bind(book);
    book.mergeCircuit = (change) => {
      const taken = original(change);
      if (taken && change.changedAt === changedAt) {
        book.mergeCircuit = original;
        resolve(performance.now());
      }
      return taken;
    };
  });
}

/** Resolves when the registry serves (or stops serving) `name`. */
function served(registry, name, present) {
  return new Promise((resolve) => {
    const has = () => registry.snapshot().byName.has(name) === present;
    if (has()) return resolve(performance.now());
    const stop = registry.subscribe(() => {
      if (!has()) return;
      stop();
      resolve(performance.now());
    });
  });
}

async function bareNotify(url) {
  const listener = new pg.Client({ connectionString: url });
  const sender = new pg.Client({ connectionString: url });
  await listener.connect();
  await sender.connect();
  await listener.query('LISTEN bench_floor');
  const samples = [];
  try {
    for (let i = 0; i < SAMPLES; i++) {
      const heard = new Promise((resolve) => listener.once('notification', () => resolve(performance.now())));
      const t0 = performance.now();
      await sender.query("SELECT pg_notify('bench_floor', $1)", [String(i)]);
      samples.push((await heard) - t0);
    }
  } finally {
    await listener.end();
    await sender.end();
  }
  return samples;
}

export async function run() {
  console.log('\n== cluster: three instances on one PostgreSQL database ==');
  const name = `toolcap_bench_cluster_${process.pid}_${randomBytes(3).toString('hex')}`;
  try {
    await admin(`CREATE DATABASE ${name}`);
  } catch (error) {
    console.log(`skipped: PostgreSQL at ${PG_URL} is not reachable (${error.message})`);
    return;
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const root = mkdtempSync(join(tmpdir(), 'toolcap-bench-cluster-'));
  const hosts = [];
  const cpu0 = process.cpuUsage();
  try {
    mkdirSync(join(root, 'manifests'));
    writeFileSync(join(root, 'manifests', 'bench.yaml'), MANIFEST);
    writeFileSync(join(root, 'toolcap.config.yaml'), `sources:\n  - manifests/\nstore:\n  url: ${url}\n`);
    for (let i = 0; i < 3; i++) hosts.push(await createToolcap(join(root, 'toolcap.config.yaml'), { traces: false, mcp: false, warn: () => undefined }));
    const [a, b, c] = hosts;

    const floor = await bareNotify(url.toString());

    // circuits: open and close in turn, each change a later time than the last
    const circuit = [];
    let at = Date.now();
    for (let i = 0; i < SAMPLES; i++) {
      at = Math.max(at + 1, Date.now());
      const ok = i % 2 === 1;
      const waits = [b, c].map((h) => mergedAt(h.runtime.health, at));
      const t0 = performance.now();
      a.runtime.health.recordAttempt('bench.status', 'upstream', { ok, durationMs: 1, at, provider: 'upstream', errorCode: ok ? null : 'PROVIDER_ERROR' });
      const done = await Promise.all(waits);
      circuit.push(Math.max(...done) - t0);
    }

    // learned tools: upsert then forget in turn
    const learned = [];
    const own = [];
    const entry = JSON.stringify({ name: 'bench.learned', description: 'Learned by the benchmark.', inputSchema: { type: 'object' }, effects: { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' } });
    const LEARNED_SAMPLES = 40;
    for (let i = 0; i < LEARNED_SAMPLES; i++) {
      const present = i % 2 === 0;
      const waits = [b, c].map((h) => served(h.registry, 'bench.learned', present));
      const t0 = performance.now();
      if (present) await a.learned.upsert('bench.learned', 'toolcap', entry, 'bench');
      else await a.learned.forget('bench.learned', 'bench');
      const tA = performance.now();
      const done = await Promise.all(waits);
      own.push(tA - t0);
      learned.push(Math.max(tA, ...done) - t0);
    }
    const cpu = process.cpuUsage(cpu0);
    const floor50 = pct(floor, 0.5);
    console.log(`baseline: bare NOTIFY -> LISTEN between two pg clients  p50 ${fmt(floor50, 2)} ms  p99 ${fmt(pct(floor, 0.99), 2)} ms  (${SAMPLES} samples)`);
    console.log(
      `circuit change on A merged by B and C       p50 ${fmt(pct(circuit, 0.5), 2)} ms  p99 ${fmt(pct(circuit, 0.99), 2)} ms  (${fmt(pct(circuit, 0.5) / floor50, 2)}x bare NOTIFY; ${SAMPLES} samples)`,
    );
    console.log(`learned tool write on A (A serves it)       p50 ${fmt(pct(own, 0.5), 2)} ms  p99 ${fmt(pct(own, 0.99), 2)} ms  (${LEARNED_SAMPLES} samples, upsert and forget in turn)`);
    console.log(
      `learned tool: write on A until A, B, C serve p50 ${fmt(pct(learned, 0.5), 2)} ms  p99 ${fmt(pct(learned, 0.99), 2)} ms  (${fmt(pct(learned, 0.5) / pct(own, 0.5), 2)}x A's own write; ${fmt(pct(learned, 0.5) / floor50, 1)}x bare NOTIFY)`,
    );
    console.log(`process CPU ${fmt((cpu.user + cpu.system) / 1000, 0)} ms; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    for (const h of hosts) await h.close();
    rmSync(root, { recursive: true, force: true });
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
