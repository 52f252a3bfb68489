// Issue 18 benchmark: the web console's catalog page over 10,000 tools,
// server time in-process (app.fetch, no socket), against the JSON API's
// `/tools` page of the same tools in the same run. Both reuse the filtered
// list cached per snapshot and filter; the offset varies so the API's body
// cache cannot answer. Also the ranked search page and a tool page, and the
// size of each page's HTML.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Registry } from '../dist/index.js';
import { createApi } from '../dist/entries/server.js';
import { benchTools } from './query.mjs';
import { fmt } from './stats.mjs';

const COUNT = 10_000;
const RUNS = 40;

async function timed(app, pathOf) {
  for (let i = 0; i < 5; i++) await (await app.fetch(new Request(`http://x${pathOf(i)}`))).arrayBuffer();
  const samples = [];
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const res = await app.fetch(new Request(`http://x${pathOf(i + 5)}`));
    const body = await res.arrayBuffer();
    samples.push(performance.now() - t0);
    bytes = body.byteLength;
    if (res.status !== 200) throw new Error(`${pathOf(i)}: ${res.status}`);
  }
  const cpu = process.cpuUsage(cpu0);
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(RUNS / 2)], p95: samples[Math.floor(RUNS * 0.95)], cpuMs: (cpu.user + cpu.system) / 1000 / RUNS, bytes };
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-console-'));
  const registry = new Registry({ paths: [join(dir, 'catalog.json')] });
  try {
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ toolcap: 1, tools: benchTools(COUNT) }));
    const started = await registry.start();
    if (started.kind !== 'reloaded') throw new Error('the bench catalog did not build');
    const app = createApi(registry, { console: {} });
    const name = registry.snapshot().tools[1234].name;
    const once = async (path) => {
      const t0 = performance.now();
      await (await app.fetch(new Request(`http://x${path}`))).arrayBuffer();
      return performance.now() - t0;
    };
    await once('/tools?limit=1'); // the first request of all warms the code paths
    await once('/?tag=warm-up');
    // filters never asked before: each filters the 10,000 tools once (the console also counts them by mode and risk);
    // the API asks a second registry of the same tools, so neither finds the other's cached list
    const second = new Registry({ paths: [join(dir, 'catalog.json')] });
    await second.start();
    const apiApp = createApi(second, {});
    const onceOn = async (target, path) => {
      const t0 = performance.now();
      await (await target.fetch(new Request(`http://x${path}`))).arrayBuffer();
      return performance.now() - t0;
    };
    await onceOn(apiApp, '/tools?limit=1');
    const combos = ['low', 'medium', 'high', 'critical'].flatMap((r) => ['read', 'write', 'mixed'].map((m) => `max_risk=${r}&mode=${m}`));
    const coldApiRuns = [];
    const coldPageRuns = [];
    for (const combo of combos) {
      coldApiRuns.push(await onceOn(apiApp, `/tools?${combo}&limit=50`));
      coldPageRuns.push(await onceOn(app, `/?${combo}`));
    }
    await second.close();
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const coldApi = med(coldApiRuns);
    const coldPage = med(coldPageRuns);
    const api = await timed(app, (i) => `/tools?max_risk=medium&limit=50&offset=${(i * 50) % 5000}`);
    const page = await timed(app, (i) => `/?max_risk=medium&offset=${(i * 50) % 5000}`);
    const search = await timed(app, (i) => `/?q=${encodeURIComponent(['list open incidents', 'send an email', 'read a file', 'create a pull request'][i % 4])}`);
    const tool = await timed(app, () => `/ui/tools/${encodeURIComponent(name)}`);
    console.log(`\n## Web console, ${COUNT} tools, server time in-process (median of ${RUNS}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')})`);
    console.log('| request | p50 | p95 | CPU per request | body | ratio to API page |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    const row = (label, r) => console.log(`| ${label} | ${fmt(r.p50, 2)} ms | ${fmt(r.p95, 2)} ms | ${fmt(r.cpuMs, 2)} ms | ${r.bytes} B | ${(r.p50 / api.p50).toFixed(2)}x |`);
    row('GET /tools?max_risk=medium&limit=50&offset=N (JSON API, baseline)', api);
    row('GET /?max_risk=medium&offset=N (console catalog page, 50 rows + counts)', page);
    row('GET /?q=… (console, ranked with explanations, 20 rows)', search);
    row('GET /ui/tools/{name} (console tool page)', tool);
    console.log(`first page for a filter never asked before (filters 10,000 tools; median of 12 filters): JSON API ${fmt(coldApi, 1)} ms, console ${fmt(coldPage, 1)} ms (${(coldPage / coldApi).toFixed(2)}x; the console also counts by mode and risk)`);
  } finally {
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
