// The vocabulary bridge and prefix/fuzzy fallback, measured: hit@1 and
// nDCG@10 of toolcap `search` on every retrieval set of bench/retrieval.mjs,
// with MetaTool cut into the bridge's split (train / tune / held-out, see
// scripts/build-vocabulary.mjs), for each matching variant side by side.
//
//   npm run build --silent && node scripts/eval-vocabulary.mjs [--vocab=file.json] [--sets=tune|report|all] [--factor=0.35]
//
// Tune on "metatool tune" (and Seal-Tools dev, which the bridge also learns
// from); report held-out, Seal-Tools test, LiveMCPBench and Gorilla.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { datasets, metrics } from '../bench/retrieval.mjs';
import { metatoolSplit } from './build-vocabulary.mjs';

const ROOT = new URL('..', import.meta.url);
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

const { buildSearchIndex, search } = await import(new URL('dist/query/search.js', ROOT).href);
const { complete } = await import(new URL('dist/model/derive.js', ROOT).href);
const { loadVocabulary, defaultVocabulary } = await import(new URL('dist/query/vocabulary.js', ROOT).href);

const vocabulary = arg('vocab') ? loadVocabulary(pathToFileURL(resolve(arg('vocab')))) : defaultVocabulary();
if (vocabulary.warning) console.warn(vocabulary.warning);
const factor = arg('factor') ? Number(arg('factor')) : undefined;
const limits = arg('limits') ? { perTerm: Number(arg('limits').split(',')[0]), perQuery: Number(arg('limits').split(',')[1]) } : undefined;
const which = arg('sets') ?? 'all';

/** The evaluation sets, MetaTool cut by the bridge's split. */
function sets() {
  const out = [];
  for (const ds of datasets()) {
    if (ds.name.startsWith('metatool') && ds.name !== 'metatool single') continue; // cut here from the whole set
    if (ds.name === 'metatool single') {
      for (const split of ['tune', 'held-out']) out.push({ ...ds, name: `metatool ${split}`, tune: split === 'tune', queries: ds.queries.filter((q) => metatoolSplit(q.q) === split) });
    } else out.push(ds);
  }
  return out.filter((ds) => which === 'all' || (which === 'tune') === Boolean(ds.tune));
}

const VARIANTS = {
  before: { vocabulary: false, fallback: false },
  bridge: { vocabulary, fallback: false, ...(factor === undefined ? {} : { bridgeFactor: factor }), ...(limits === undefined ? {} : { bridgeLimits: limits }) },
  fallback: { vocabulary: false, fallback: true },
  both: { vocabulary, fallback: true, ...(factor === undefined ? {} : { bridgeFactor: factor }), ...(limits === undefined ? {} : { bridgeLimits: limits }) },
};

/** The same records as canonical tools (as bench/retrieval.mjs does). */
function indexOf(tools) {
  const seen = new Set();
  const canonical = tools
    .filter((t) => !seen.has(t.id) && seen.add(t.id))
    .map((t) => complete({ name: t.id, description: t.description, inputSchema: { type: 'object', properties: Object.fromEntries(t.paramList.map(([k, d]) => [k, { description: d }])) } }));
  return buildSearchIndex(canonical);
}

const chosen = arg('variants')?.split(',');
for (const v of Object.keys(VARIANTS)) if (chosen && !chosen.includes(v)) delete VARIANTS[v];

console.log(`| set | queries | ${Object.keys(VARIANTS).map((v) => `${v} hit@1 / nDCG@10`).join(' | ')} | empty before -> after |`);
console.log(`| --- | --- | ${Object.keys(VARIANTS).map(() => '---').join(' | ')} | --- |`);
for (const ds of sets()) {
  const index = indexOf(ds.tools);
  const cells = [];
  const empty = {};
  for (const [name, options] of Object.entries(VARIANTS)) {
    let hit = 0;
    let ndcg = 0;
    let none = 0;
    for (const { q, gold } of ds.queries) {
      const ranked = search(index, q, { ...options, limit: 10 }).map((h) => h.tool.name);
      if (ranked.length === 0) none++;
      if (gold.has(ranked[0])) hit++;
      ndcg += metrics(ranked, gold).ndcg;
    }
    const n = ds.queries.length;
    empty[name] = none;
    cells.push(`${(hit / n).toFixed(3)} / ${(ndcg / n).toFixed(3)}`);
  }
  console.log(`| ${ds.name}${ds.tune ? ' (tune)' : ''} | ${ds.queries.length} | ${cells.join(' | ')} | ${empty.before ?? '-'} -> ${empty.both ?? '-'} |`);
}
