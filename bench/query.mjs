// Issue 4 benchmark: latency of a planner query (filter + search + rank) over a
// 10,000-tool catalog built from real corpus records, against MiniSearch's
// default BM25 searching the same tools with the same real queries, in one run.
// Index builds are timed separately: a snapshot's index is built once (rank.js
// caches it per tool list in a WeakMap), so per-query latency excludes it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import { buildCatalog, effectEvidence, filterTools, inferWrites, matchesFilter, queryIntent, rankTools, Registry, search } from '../dist/index.js';
import { indexFor } from '../dist/query/rank.js';
import { buildSearchIndex } from '../dist/query/search.js';
import { corpusCatalog } from './corpus.mjs';
import { datasets } from './retrieval.mjs';
import { fmt } from './stats.mjs';

const COUNT = 10_000;
const QUERIES = 400;
const PERSONA = 'Atlas';
const FILTER = { maxRisk: 'medium' };

/**
 * `count` canonical tools from the corpus, as a toolcap file would hold them.
 * Every 10th tool is scoped to a persona (alternately Atlas and Medic). Tools
 * that toolcap's own word-evidence inference reads as `read` declare
 * `sideEffects: none` (what an inference pass would write); the rest stay
 * silent and complete to write/high. Records whose schema toolcap rejects as
 * an error (one draft-04 `exclusiveMinimum` in LiveMCPBench) are skipped, so
 * a Registry accepts the build.
 */
export function benchTools(count = COUNT) {
  const candidates = corpusCatalog(count + 50).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-probe-'));
  try {
    const probe = join(dir, 'catalog.json');
    writeFileSync(probe, JSON.stringify({ toolcap: 1, tools: candidates }));
    const bad = new Set();
    for (const d of buildCatalog([probe]).diagnostics) {
      const m = d.severity === 'error' && /^\/tools\/(\d+)\//.exec(d.pointer ?? '');
      if (m) bad.add(Number(m[1]));
    }
    return candidates
      .filter((_, i) => !bad.has(i))
      .slice(0, count)
      .map((t, i) => ({
        ...t,
        ...(inferWrites(effectEvidence({ name: t.name, description: t.description })) === 'read' ? { effects: { sideEffects: 'none' } } : {}),
        ...(i % 10 === 0 ? { scope: { personas: [i % 20 === 0 ? 'Atlas' : 'Medic'] } } : {}),
      }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A few hundred real queries, taken evenly from every retrieval query set. */
export function benchQueries(total = QUERIES) {
  const sets = datasets().filter((ds) => ds.halfOf === undefined); // a half's queries are its whole set's
  const per = Math.ceil(total / sets.length);
  const out = [];
  for (const ds of sets) {
    const step = Math.max(1, Math.floor(ds.queries.length / per));
    for (let i = 0; i < ds.queries.length && out.length < total && i / step < per; i += step) out.push(ds.queries[i].q);
  }
  return out;
}

/**
 * Per-call latency in µs of `fn(q)` for every query, `rounds` times, after
 * one warm-up pass: wall clock, and the process's CPU time for the call
 * (user + system), which a busy machine inflates far less than wall clock.
 */
function latency(queries, fn, rounds = 3, warmup = true) {
  if (warmup) for (const q of queries) fn(q);
  const samples = [];
  const cpu = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      fn(q);
      samples.push(Number(process.hrtime.bigint() - t0) / 1000);
      const c = process.cpuUsage(c0);
      cpu.push(c.user + c.system);
    }
  }
  samples.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const at = (list, p) => list[Math.min(list.length - 1, Math.floor(p * list.length))];
  return { p50: at(samples, 0.5), p99: at(samples, 0.99), mean: samples.reduce((s, x) => s + x, 0) / samples.length, max: samples[samples.length - 1], n: samples.length, cpuP50: at(cpu, 0.5), cpuP99: at(cpu, 0.99) };
}

const paramText = (t) => Object.entries(t.inputSchema?.properties ?? {}).map(([k, v]) => `${k} ${v?.description ?? ''}`).join(' ');

export async function run() {
  const tools = benchTools(COUNT);
  const queries = benchQueries(QUERIES);
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-query-'));
  let registry;
  try {
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ toolcap: 1, tools }));
    registry = new Registry({ paths: [dir] });
    const event = await registry.start();
    if (event.kind !== 'reloaded') throw new Error(`registry build failed: ${JSON.stringify(event.diagnostics?.filter((d) => d.severity === 'error').slice(0, 3))}`);
    const snap = registry.snapshot();
    const view = snap.toolsFor(PERSONA);
    const where = (t) => matchesFilter(t, FILTER);
    const passing = view.filter(where).length;

    // index builds, once each (toolcap: what the first query on a snapshot view pays)
    let t0 = performance.now();
    const index = buildSearchIndex(view);
    const toolcapBuild = performance.now() - t0;
    indexFor(view); // the cached index the planner query uses (built here, outside the timings)
    const docs = view.map((t) => ({ id: t.name, name: t.name, description: t.description ?? '', params: paramText(t) }));
    t0 = performance.now();
    const ms = new MiniSearch({ fields: ['name', 'description', 'params'], idField: 'id' });
    ms.addAll(docs);
    const miniBuild = performance.now() - t0;

    const planner = (q) => rankTools(q, view, { where, limit: 10 });
    const mini = (q) => ms.search(q).slice(0, 10);
    const toolcap = latency(queries, planner);
    // MiniSearch takes tens of ms per query here: one timed round after the warm-up pass keeps the run short
    const baseline = latency(queries, mini, 1);

    // the split: each part on its own
    const parts = {
      'filter alone (filterTools over the view)': latency(queries, () => filterTools(view, FILTER)),
      'filter alone (matchesFilter predicate over the view)': latency(queries, () => { let n = 0; for (const t of view) if (where(t)) n++; return n; }),
      'query intent alone (queryIntent(q))': latency(queries, (q) => queryIntent(q)),
      'search alone (search(index, q), all hits)': latency(queries, (q) => search(index, q)),
      'rank without filter (rankTools, no where)': latency(queries, (q) => rankTools(q, view, { limit: 10 })),
      'planner query (rankTools + where)': toolcap,
    };
    const hits = queries.map((q) => search(index, q).length);
    const avgHits = hits.reduce((s, x) => s + x, 0) / hits.length;
    const empty = queries.filter((q) => planner(q).candidates.length === 0).length;

    const us = (x) => (x >= 1000 ? `${fmt(x / 1000, 2)} ms` : `${fmt(x, 0)} µs`);
    console.log(`\n## planner query latency, ${COUNT} corpus tools (persona ${PERSONA}: ${view.length} tools, ${passing} pass maxRisk ${FILTER.maxRisk}), ${queries.length} real queries (toolcap 3 rounds, MiniSearch 1)`);
    console.log('| engine | index build | p50 | p99 | mean | max | CPU p50 | CPU p99 |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    const row = (label, build, r) => console.log(`| ${label} | ${build} | ${us(r.p50)} | ${us(r.p99)} | ${us(r.mean)} | ${us(r.max)} | ${us(r.cpuP50)} | ${us(r.cpuP99)} |`);
    row('toolcap: filter + search + rank (rankTools, where, limit 10)', `${fmt(toolcapBuild)} ms`, toolcap);
    row('MiniSearch BM25 defaults, top 10 (baseline)', `${fmt(miniBuild)} ms`, baseline);
    console.log(`ratio toolcap / MiniSearch: p50 ${fmt(toolcap.p50 / baseline.p50, 2)}x, p99 ${fmt(toolcap.p99 / baseline.p99, 2)}x, mean ${fmt(toolcap.mean / baseline.mean, 2)}x; index build ${fmt(toolcapBuild / miniBuild, 2)}x`);
    console.log(`aim p50 < 1 ms and p99 < 5 ms: p50 ${toolcap.p50 < 1000 ? 'met' : 'NOT met'} (${us(toolcap.p50)}; CPU ${us(toolcap.cpuP50)}), p99 ${toolcap.p99 < 5000 ? 'met' : 'NOT met'} (${us(toolcap.p99)}; CPU ${us(toolcap.cpuP99)}); load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
    console.log(`average search hits per query (before filter and limit): ${fmt(avgHits, 0)} of ${view.length}; queries with no candidate after the filter: ${empty}`);
    console.log('\n| part | p50 | p99 | mean | CPU p50 | CPU p99 |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const [label, r] of Object.entries(parts)) console.log(`| ${label} | ${us(r.p50)} | ${us(r.p99)} | ${us(r.mean)} | ${us(r.cpuP50)} | ${us(r.cpuP99)} |`);
  } finally {
    await registry?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
