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
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await sleep(5);
  h.disable();
  return { ms, block: h.max / 1e6, cpuMs: (cpu.user + cpu.system) / 1000, result };
}

function load(url, seconds) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 10, duration: seconds, pipelining: 1 }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** GET /tools latency with and without a forced reload every second. */
async function servingUnderReloads(registry) {
  const server = await listen(createApi(registry), { port: 0 });
  try {
    const url = `${server.url}${PATH}`;
    await load(url, 1); // warm-up
    const quiet = await load(url, 4);
    let reloads = 0;
    const timer = setInterval(() => void registry.refresh({ force: true }).then(() => reloads++), 1_000);
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
    const changed = [];
    for (let i = 0; i < RUNS; i++) {
      const f = i % FILES;
      docs[f].tools[0] = { ...docs[f].tools[0], description: `${tools[f * per].description} (${worker ? 'w' : 'm'} revision ${i + 1})` };
      writeFileSync(files[f], JSON.stringify(docs[f]));
      const r = await measured(() => registry.refresh());
      if (r.result.kind !== 'reloaded' || r.result.changed.length !== 1) throw new Error(`changed-file reload ${i}: ${r.result.kind}, changed ${r.result.changed?.length}`);
      changed.push(r);
    }
    const serving = await servingUnderReloads(registry);
    return { where: forced[0].result.work?.where ?? 'main', first, forced, changed, serving };
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

    const row = (label, samples, key = 'ms') => {
      const q = quantiles(samples.map((s) => s[key]));
      return `${fmt(q.p50)} ms (p90 ${fmt(q.p90)}, max ${fmt(q.max)})`;
    };
    console.log(`\n## registry reload, ${COUNT} corpus tools in ${FILES} files (${fmt(bytes / 1024 / 1024)} MiB); ${cpus().length} cores, load average ${loadavg().map((l) => fmt(l, 2)).join(' ')}`);
    console.log(`baseline: readFileSync + JSON.parse of the ${FILES} files ${fmt(baseline.p50)} ms (median of ${baseline.runs}); v8.deserialize of the built catalog (the main thread's share of a plain postMessage) ${fmt(clone.p50)} ms`);
    console.log('| what | build on the main thread (`worker: false`) | build in the worker | worker / main |');
    console.log('| --- | --- | --- | --- |');
    const ratio = (a, b, key = 'ms') => fmt(quantiles(b.map((s) => s[key])).p50 / quantiles(a.map((s) => s[key])).p50, 2) + 'x';
    console.log(`| first build (registry.start), wall | ${fmt(main.first.ms)} ms | ${fmt(worker.first.ms)} ms | ${fmt(worker.first.ms / main.first.ms, 2)}x |`);
    console.log(`| refresh({ force: true }), wall | ${row('', main.forced)} | ${row('', worker.forced)} | ${ratio(main.forced, worker.forced)} |`);
    console.log(`| refresh({ force: true }), longest event-loop block (aim < 20 ms) | ${row('', main.forced, 'block')} | ${row('', worker.forced, 'block')} | ${ratio(main.forced, worker.forced, 'block')} |`);
    console.log(`| refresh({ force: true }), main-thread CPU | ${row('', main.forced, 'cpuMs')} | ${row('', worker.forced, 'cpuMs')} | ${ratio(main.forced, worker.forced, 'cpuMs')} |`);
    console.log(`| refresh() after one file changed, wall | ${row('', main.changed)} | ${row('', worker.changed)} | ${ratio(main.changed, worker.changed)} |`);
    console.log(`| refresh() after one file changed, longest block | ${row('', main.changed, 'block')} | ${row('', worker.changed, 'block')} | ${ratio(main.changed, worker.changed, 'block')} |`);
    const share = (s) => fmt(quantiles(s.changed.map((c) => c.ms)).p50 / quantiles(s.forced.map((c) => c.ms)).p50, 2);
    console.log(`| one-file change / forced reload (aim ≤ 0.20) | ${share(main)} | ${share(worker)} | |`);
    const work = (s) => {
      const w = s.changed.at(-1).result.work;
      return w ? `imported ${w.importedFiles} file(s), reused ${w.reusedFiles}; checked ${w.checkedTools} tool(s), reused ${w.reusedTools}` : 'n/a';
    };
    console.log(`| work of a one-file change | ${work(main)} | ${work(worker)} | |`);
    const lat = (s) => `p50 ${fmt(s.serving.busy.latency.p50)} / p99 ${fmt(s.serving.busy.latency.p99)} ms (quiet: p99 ${fmt(s.serving.quiet.latency.p99)} ms; ${fmt(s.serving.busy.latency.p99 / Math.max(1, s.serving.quiet.latency.p99), 2)}x), ${fmt(s.serving.busy.requests.average, 0)} req/s, ${s.serving.reloads} reloads`;
    console.log(`| GET ${PATH} while a forced reload runs every second | ${lat(main)} | ${lat(worker)} | ${fmt(worker.serving.busy.latency.p99 / main.serving.busy.latency.p99, 2)}x (p99) |`);
    console.log(`(worker, forced: ${fmt(quantiles(worker.forced.map((f) => f.ms)).p50 / baseline.p50, 2)}x JSON.parse wall; main, forced: ${fmt(quantiles(main.forced.map((f) => f.ms)).p50 / baseline.p50, 2)}x)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
