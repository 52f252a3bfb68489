// Retrieval quality on the corpus's gold-labelled query sets: nDCG@10 and
// recall@5 of a ranker against MiniSearch's default BM25 over the same tools,
// in one run. The ranker is toolcap's when dist/query exists (issue 4), so this
// file is the harness the ranking work plugs into.
//
// Splits: Seal-Tools has dev (tune here) and two test splits (report);
// MetaTool, LiveMCPBench and Gorilla have no dev split, so they are reported
// whole and nothing may be tuned on them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { CORPUS } from './corpus.mjs';

const jsonl = (path) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
/** Rows of a CSV file with a header: quoted fields may hold commas, doubled quotes and newlines. */
function csvRows(path) {
  const text = readFileSync(path, 'utf8');
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n') row.push(field), rows.push(row), (row = []), (field = '');
    else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length > 0) row.push(field), rows.push(row);
  return rows.slice(1).filter((r) => r.length >= 2).map((r) => [r.slice(0, -1).join(','), r[r.length - 1].trim()]);
}

/** Parameters as [name, description] pairs, and as one string for full-text baselines. */
const withParams = (pairs) => ({ paramList: pairs, params: pairs.map(([k, d]) => `${k} ${d}`).join(' ') });

/** Every evaluation set: tools as {id, name, description, params} and queries as {q, gold: Set<id>}. */
export function datasets() {
  const out = [];
  const seal = jsonl(join(CORPUS, 'seal-tools/tool.jsonl')).map((r) => ({
    id: r.api_name,
    name: r.api_name,
    description: r.api_description ?? '',
    ...withParams(Object.entries(r.parameters ?? {}).map(([k, v]) => [k, v?.description ?? ''])),
  }));
  for (const split of ['dev', 'test_in_domain', 'test_out_domain']) {
    const queries = jsonl(join(CORPUS, `seal-tools/${split}.jsonl`)).map((r) => ({ q: r.query, gold: new Set(r.calling.map((c) => c.api)) }));
    out.push({ name: `seal-tools ${split}`, tune: split === 'dev', tools: seal, queries });
  }
  const plugins = JSON.parse(readFileSync(join(CORPUS, 'metatool/plugin_des.json'), 'utf8'));
  out.push({
    name: 'metatool single',
    tools: Object.entries(plugins).map(([id, description]) => ({ id, name: id, description, ...withParams([]) })),
    queries: csvRows(join(CORPUS, 'metatool/all_clean_data.csv')).map(([q, tool]) => ({ q, gold: new Set([tool]) })),
  });
  const live = [];
  for (const server of JSON.parse(readFileSync(join(CORPUS, 'livemcpbench/tools.json'), 'utf8'))) {
    for (const entry of Object.values(server.tools ?? {})) {
      for (const t of entry.tools ?? []) {
        live.push({ id: t.name, name: t.name, description: t.description ?? '', ...withParams(Object.entries(t.inputSchema?.properties ?? {}).map(([k, v]) => [k, v?.description ?? ''])) });
      }
    }
  }
  const liveNames = new Set(live.map((t) => t.id));
  const tasks = JSON.parse(readFileSync(join(CORPUS, 'livemcpbench/tasks.json'), 'utf8')).map((t) => ({
    q: t.Question,
    gold: new Set(String(t['Annotator Metadata']?.Tools ?? '').split('\n').map((l) => l.replace(/^\s*\d+\.\s*/, '').trim()).filter((n) => liveNames.has(n))),
  }));
  out.push({ name: 'livemcpbench tasks', tools: live, queries: tasks.filter((t) => t.gold.size > 0) });
  for (const set of ['torchhub', 'tensorflowhub']) {
    const apis = jsonl(join(CORPUS, `gorilla-apibench/${set}_api.jsonl`)).map((r, i) => ({
      id: `${set}_api_${i}`,
      name: r.api_name ?? '',
      description: [r.domain, r.functionality, r.description].filter(Boolean).join('. '),
      ...withParams([]),
    }));
    const queries = jsonl(join(CORPUS, `gorilla-apibench/${set}_queries.jsonl`)).map((r) => ({ q: r.query, gold: new Set(r.gold_api_ids) }));
    out.push({ name: `gorilla ${set}`, tools: apis, queries });
  }
  return out;
}

/** nDCG@k with binary relevance, and recall@k, averaged over queries. */
export function metrics(ranked, gold, k = 10, r = 5) {
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (gold.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, gold.size); i++) ideal += 1 / Math.log2(i + 2);
  const found = ranked.slice(0, r).filter((id) => gold.has(id)).length;
  return { ndcg: ideal > 0 ? dcg / ideal : 0, recall: gold.size > 0 ? found / gold.size : 0 };
}

/** MiniSearch with its defaults (BM25), over the same fields a tool has. */
export function miniSearchRanker(tools) {
  const ms = new MiniSearch({ fields: ['name', 'description', 'params'], idField: 'id' });
  // duplicate ids (13 LiveMCPBench names recur across servers) are indexed once
  const seen = new Set();
  ms.addAll(tools.filter((t) => !seen.has(t.id) && seen.add(t.id)));
  return (q) => ms.search(q).map((hit) => hit.id);
}

export function evaluate(dataset, makeRanker) {
  const rankFor = makeRanker(dataset.tools);
  let ndcg = 0;
  let recall = 0;
  for (const { q, gold } of dataset.queries) {
    const m = metrics(rankFor(q), gold);
    ndcg += m.ndcg;
    recall += m.recall;
  }
  const n = dataset.queries.length;
  return { ndcg: ndcg / n, recall: recall / n, queries: n };
}

export async function run() {
  const rankers = [['MiniSearch BM25 (baseline)', miniSearchRanker]];
  const searchModule = new URL('../dist/query/search.js', import.meta.url);
  if (existsSync(searchModule)) {
    const { buildSearchIndex, search } = await import(searchModule.href);
    const { complete } = await import(new URL('../dist/model/derive.js', import.meta.url).href);
    rankers.push([
      'toolcap search',
      (tools) => {
        // the same records as canonical tools: name, description, parameter names and descriptions
        const seen = new Set();
        const canonical = tools
          .filter((t) => !seen.has(t.id) && seen.add(t.id))
          .map((t) => complete({ name: t.id, description: t.description, inputSchema: { type: 'object', properties: Object.fromEntries(t.paramList.map(([k, d]) => [k, { description: d }])) } }));
        const index = buildSearchIndex(canonical);
        return (q) => search(index, q, { limit: 10 }).map((hit) => hit.tool.name);
      },
    ]);
  }
  console.log('\n## retrieval quality (nDCG@10 / recall@5; gold labels from the corpus)');
  console.log(`| set | queries | tools | ${rankers.map(([n]) => n).join(' | ')} |`);
  console.log(`| --- | --- | --- | ${rankers.map(() => '---').join(' | ')} |`);
  for (const ds of datasets()) {
    const cells = rankers.map(([, make]) => {
      const m = evaluate(ds, make);
      return `${m.ndcg.toFixed(3)} / ${m.recall.toFixed(3)}`;
    });
    console.log(`| ${ds.name}${ds.tune ? ' (tuning split)' : ''} | ${ds.queries.length} | ${ds.tools.length} | ${cells.join(' | ')} |`);
  }
  if (rankers.length === 1) console.log('(toolcap\'s ranker is not built yet: only the baseline is shown)');
}
