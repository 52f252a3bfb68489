// Issue 3: how well does toolcap's read/write inference find the tools that write?
// Ground truth: API-Bank's own side-effect labels (apis.jsonl, see its SOURCE.md), and
// the OpenAPI specs' methods with the exceptions listed in corpus/openapi/SOURCE.md.
import { effectEvidence, inferWrites } from '../dist/model/evidence.js';
import { join } from 'node:path';
import { buildCatalog } from '../dist/index.js';
import { apiBankCases, CORPUS, operationWrites, score } from './corpus.mjs';

export function run() {
  const cases = apiBankCases();
  const verdict = (c) => inferWrites(effectEvidence({ name: c.name, description: c.description }));
  const strict = score(cases, (c) => verdict(c) === 'write');
  const conservative = score(cases, (c) => verdict(c) !== 'read');
  const pct = (x) => `${(100 * x).toFixed(1)}%`;
  console.log(`\n## read/write inference from names and descriptions, API-Bank (${cases.length} APIs, ${cases.filter((c) => c.writes).length} write)`);
  console.log('| reading | precision of "writes" | recall of "writes" | tp | fp | fn | tn |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  const derivedMode = score(cases, () => true); // a silent tool's derived mode is write
  for (const [label, s] of [
    ['derived mode of a silent tool (always write; what enforcement uses)', derivedMode],
    ['word evidence, no evidence = read', strict],
    ['word evidence, no evidence = write', conservative],
  ]) {
    console.log(`| ${label} | ${pct(s.precision)} | ${pct(s.recall)} | ${s.tp} | ${s.fp} | ${s.fn} | ${s.tn} |`);
  }
  console.log(`misses (word evidence, no evidence = read): ${strict.misses.join('; ')}`);

  openApiReport(pct);
}

/** Method-only inference against method + name evidence, on the specs whose methods mislead. */
function openApiReport(pct) {
  console.log('\n## read/write inference on OpenAPI operations (truth: the method, except the operations SOURCE.md lists)');
  console.log('| spec | operations | writes | reading | precision | recall | misses |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const [api, file] of [['slack', 'slack.web-api.swagger2.json'], ['github', 'github.api.github.com.json']]) {
    const { catalog } = buildCatalog([join(CORPUS, 'openapi', file)]);
    const cases = catalog.tools.map((e) => {
      const http = e.value.providers?.find((p) => p.name === 'http')?.config ?? {};
      return { name: `${http.method} ${http.path}`, tool: e.value, writes: operationWrites(api, String(http.method), String(http.path)) };
    });
    const byMethod = score(cases, (c) => !['GET', 'HEAD', 'OPTIONS'].includes(String(c.tool.providers?.find((p) => p.name === 'http')?.config?.method).toUpperCase()));
    const withWords = score(cases, (c) => inferWrites(effectEvidence({ name: c.tool.name, ...(c.tool.id ? { id: c.tool.id } : {}), providers: c.tool.providers })) === 'write');
    for (const [label, s] of [['method only (what toolcap derives)', byMethod], ['method + name (honesty lint evidence)', withWords]]) {
      console.log(`| ${api} | ${cases.length} | ${cases.filter((c) => c.writes).length} | ${label} | ${pct(s.precision)} | ${pct(s.recall)} | ${s.misses.length ? s.misses.slice(0, 6).join('; ') + (s.misses.length > 6 ? ` (+${s.misses.length - 6})` : '') : 'none'} |`);
    }
  }
}

