// Issue 5 / issue 16 benchmark: reloads of a 10,000-tool catalog (10 files of
// 1,000 real corpus tools) by a Registry, built on the main thread
// (`worker: false`) and in the build worker (the default from dist/), forced
// and after one file changed, against readFileSync + JSON.parse of the same
// files, in one run. For each: how long the reload blocks the event loop
// (perf_hooks monitorEventLoopDelay, 1 ms resolution: its max is the longest
// block), and GET /tools latency while a forced reload runs every second,
// against the same requests with no reloads. Also what a plain postMessage
// of the built catalog would cost the main thread (v8.deserialize, the
// receiving side of a structured clone), which the worker avoids by sending
// JSON chunks in a transferred buffer, decoded in slices.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { deserialize, serialize } from 'node:v8';
import autocannon from 'autocannon';
import { buildCatalog, Registry } from '../dist/index.js';
import { createApi, listen } from '../dist/entries/server.js';
import { benchTools } from './query.mjs';
import { fmt, time } from './stats.mjs';

const COUNT = 10_000;
const FILES = 10;
const RUNS = 5;
const PATH = '/tools?persona=Atlas&max_risk=medium&limit=50';

const quantiles = (samples) => {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p90: at(0.9), min: s[0], max: s[s.length - 1], runs: s.length };
};

/** Wall time of `fn`, and the longest event-loop block while it ran (ms). */
async function measured(fn) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  await sleep(5);
  h.enable();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  // the main thread's busy time (event-loop active, not idle waiting on the worker or I/O)
  const active = performance.eventLoopUtilization(elu0).active;
  await sleep(5);
  h.disable();
  return { ms, block: h.max / 1e6, active, result };
}

function load(url, seconds) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 10, duration: seconds, pipelining: 1 }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** GET /tools latency with and without a full reload (every file changed) every second. */
async function servingUnderReloads(registry, touchAll) {
  const server = await listen(createApi(registry), { port: 0 });
  try {
    const url = `${server.url}${PATH}`;
    await load(url, 1); // warm-up
    const quiet = await load(url, 4);
    let reloads = 0;
    const timer = setInterval(() => {
      touchAll();
      void registry.refresh().then(() => reloads++);
    }, 1_000);
    const busy = await load(url, 4);
    clearInterval(timer);
    await registry.refresh(); // let a running reload finish
    return { quiet, busy, reloads };
  } finally {
    await server.close();
  }
}

async function scenario(dir, files, docs, tools, worker) {
  const per = COUNT / FILES;
  const registry = new Registry({ paths: [dir], worker });
  try {
    const first = await measured(() => registry.start());
    if (first.result.kind !== 'reloaded') throw new Error(`registry build failed: ${JSON.stringify(first.result.diagnostics?.filter((d) => d.severity === 'error').slice(0, 3))}`);
    if (registry.snapshot().tools.length !== COUNT) throw new Error(`expected ${COUNT} tools, got ${registry.snapshot().tools.length}`);
    await registry.refresh({ force: true }); // warm-up
    const forced = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await measured(() => registry.refresh({ force: true }));
      if (r.result.kind !== 'reloaded') throw new Error(`forced reload ${i}: ${r.result.kind}`);
      forced.push(r);
    }
    let revision = 0;
    const touch = (f) => {
      docs[f].tools[0] = { ...docs[f].tools[0], description: `${tools[f * per].description} (${worker ? 'w' : 'm'} revision ${++revision})` };
      writeFileSync(files[f], JSON.stringify(docs[f]));
    };
    // every file changed: nothing reused, the whole catalog parsed, imported and checked again (a full rebuild)
    const full = [];
    for (let i = 0; i < RUNS; i++) {
      for (let f = 0; f < FILES; f++) touch(f);
      const r = await measured(() => registry.refresh());
      if (r.result.kind !== 'reloaded' || r.result.work?.importedFiles !== FILES) throw new Error(`full reload ${i}: ${r.result.kind}, ${JSON.stringify(r.result.work)}`);
      full.push(r);
    }
    const changed = [];
    for (let i = 0; i < RUNS; i++) {
      touch(i % FILES);
      const r = await measured(() => registry.refresh());
      if (r.result.kind !== 'reloaded' || r.result.changed.length !== 1) throw new Error(`changed-file reload ${i}: ${r.result.kind}, changed ${r.result.changed?.length}`);
      changed.push(r);
    }
    const serving = await servingUnderReloads(registry, () => {
      for (let f = 0; f < FILES; f++) touch(f);
    });
    return { where: forced[0].result.work?.where ?? 'main', first, forced, full, changed, serving };
  } finally {
    await registry.close();
  }
}

export async function run() {
  const tools = benchTools(COUNT);
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-reload-'));
  try {
    const per = COUNT / FILES;
    const files = [];
    const docs = [];
    for (let f = 0; f < FILES; f++) {
      const path = join(dir, `tools-${String(f).padStart(2, '0')}.json`);
      const doc = { toolcap: 1, tools: tools.slice(f * per, (f + 1) * per) };
      writeFileSync(path, JSON.stringify(doc));
      files.push(path);
      docs.push(doc);
    }
    const bytes = files.reduce((s, p) => s + readFileSync(p).length, 0);
    // files written less than 2 s before a fingerprint are hashed again each time (racy mtime); wait that out
    await sleep(2_100);
    const baseline = time(() => files.map((p) => JSON.parse(readFileSync(p, 'utf8'))), { runs: 15, warmup: 3 });

    // what a structured clone of the built catalog would cost the receiving (main) thread
    const built = buildCatalog([dir]);
    const wire = serialize({ tools: built.catalog.tools.map(({ fieldOrigins: _f, ...e }) => e), diagnostics: built.diagnostics });
    const clone = time(() => deserialize(wire), { runs: 7, warmup: 1 });

    const main = await scenario(dir, files, docs, tools, false);
    const worker = await scenario(dir, files, docs, tools, true);
    if (worker.where !== 'worker') throw new Error('the worker did not build (is dist/registry/build-worker.js there? npm run build)');

    const q = (samples, key) => quantiles(samples.map((x) => x[key]));
    const cell = (samples, key) => {
      const v = q(samples, key);
      return `${fmt(v.p50)} ms (p90 ${fmt(v.p90)}, max ${fmt(v.max)})`;
    };
    const ratio = (a, b, key) => `${fmt(q(b, key).p50 / q(a, key).p50, 2)}x`;
    const line = (label, key, pick) => console.log(`| ${label} | ${cell(pick(main), key)} | ${cell(pick(worker), key)} | ${ratio(pick(main), pick(worker), key)} |`);
    console.log(`\n## registry reload, ${COUNT} corpus tools in ${FILES} files (${fmt(bytes / 1024 / 1024)} MiB); ${cpus().length} cores, load average ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
    console.log(`baselines: readFileSync + JSON.parse of the ${FILES} files ${fmt(baseline.p50)} ms (median of ${baseline.runs}); v8.deserialize of the built catalog, i.e. the main thread's share of posting it as objects (structured clone) ${fmt(clone.p50)} ms`);
    console.log('medians of 5 (p90, max); "block" = longest event-loop block (monitorEventLoopDelay max, aim < 20 ms); "busy" = main-thread event-loop active time (ELU)');
    console.log('| what | build on the main thread (`worker: false`) | build in the worker (default) | worker / main |');
    console.log('| --- | --- | --- | --- |');
    console.log(`| first build (registry.start), wall | ${fmt(main.first.ms)} ms | ${fmt(worker.first.ms)} ms | ${fmt(worker.first.ms / main.first.ms, 2)}x |`);
    console.log(`| first build, block | ${fmt(main.first.block)} ms | ${fmt(worker.first.block)} ms | ${fmt(worker.first.block / main.first.block, 2)}x |`);
    line('full reload (every file changed), wall', 'ms', (x) => x.full);
    line('full reload, block', 'block', (x) => x.full);
    line('full reload, busy', 'active', (x) => x.full);
    line('refresh({ force: true }), nothing changed (all reused), wall', 'ms', (x) => x.forced);
    line('refresh({ force: true }), block', 'block', (x) => x.forced);
    line('refresh() after one file changed, wall', 'ms', (x) => x.changed);
    line('refresh() after one file changed, block', 'block', (x) => x.changed);
    const share = (x) => fmt(q(x.changed, 'ms').p50 / q(x.full, 'ms').p50, 2);
    console.log(`| one-file change / full reload, wall (aim ≤ 0.20) | ${share(main)} | ${share(worker)} | |`);
    const work = (x) => {
      const w = x.changed.at(-1).result.work;
      return w ? `imported ${w.importedFiles} file(s), reused ${w.reusedFiles}; checked ${w.checkedTools} tools, reused ${w.reusedTools}` : 'n/a';
    };
    console.log(`| work of a one-file change | ${work(main)} | ${work(worker)} | |`);
    const lat = (x) => `p50 ${fmt(x.serving.busy.latency.p50)} / p99 ${fmt(x.serving.busy.latency.p99)} ms, ${fmt(x.serving.busy.requests.average, 0)} req/s, ${x.serving.reloads} reloads (no reloads: p99 ${fmt(x.serving.quiet.latency.p99)} ms, ${fmt(x.serving.quiet.requests.average, 0)} req/s)`;
    console.log(`| GET ${PATH}, 10 connections, while a full reload runs every second | ${lat(main)} | ${lat(worker)} | ${fmt(worker.serving.busy.latency.p99 / main.serving.busy.latency.p99, 2)}x (p99) |`);
    console.log(`(full reload wall vs JSON.parse baseline: main ${fmt(q(main.full, 'ms').p50 / baseline.p50, 2)}x, worker ${fmt(q(worker.full, 'ms').p50 / baseline.p50, 2)}x)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
