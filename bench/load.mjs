// Issue 2/16 benchmark: load + validate + merge of a 10,000-tool catalog built from
// real corpus records, against JSON.parse of the same bytes, in one run.
//
// On a loaded machine a median of separate series drifts with the load, so
// baseline and candidate are interleaved: each round times JSON.parse, then
// the load (then, when asked, another build of toolcap), in an order that
// alternates between rounds, each after a full GC (with --expose-gc) so that
// no step pays for the garbage of the one before. The ratio reported is the
// median of the per-round ratios (and, next to it, the ratio of the medians).
//
// TOOLCAP_BENCH_LOAD_ROUNDS: rounds (default 9, at least 7).
// TOOLCAP_BENCH_BASE=<dist folder>: also time that build of toolcap (e.g. main's
// dist) in the same rounds and print its ratio, for before/after figures.
// TOOLCAP_BENCH_COMPILE=0: skip the (slow) --compile-schemas figure.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { buildCatalog } from '../dist/index.js';
import { corpusCatalog } from './corpus.mjs';
import { fmt, mib, retainedHeap, time } from './stats.mjs';

const COUNT = 10_000;
const ROUNDS = Math.max(7, Number(process.env.TOOLCAP_BENCH_LOAD_ROUNDS ?? 9));

function writeCatalogs() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-'));
  const tools = corpusCatalog(COUNT);
  const canonical = join(dir, 'catalog.json');
  writeFileSync(canonical, JSON.stringify({ toolcap: 1, tools: tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })) }));
  // The same records as an ATLAS shared toolbox (OpenAI-style parameters plus ATLAS keys).
  const atlasDir = join(dir, 'atlas', 'modules', 'Tools', 'tool_maps');
  mkdirSync(atlasDir, { recursive: true });
  const atlas = join(atlasDir, 'functions.json');
  writeFileSync(atlas, JSON.stringify(tools.map(({ name, description, inputSchema }, i) => ({ name, version: '1.0.0', description, side_effects: i % 3 ? 'none' : 'write', default_timeout: 30, allow_parallel: true, parameters: inputSchema }))));
  return { canonical, atlas };
}

const median = (xs) => {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Wall and CPU time (ms) of one call, after a full GC when it is exposed. */
function once(fn) {
  globalThis.gc?.();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  fn();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / 1000 };
}

/** Interleaved rounds of every step; per step its samples, in round order. */
function interleaved(steps, rounds) {
  const names = Object.keys(steps);
  for (const name of names) steps[name](); // warm-up (compiles, fills caches)
  for (const name of names) steps[name]();
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    for (const name of order) {
      const t = once(steps[name]);
      samples[name].push(t.wall);
      cpu[name].push(t.cpu);
    }
  }
  return { samples, cpu };
}

async function baseBuild() {
  const dir = process.env.TOOLCAP_BENCH_BASE;
  if (!dir) return undefined;
  const mod = await import(pathToFileURL(join(resolve(dir), 'index.js')).href);
  return mod.buildCatalog;
}

export async function run() {
  const files = writeCatalogs();
  const base = await baseBuild();
  const rows = [];
  for (const [label, path] of Object.entries(files)) {
    const bytes = readFileSync(path).length;
    let result;
    const steps = { parse: () => JSON.parse(readFileSync(path, 'utf8')), load: () => (result = buildCatalog([path])) };
    if (base) steps.base = () => base([path]);
    const { samples, cpu } = interleaved(steps, ROUNDS);
    const tools = result.catalog.tools.length;
    // Real data has real findings (e.g. draft-04 `exclusiveMinimum: true` in a LiveMCPBench schema): counted, not fatal.
    const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
    if (tools !== COUNT) throw new Error(`${label}: expected ${COUNT} tools, got ${tools}`);
    const ratio = (name) => median(samples[name].map((t, i) => t / samples.parse[i]));
    // CPU time (all threads, so GC helpers count) moves less with the machine's load than wall time
    const cpuRatio = (name) => median(cpu[name].map((t, i) => t / cpu.parse[i]));
    const compiled = process.env.TOOLCAP_BENCH_COMPILE === '0' ? undefined : time(() => buildCatalog([path], { compileSchemas: true }), { runs: 1, warmup: 0 });
    const heapParse = median([0, 1, 2].map(() => retainedHeap(() => JSON.parse(readFileSync(path, 'utf8')))).filter((x) => x !== undefined));
    const heapLoad = median([0, 1, 2].map(() => retainedHeap(() => buildCatalog([path]))).filter((x) => x !== undefined));
    const heapBase = base ? median([0, 1, 2].map(() => retainedHeap(() => base([path]))).filter((x) => x !== undefined)) : undefined;
    rows.push({
      label,
      bytes,
      parse: median(samples.parse),
      load: median(samples.load),
      ratio: ratio('load'),
      ratioOfMedians: median(samples.load) / median(samples.parse),
      cpuRatio: cpuRatio('load'),
      base: base ? { load: median(samples.base), ratio: ratio('base'), cpuRatio: cpuRatio('base'), heap: heapBase } : undefined,
      compiled,
      heapParse,
      heapLoad,
      errors,
      diagnostics: result.diagnostics.length,
    });
  }
  const aim = { canonical: 3, atlas: 4 };
  const heapRatio = (h, r) => (Number.isFinite(h) ? `${fmt(h / r.bytes, 2)}x` : 'n/a (needs --expose-gc)');
  console.log(`\n## load + validate + merge, ${COUNT} tools from the corpus (interleaved rounds: ${ROUNDS}, medians; load average ${process.platform === 'linux' ? readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') : 'n/a'})`);
  console.log('| format | file | JSON.parse | toolcap | ratio, median of rounds (aim) | ratio of medians | CPU-time ratio | with --compile-schemas | retained heap | heap / source bytes (aim ≤ 5x) | JSON.parse heap | findings (errors) |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${mib(r.bytes)} | ${fmt(r.parse)} ms | ${fmt(r.load)} ms | ${fmt(r.ratio, 2)}x (≤ ${aim[r.label]}x) | ${fmt(r.ratioOfMedians, 2)}x | ${fmt(r.cpuRatio, 2)}x | ${r.compiled ? `${fmt(r.compiled.p50)} ms` : 'skipped'} | ${mib(r.heapLoad)} | ${heapRatio(r.heapLoad, r)} | ${mib(r.heapParse)} (${heapRatio(r.heapParse, r)}) | ${r.diagnostics} (${r.errors}) |`,
    );
  }
  if (base) {
    console.log(`\nthe same rounds with the build in ${process.env.TOOLCAP_BENCH_BASE} (TOOLCAP_BENCH_BASE):`);
    console.log('| format | base toolcap | base ratio, median of rounds | base CPU-time ratio | base heap / source bytes | this build: ratio, CPU-time ratio |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const r of rows) console.log(`| ${r.label} | ${fmt(r.base.load)} ms | ${fmt(r.base.ratio, 2)}x | ${fmt(r.base.cpuRatio, 2)}x | ${heapRatio(r.base.heap, r)} | ${fmt(r.ratio, 2)}x, ${fmt(r.cpuRatio, 2)}x |`);
  }
  console.log(`peak RSS of the benchmark process: ${mib(process.resourceUsage().maxRSS * 1024)}`);
}
