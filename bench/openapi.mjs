// Issue 3 benchmark: importing the GitHub REST spec (771 operations over
// heavily shared component schemas), as a whole catalog build and as the
// dialect import alone, against JSON.parse of the same file, in one run.
import { readFileSync } from 'node:fs';
import { buildCatalog, getDialect, parseSource } from '../dist/index.js';
import { createImportContext } from '../dist/source/context.js';
import { performance } from 'node:perf_hooks';
import { fmt, mib, retainedHeap } from './stats.mjs';

const SPEC = new URL('../../shared/corpus/openapi/github.api.github.com.json', import.meta.url).pathname;
const OPERATIONS = 771;

/** Parse and import with the openapi dialect only: no merge, completion or lint. */
function importOnly(path, text) {
  const parsed = parseSource(path, text);
  if (!parsed.file) throw new Error(`${path} does not parse`);
  return getDialect('openapi').import(createImportContext(parsed.file));
}

/**
 * Medians of several functions timed in alternating rounds, so that load on
 * the machine drifting during the run weighs on every one of them alike.
 */
function interleaved(fns, { rounds = 15, warmup = 4 } = {}) {
  const samples = fns.map(() => []);
  for (let r = 0; r < warmup + rounds; r++) {
    fns.forEach((fn, i) => {
      const t0 = performance.now();
      fn();
      if (r >= warmup) samples[i].push(performance.now() - t0);
    });
  }
  return samples.map((s) => ({ p50: s.sort((a, b) => a - b)[s.length >> 1] }));
}

export function run() {
  const text = readFileSync(SPEC, 'utf8');
  const bytes = Buffer.byteLength(text);
  let imported;
  let result;
  const [baseline, dialect, catalog] = interleaved([
    () => JSON.parse(readFileSync(SPEC, 'utf8')),
    () => (imported = importOnly(SPEC, readFileSync(SPEC, 'utf8'))),
    () => (result = buildCatalog([SPEC])),
  ]);
  const tools = result.catalog.tools.length;
  if (imported.tools.length !== OPERATIONS || tools !== OPERATIONS) throw new Error(`expected ${OPERATIONS} tools, got ${imported.tools.length} / ${tools}`);
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  const heapParse = retainedHeap(() => JSON.parse(text));
  const heapImport = retainedHeap(() => importOnly(SPEC, text));
  const heapCatalog = retainedHeap(() => buildCatalog([SPEC]));
  console.log(`\n## OpenAPI import: GitHub REST spec, ${mib(bytes)}, ${OPERATIONS} operations (medians)`);
  console.log('| step | time | ratio to JSON.parse (aim ≤ 4x) | retained heap | heap / source bytes |');
  console.log('| --- | --- | --- | --- | --- |');
  const row = (label, t, heap) =>
    console.log(`| ${label} | ${fmt(t.p50)} ms | ${fmt(t.p50 / baseline.p50, 2)}x | ${mib(heap)} | ${heap === undefined ? 'n/a' : `${fmt(heap / bytes, 2)}x`} |`);
  row('JSON.parse', baseline, heapParse);
  row('parse + openapi import', dialect, heapImport);
  row('buildCatalog (load, merge, complete, lint)', catalog, heapCatalog);
  console.log(`findings: ${result.diagnostics.length} (${errors} errors); peak RSS: ${mib(process.resourceUsage().maxRSS * 1024)}`);
}
