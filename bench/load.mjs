// Issue 2 benchmark: load + validate + merge of a 10,000-tool catalog built from
// real corpus records, against JSON.parse of the same bytes, in one run.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog } from '../dist/index.js';
import { corpusCatalog } from './corpus.mjs';
import { fmt, mib, retainedHeap, time } from './stats.mjs';

const COUNT = 10_000;

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

export function run() {
  const files = writeCatalogs();
  const rows = [];
  for (const [label, path] of Object.entries(files)) {
    const bytes = readFileSync(path).length;
    const baseline = time(() => JSON.parse(readFileSync(path, 'utf8')));
    let result;
    const load = time(() => (result = buildCatalog([path])), { runs: 9, warmup: 2 });
    const tools = result.catalog.tools.length;
    // Real data has real findings (e.g. draft-04 `exclusiveMinimum: true` in a LiveMCPBench schema): counted, not fatal.
    const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
    if (tools !== COUNT) throw new Error(`${label}: expected ${COUNT} tools, got ${tools}`);
    const compiled = time(() => buildCatalog([path], { compileSchemas: true }), { runs: 1, warmup: 0 });
    const heapParse = retainedHeap(() => JSON.parse(readFileSync(path, 'utf8')));
    const heapLoad = retainedHeap(() => buildCatalog([path]));
    rows.push({ label, bytes, baseline, load, compiled, heapParse, heapLoad, errors, diagnostics: result.diagnostics.length });
  }
  console.log(`\n## load + validate + merge, ${COUNT} tools from the corpus (medians)`);
  console.log('| format | file | JSON.parse | toolcap | ratio (aim ≤ 3x) | with --compile-schemas | retained heap | heap / source bytes (aim ≤ 5x) | JSON.parse heap | findings (errors) |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${mib(r.bytes)} | ${fmt(r.baseline.p50)} ms | ${fmt(r.load.p50)} ms | ${fmt(r.load.p50 / r.baseline.p50, 2)}x | ${fmt(r.compiled.p50)} ms | ${mib(r.heapLoad)} | ${fmt(r.heapLoad / r.bytes, 2)}x | ${mib(r.heapParse)} (${fmt(r.heapParse / r.bytes, 2)}x) | ${r.diagnostics} (${r.errors}) |`,
    );
  }
  console.log(`peak RSS of the benchmark process: ${mib(process.resourceUsage().maxRSS * 1024)}`);
}
