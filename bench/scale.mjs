// Issue 16 item 6: how costs grow with the catalog, 1,000 / 10,000 / 100,000
// tools, in one table: load time (registry.start) against readFileSync +
// JSON.parse of the same files (10,000 tools a file), heap retained by the registry, planner query
// p50/p99 (filter + search + rank, real queries), GET /tools throughput
// (cached body and body cache off) against a bare node:http handler serving
// the same bytes, and a forced reload.
//
// The 100,000-tool catalog is opt-in (`TOOLCAP_BENCH_100K=1 npm run bench`,
// or `node --expose-gc bench/run.mjs scale --100k`): it takes a few minutes.
//
// Catalogs come from the real corpus records: up to 10,000 tools they are
// exactly the catalog of the other benchmarks (bench/query.mjs benchTools:
// corpus records, the ones toolcap refuses dropped, every 10th scoped to a
// persona); past that the 10,000 repeat, copy k of a tool named
// `<name>_c<k>` and its description followed by "(copy k, <region>)", the
// region taken in turn from a fixed list of eight, so names and descriptions
// are unique, deterministic, and the words stay the corpus's own.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Registry } from '../dist/index.js';
import { createApi, listen } from '../dist/entries/server.js';
import { searchTools } from '../dist/query/views.js';
import { benchQueries, benchTools } from './query.mjs';
import { fmt, time } from './stats.mjs';

const REGIONS = ['eu-west', 'us-east', 'ap-south', 'sa-east', 'af-south', 'me-central', 'ca-central', 'ap-northeast'];
const PATH = '/tools?persona=Atlas&max_risk=medium&limit=50';
const SECONDS = 3;
const PER_FILE = 10_000;
const BASE = 10_000;

/** `count` tools: the 10,000 of the other benchmarks (benchTools), then copies of them with varied names and descriptions (see the header). */
export function scaleTools(count) {
  const base = benchTools(Math.min(count, BASE));
  const tools = [];
  for (let i = 0; tools.length < count; i++) {
    const t = base[i % base.length];
    const k = Math.floor(i / base.length);
    tools.push(k === 0 ? t : { ...t, name: `${t.name}_c${k}`, description: `${t.description} (copy ${k}, ${REGIONS[k % REGIONS.length]})` });
  }
  return tools;
}

function load(url, extra = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 10, duration: SECONDS, pipelining: 1, ...extra }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** CPU time (user + system, all threads) since `c0`, in ms: what a busy machine inflates far less than wall time. */
const cpuMs = (c0) => {
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};

/** Every figure for one catalog size. */
async function measure(count, queries) {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-scale-'));
  // files of at most 10,000 tools, as a catalog that size is kept (one file would pass limits.maxBytes)
  const files = [];
  let registry;
  let server;
  let uncached;
  let bare;
  try {
    const tools = scaleTools(count);
    for (let i = 0; i < tools.length; i += PER_FILE) {
      const file = join(dir, `tools-${String(i / PER_FILE).padStart(3, '0')}.json`);
      writeFileSync(file, JSON.stringify({ toolcap: 1, tools: tools.slice(i, i + PER_FILE) }));
      files.push(file);
    }
    const bytes = files.reduce((n, f) => n + readFileSync(f).length, 0);
    const parse = time(() => files.map((f) => JSON.parse(readFileSync(f, 'utf8'))), { runs: count >= 100_000 ? 3 : 7, warmup: 1 });
    const before = heap();
    registry = new Registry({ paths: [dir] });
    let t0 = performance.now();
    let c0 = process.cpuUsage();
    const started = await registry.start();
    const loadMs = performance.now() - t0;
    const loadCpuMs = cpuMs(c0);
    if (started.kind !== 'reloaded') throw new Error(`the ${count}-tool catalog did not build: ${JSON.stringify(started.diagnostics?.slice(0, 3))}`);
    const retained = heap() - before;
    const snap = registry.snapshot();
    if (snap.tools.length !== count) throw new Error(`expected ${count} tools, got ${snap.tools.length}`);

    // planner query: the persona's view filtered and ranked; the first query builds the view's search index
    const request = (q) => ({ query: q, filter: { personas: ['Atlas'], maxRisk: 'medium' }, limit: 10 });
    t0 = performance.now();
    searchTools(snap, request(queries[0]));
    const indexMs = performance.now() - t0;
    for (const q of queries.slice(0, 50)) searchTools(snap, request(q));
    const samples = [];
    const cpu = [];
    for (const q of queries) {
      const c0 = process.cpuUsage();
      const s0 = performance.now();
      searchTools(snap, request(q));
      samples.push(performance.now() - s0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    samples.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);

    // GET /tools against a bare handler serving the same bytes, same run
    server = await listen(createApi(registry), { port: 0 });
    uncached = await listen(createApi(registry, { cacheEntries: 0 }), { port: 0 });
    t0 = performance.now();
    const first = await fetch(`${uncached.url}${PATH}`);
    const body = Buffer.from(await first.arrayBuffer());
    const firstMs = performance.now() - t0;
    const etag = first.headers.get('etag');
    bare = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag, 'cache-control': 'no-cache', 'content-length': body.length });
      res.end(body);
    });
    await new Promise((r) => bare.listen(0, '127.0.0.1', r));
    const bareUrl = `http://127.0.0.1:${bare.address().port}${PATH}`;
    await load(bareUrl, { duration: 1 });
    await load(`${server.url}${PATH}`, { duration: 1 });
    await load(`${uncached.url}${PATH}`, { duration: 1 });
    const base = await load(bareUrl);
    const cached = await load(`${server.url}${PATH}`);
    const off = await load(`${uncached.url}${PATH}`);

    // forced reloads (the first one warms up)
    await registry.refresh({ force: true });
    const reloads = [];
    const reloadCpu = [];
    for (let i = 0; i < (count >= 100_000 ? 2 : 4); i++) {
      t0 = performance.now();
      c0 = process.cpuUsage();
      const r = await registry.refresh({ force: true });
      if (r.kind !== 'reloaded') throw new Error(`forced reload: ${r.kind}`);
      reloads.push(performance.now() - t0);
      reloadCpu.push(cpuMs(c0));
    }
    reloads.sort((a, b) => a - b);
    reloadCpu.sort((a, b) => a - b);
    return {
      count,
      bytes,
      parseMs: parse.p50,
      loadMs,
      retained,
      indexMs,
      p50: quantile(samples, 0.5),
      p99: quantile(samples, 0.99),
      cpuP50: quantile(cpu, 0.5),
      firstMs,
      bare: base.requests.average,
      cached: cached.requests.average,
      off: off.requests.average,
      reloadMs: quantile(reloads, 0.5),
      loadCpuMs,
      reloadCpuMs: quantile(reloadCpu, 0.5),
    };
  } finally {
    await server?.close();
    await uncached?.close();
    await new Promise((r) => (bare ? bare.close(r) : r()));
    await registry?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const big = process.env.TOOLCAP_BENCH_100K === '1' || process.argv.includes('--100k');
  const sizes = big ? [1_000, 10_000, 100_000] : [1_000, 10_000];
  const queries = benchQueries(300);
  const rows = [];
  for (const count of sizes) rows.push(await measure(count, queries));
  const mib = (b) => `${fmt(b / 1024 / 1024, 1)} MiB`;
  console.log(`\n## scale: ${sizes.map((n) => n.toLocaleString('en-US')).join(' / ')} corpus tools${big ? '' : ' (100,000: TOOLCAP_BENCH_100K=1)'}; ${queries.length} real queries; GET ${PATH}, autocannon 10 connections x ${SECONDS} s`);
  console.log('| tools | file | JSON.parse | load (registry.start) | load CPU | load / JSON.parse | heap retained | heap / file | search index build | query p50 | query p99 | query CPU p50 | first GET /tools (index build) | GET /tools req/s cached | body cache off | bare node:http | off / bare | forced reload | reload CPU |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.count.toLocaleString('en-US')} | ${mib(r.bytes)} | ${fmt(r.parseMs)} ms | ${fmt(r.loadMs)} ms | ${fmt(r.loadCpuMs)} ms | ${fmt(r.loadMs / r.parseMs, 2)}x | ${mib(r.retained)} | ${fmt(r.retained / r.bytes, 2)}x | ${fmt(r.indexMs)} ms | ${fmt(r.p50, 3)} ms | ${fmt(r.p99, 3)} ms | ${fmt(r.cpuP50, 3)} ms | ${fmt(r.firstMs, 1)} ms | ${fmt(r.cached, 0)} | ${fmt(r.off, 0)} | ${fmt(r.bare, 0)} | ${fmt(r.off / r.bare, 2)}x | ${fmt(r.reloadMs)} ms | ${fmt(r.reloadCpuMs)} ms |`,
    );
  }
  // growth per tool from the smallest to the largest size: 1.00 is linear
  const a = rows[0];
  const z = rows[rows.length - 1];
  const k = z.count / a.count;
  const growth = (x, y) => `${fmt(y / x / k, 2)}`;
  console.log(
    `growth ${a.count.toLocaleString('en-US')} -> ${z.count.toLocaleString('en-US')} tools (${k}x), per tool (1.00 = linear, below = sublinear): load ${growth(a.loadMs, z.loadMs)} (CPU ${growth(a.loadCpuMs, z.loadCpuMs)}), heap ${growth(a.retained, z.retained)}, reload ${growth(a.reloadMs, z.reloadMs)} (CPU ${growth(a.reloadCpuMs, z.reloadCpuMs)}), search index build ${growth(a.indexMs, z.indexMs)}, query p50 ${growth(a.p50, z.p50)} (CPU ${growth(a.cpuP50, z.cpuP50)})`,
  );
  // also: growth from the middle size up, where fixed costs weigh less
  if (rows.length > 2) {
    const m = rows[1];
    const km = z.count / m.count;
    const g = (x, y) => fmt(y / x / km, 2);
    console.log(`growth ${m.count.toLocaleString('en-US')} -> ${z.count.toLocaleString('en-US')} tools (${km}x), per tool: load CPU ${g(m.loadCpuMs, z.loadCpuMs)}, heap ${g(m.retained, z.retained)}, reload CPU ${g(m.reloadCpuMs, z.reloadCpuMs)}, query CPU p50 ${g(m.cpuP50, z.cpuP50)}`);
  }
  console.log(`aim query p50 < 2 ms at the largest size: ${z.p50 < 2 ? 'met' : 'NOT met'} (${fmt(z.p50, 3)} ms; CPU ${fmt(z.cpuP50, 3)} ms); load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.availableParallelism()} cores`);
}
