// Module-provider benchmark: what running a module tool in a worker thread
// (the default) costs next to running it inline (the opt-in), in the same
// run. A no-op export is called through the provider instance, sequentially
// (p50/p99 per call) and 16 at a time (calls/s); the direct call of the
// same function is the floor. Also the first call of a worker (its start and
// the module's import), which a tool pays once per version of its code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { moduleProviderType } from '../dist/runtime/providers/module.js';
import { fmt } from './stats.mjs';

const WARMUP = 200;
const ITERATIONS = 2_000;
const CONCURRENCY = 16;
const BATCHES = 200;
const COLD_STARTS = 10;
const ARGS = { n: 1 };

let callSeq = 0;
const context = () => ({ signal: new AbortController().signal, callId: `bench-${++callSeq}`, attempt: 1, tool: { name: 'bench.noop' } });

/** Per-call latency in µs over sequential calls, after warm-up. */
async function sample(fn) {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples = new Float64Array(ITERATIONS);
  for (let i = 0; i < ITERATIONS; i++) {
    const s = performance.now();
    await fn();
    samples[i] = (performance.now() - s) * 1000;
  }
  samples.sort();
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99) };
}

/** Calls/s with CONCURRENCY calls in flight. */
async function batched(fn) {
  for (let i = 0; i < 20; i++) await Promise.all(Array.from({ length: CONCURRENCY }, fn));
  const t0 = performance.now();
  for (let i = 0; i < BATCHES; i++) await Promise.all(Array.from({ length: CONCURRENCY }, fn));
  return ((BATCHES * CONCURRENCY) / (performance.now() - t0)) * 1000;
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-module-'));
  const instances = [];
  try {
    writeFileSync(join(dir, 'noop.mjs'), 'export function noop(args) {\n  return { ok: true, n: args.n };\n}\n');
    const make = (isolation) => {
      const entry = { name: isolation, config: { module: './noop.mjs', export: 'noop', isolation } };
      const instance = moduleProviderType.create(entry, { name: 'bench.noop' }, { env: {}, baseDir: dir });
      instances.push(instance);
      return instance;
    };
    const { noop } = await import(pathToFileURL(join(dir, 'noop.mjs')).href);
    const inline = make('inline');
    const worker = make('worker');

    const direct = await sample(async () => noop(ARGS, context()));
    const viaInline = await sample(() => inline.call(ARGS, context()));
    const viaWorker = await sample(() => worker.call(ARGS, context()));
    const ratio = (s) => `${fmt(s.p50 / viaInline.p50, 2)}x`;

    console.log(`\n## Module tools: worker thread vs inline, a no-op export, ${ITERATIONS} sequential calls after ${WARMUP} warm-up (µs per call)`);
    console.log('| path | p50 µs | p99 µs | p50 ratio to inline |');
    console.log('| --- | --- | --- | --- |');
    console.log(`| direct call of the export (floor) | ${fmt(direct.p50)} | ${fmt(direct.p99)} | ${ratio(direct)} |`);
    console.log(`| provider, isolation: inline | ${fmt(viaInline.p50)} | ${fmt(viaInline.p99)} | 1.00x |`);
    console.log(`| provider, isolation: worker (default) | ${fmt(viaWorker.p50)} | ${fmt(viaWorker.p99)} | ${ratio(viaWorker)} |`);
    console.log(`worker adds ${fmt(viaWorker.p50 - viaInline.p50)} µs at p50, ${fmt(viaWorker.p99 - viaInline.p99)} µs at p99`);

    const inlineRate = await batched(() => inline.call(ARGS, context()));
    const workerRate = await batched(() => worker.call(ARGS, context()));
    console.log(`\nconcurrency ${CONCURRENCY}: inline ${fmt(inlineRate, 0)} calls/s, worker ${fmt(workerRate, 0)} calls/s (${fmt(workerRate / inlineRate, 2)}x)`);

    const cold = [];
    for (let i = 0; i < COLD_STARTS; i++) {
      const fresh = make('worker');
      const t0 = performance.now();
      await fresh.call(ARGS, context());
      cold.push(performance.now() - t0);
      await fresh.close();
    }
    cold.sort((a, b) => a - b);
    console.log(`first call of a new worker (start + import), median of ${COLD_STARTS}: ${fmt(cold[Math.floor(COLD_STARTS / 2)])} ms`);
  } finally {
    for (const instance of instances) await instance.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
}
