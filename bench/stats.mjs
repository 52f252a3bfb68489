// Small timing helpers shared by the benchmarks: medians over repeated runs, after warm-up.
import { performance } from 'node:perf_hooks';

/** Median and p99 of `fn`'s wall time in milliseconds over `runs` runs (after `warmup`). */
export function time(fn, { runs = 15, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const at = (q) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99), min: samples[0], runs };
}

/** Heap retained by what `build` returns, in bytes (needs --expose-gc). */
export function retainedHeap(build) {
  if (typeof globalThis.gc !== 'function') return undefined;
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  const kept = build();
  globalThis.gc();
  const after = process.memoryUsage().heapUsed;
  if (kept === undefined) throw new Error('build must return what it keeps');
  return after - before;
}

export const fmt = (n, digits = 1) => (n === undefined ? 'n/a' : n.toFixed(digits));
export const mib = (bytes) => (bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
