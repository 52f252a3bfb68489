// Issue 5 benchmark: a full reload of a 10,000-tool catalog (10 files of 1,000
// real corpus tools) by a Registry, forced and after one file changed, against
// readFileSync + JSON.parse of the same files, in one run; plus how long the
// reload blocks the event loop (the build is synchronous).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from '../dist/index.js';
import { benchTools } from './query.mjs';
import { fmt, time } from './stats.mjs';

const COUNT = 10_000;
const FILES = 10;

const quantiles = (samples) => {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p90: at(0.9), min: s[0], max: s[s.length - 1], runs: s.length };
};

async function timed(fn) {
  const t0 = performance.now();
  const result = await fn();
  return { ms: performance.now() - t0, result };
}

/** Longest gap between ticks of a 1 ms interval while `fn` runs. */
async function longestGap(fn) {
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  await sleep(20); // let the sampler settle
  gap = 0;
  last = performance.now();
  const out = await timed(fn);
  await sleep(5);
  clearInterval(timer);
  return { gap, ...out };
}

export async function run() {
  const tools = benchTools(COUNT);
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-reload-'));
  let registry;
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
    // files written less than 2 s before a fingerprint are hashed again each time (racy mtime);
    // wait that out so unchanged files are trusted by stat, as in a long-running registry
    await sleep(2_100);

    const baseline = time(() => files.map((p) => JSON.parse(readFileSync(p, 'utf8'))), { runs: 15, warmup: 3 });

    registry = new Registry({ paths: [dir] });
    const first = await timed(() => registry.start());
    if (first.result.kind !== 'reloaded') throw new Error(`registry build failed: ${JSON.stringify(first.result.diagnostics?.filter((d) => d.severity === 'error').slice(0, 3))}`);
    const loaded = registry.snapshot().tools.length;
    if (loaded !== COUNT) throw new Error(`expected ${COUNT} tools, got ${loaded}`);

    await registry.refresh({ force: true }); // warm-up
    const forced = [];
    for (let i = 0; i < 7; i++) {
      const r = await timed(() => registry.refresh({ force: true }));
      if (r.result.kind !== 'reloaded') throw new Error(`forced reload ${i}: ${r.result.kind}`);
      forced.push(r.ms);
    }

    // one file's content changes (one tool's description), then a plain refresh
    const changed = [];
    for (let i = 0; i < 7; i++) {
      const f = i % FILES;
      docs[f].tools[0] = { ...docs[f].tools[0], description: `${tools[f * per].description} (revision ${i + 1})` };
      writeFileSync(files[f], JSON.stringify(docs[f]));
      const r = await timed(() => registry.refresh());
      if (r.result.kind !== 'reloaded' || r.result.changed.length !== 1) throw new Error(`changed-file reload ${i}: ${r.result.kind}, changed ${r.result.changed?.length}`);
      changed.push(r.ms);
    }
    await sleep(2_100); // let the last touched files stop being racy
    await registry.refresh();
    const unchanged = [];
    for (let i = 0; i < 7; i++) {
      const r = await timed(() => registry.refresh());
      if (r.result.kind !== 'unchanged') throw new Error(`no-change refresh ${i}: ${r.result.kind}`);
      unchanged.push(r.ms);
    }

    const blocking = [];
    for (let i = 0; i < 3; i++) blocking.push(await longestGap(() => registry.refresh({ force: true })));

    const f = quantiles(forced);
    const c = quantiles(changed);
    const u = quantiles(unchanged);
    console.log(`\n## registry reload, ${COUNT} corpus tools in ${FILES} files (${fmt(bytes / 1024 / 1024)} MiB)`);
    console.log('| what | median | p90 | min | runs | ratio to JSON.parse (median) |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    console.log(`| readFileSync + JSON.parse of the ${FILES} files (baseline) | ${fmt(baseline.p50)} ms | (p99 ${fmt(baseline.p99)} ms) | ${fmt(baseline.min)} ms | ${baseline.runs} | 1.00x |`);
    console.log(`| first build (registry.start) | ${fmt(first.ms)} ms | | | 1 | ${fmt(first.ms / baseline.p50, 2)}x |`);
    console.log(`| refresh({ force: true }) | ${fmt(f.p50)} ms | ${fmt(f.p90)} ms | ${fmt(f.min)} ms | ${f.runs} | ${fmt(f.p50 / baseline.p50, 2)}x |`);
    console.log(`| refresh() after one file changed | ${fmt(c.p50)} ms | ${fmt(c.p90)} ms | ${fmt(c.min)} ms | ${c.runs} | ${fmt(c.p50 / baseline.p50, 2)}x |`);
    console.log(`| refresh() with nothing changed (skipped) | ${fmt(u.p50, 2)} ms | ${fmt(u.p90, 2)} ms | ${fmt(u.min, 2)} ms | ${u.runs} | ${fmt(u.p50 / baseline.p50, 3)}x |`);
    console.log(`event-loop blocking during a forced reload (longest gap of a 1 ms setInterval): ${blocking.map((b) => `${fmt(b.gap)} ms of a ${fmt(b.ms)} ms reload`).join('; ')}`);
  } finally {
    await registry?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
