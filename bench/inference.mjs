// Issue 3: how well does toolcap's read/write inference find the tools that write?
// Ground truth: API-Bank's own side-effect labels (apis.jsonl, see its SOURCE.md), and
// the OpenAPI specs' methods with the exceptions listed in corpus/openapi/SOURCE.md.
import { effectEvidence, inferWrites } from '../dist/model/evidence.js';
import { apiBankCases, score } from './corpus.mjs';

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
}
