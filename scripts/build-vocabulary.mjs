// `npm run vocabulary`: learn the vocabulary bridge (a person's word -> the
// catalog's word) from real query-tool pairs in ../shared/corpus, and write
// data/vocabulary.json. Deterministic: the same corpus and the same tokenizer
// give a byte-identical file. Training and dev data only (docs/vocabulary.md):
// MetaTool's train slice, Seal-Tools dev, API-Bank dialogues, BFCL v4
// single-turn entries. Never Seal-Tools test, LiveMCPBench, Gorilla or bench/tasks.
//
// Method: for every pair, Q = the query's index terms and T = the tool's
// (name + description); every q in Q\T and t in T\Q co-occur once. An
// association q -> t is kept when it is seen often enough (count), with enough
// different tools (so one plugin's brand words are not memorised) and well
// above chance (lift over the rate of t in the same source's tools); its
// weight is the normalised PMI of q and t against that chance, in (0, 1].
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CORPUS = process.env.TOOLCAP_CORPUS ?? join(ROOT, '..', 'shared', 'corpus');
export const OUTPUT = join(ROOT, 'data', 'vocabulary.json');

/** A fixed sentence whose terms identify the tokenizer the file was built with. */
export const TOKENIZER_PROBE =
  "Which of our users' newest pictures weren't listed? Don't delete us: createPullRequest, get_issue_comments, api.github.com/v2/repos on 2024-01-05, id 7890, showing 3 stopped queries, analysis status";

/** Build parameters (recorded in the file). */
export const PARAMETERS = {
  /** Pairs in which q and t must co-occur. */
  minCount: 3,
  /** Different tools the pairs must name. */
  minTools: 2,
  /** Associations seen in one source only need this many different tools instead. */
  minToolsOneSource: 3,
  /** Co-occurrences at least this many times what chance gives (per source). */
  minLift: 4,
  /** Normalised PMI at least this (the weight). */
  minWeight: 0.15,
  /** Targets kept per source term, best first. */
  maxTargets: 6,
  /** Source terms seen in fewer pairs than this are not keys. */
  minTermPairs: 3,
};

/**
 * MetaTool's deterministic split by the query's text: sha256, first 4 bytes as
 * an unsigned integer, modulo 100: 0-69 train (the bridge learns from these),
 * 70-79 tune, 80-99 held-out (never learned from or tuned on).
 * @param {string} query
 * @returns {'train' | 'tune' | 'held-out'}
 */
export function metatoolSplit(query) {
  const bucket = createHash('sha256').update(query, 'utf8').digest().readUInt32BE(0) % 100;
  return bucket < 70 ? 'train' : bucket < 80 ? 'tune' : 'held-out';
}

/**
 * LiveMCPBench's deterministic dev/test split by the task's question: sha256,
 * first 4 bytes as an unsigned integer, modulo 100: 0-49 dev (the ranker may
 * be tuned on these), 50-99 test (never tuned on). The bridge learns from
 * neither.
 * @param {string} question
 * @returns {'dev' | 'test'}
 */
export function livemcpSplit(question) {
  return createHash('sha256').update(question, 'utf8').digest().readUInt32BE(0) % 100 < 50 ? 'dev' : 'test';
}

const jsonl = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));

/** Rows of a CSV file with a header, as [query, tool] (quoted fields may hold commas, quotes, newlines). */
export function metatoolRows(path = join(CORPUS, 'metatool/all_clean_data.csv')) {
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

/** MetaTool: train-slice queries -> their plugin (name + description). */
function metatool() {
  const plugins = JSON.parse(readFileSync(join(CORPUS, 'metatool/plugin_des.json'), 'utf8'));
  return metatoolRows()
    .filter(([q, tool]) => metatoolSplit(q) === 'train' && tool in plugins)
    .map(([q, tool]) => ({ query: q, tool, name: tool, description: plugins[tool] }));
}

/** Seal-Tools dev: query -> every tool it calls. */
function sealTools() {
  const tools = new Map(jsonl(join(CORPUS, 'seal-tools/tool.jsonl')).map((r) => [r.api_name, r.api_description ?? '']));
  const out = [];
  for (const r of jsonl(join(CORPUS, 'seal-tools/dev.jsonl'))) {
    for (const api of new Set(r.calling.map((c) => c.api))) if (tools.has(api)) out.push({ query: r.query, tool: api, name: api, description: tools.get(api) });
  }
  return out;
}

/**
 * API-Bank dialogues: the user's words since the last API call -> the API
 * called (ToolSearcher, the level-2 retrieval step, is not a tool here and
 * does not end a segment).
 */
function apiBank() {
  const apis = new Map(jsonl(join(CORPUS, 'api-bank/apis.jsonl')).map((r) => [r.class_name, r.description ?? '']));
  const out = [];
  for (const d of jsonl(join(CORPUS, 'api-bank/dialogues.jsonl'))) {
    let said = [];
    let last = '';
    for (const turn of d.turns) {
      if (turn.role === 'User') said.push(turn.text);
      if (turn.role !== 'API' || turn.api_name === 'ToolSearcher' || !apis.has(turn.api_name)) continue;
      if (said.length > 0) (last = said.join(' ')), (said = []);
      if (last !== '') out.push({ query: last, tool: turn.api_name, name: turn.api_name, description: apis.get(turn.api_name) });
    }
  }
  return out;
}

/** BFCL v4 single-turn categories with gold answers (not multi-turn, not irrelevance). */
export const BFCL_FILES = ['simple_python', 'simple_java', 'simple_javascript', 'multiple', 'parallel', 'parallel_multiple', 'live_simple', 'live_multiple', 'live_parallel', 'live_parallel_multiple'];

/** BFCL v4 single-turn: the user's words -> each gold function's name + description. */
function bfcl() {
  const out = [];
  for (const file of BFCL_FILES) {
    const gold = new Map(jsonl(join(CORPUS, `bfcl-v4/possible_answer/BFCL_v4_${file}.jsonl`)).map((r) => [r.id, r.ground_truth]));
    for (const e of jsonl(join(CORPUS, `bfcl-v4/BFCL_v4_${file}.jsonl`))) {
      const query = e.question.flat().filter((m) => m.role === 'user').map((m) => m.content).join(' ');
      const docs = new Map(e.function.map((f) => [f.name, f.description ?? '']));
      const names = new Set((gold.get(e.id) ?? []).flatMap((call) => Object.keys(call)));
      for (const name of names) if (docs.has(name)) out.push({ query, tool: name, name, description: docs.get(name) });
    }
  }
  return out;
}

/** The sources, by short code (recorded per association). */
export const SOURCES = {
  mt: { name: 'MetaTool', files: 'metatool/all_clean_data.csv, metatool/plugin_des.json', license: 'MIT', split: 'train slice (70% by query hash)', read: metatool },
  st: { name: 'Seal-Tools', files: 'seal-tools/dev.jsonl, seal-tools/tool.jsonl', license: 'Apache-2.0', split: 'dev', read: sealTools },
  ab: { name: 'API-Bank', files: 'api-bank/dialogues.jsonl, api-bank/apis.jsonl', license: 'Apache-2.0', split: 'level-1 and level-2 dialogues', read: apiBank },
  bf: { name: 'BFCL v4', files: BFCL_FILES.map((f) => `bfcl-v4/BFCL_v4_${f}.jsonl`).join(', '), license: 'Apache-2.0', split: 'single-turn with gold answers', read: bfcl },
};

/** A term worth bridging: a word, not a number or an id fragment. */
const usable = (term, tokenize) => term.length >= 2 && !/\d/.test(term) && tokenize(term).length === 1 && tokenize(term)[0] === term;

/**
 * Count co-occurrences over every pair and keep the associations that pass
 * the parameters. Chance is reckoned per source (a word in every tool of one
 * data set, like API-Bank's "takes two parameters", is no evidence), and the
 * weight is the normalised PMI of q and t against that chance.
 * Returns `{ associations, pairs, total }`.
 */
export function learn(pairsBySource, tokenize, parameters = PARAMETERS) {
  const fixed = new Map();
  const ok = (t) => {
    let v = fixed.get(t);
    if (v === undefined) fixed.set(t, (v = usable(t, tokenize)));
    return v;
  };
  const terms = (text) => new Set(tokenize(text).filter(ok));
  const bump = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
  const pairCount = new Map(); // q -> pairs whose query has q
  const needing = new Map(); // source -> q -> pairs whose query has q and whose tool does not
  const rate = new Map(); // source -> t -> share of the source's pairs whose tool has t
  const co = new Map(); // q -> t -> { n, tools: Set, sources: Set }
  let total = 0;
  const pairs = {};
  for (const [code, list] of pairsBySource) {
    pairs[code] = list.length;
    const toolTerms = new Map();
    const need = new Map();
    const has = new Map();
    needing.set(code, need);
    for (const { query, tool, name, description } of list) {
      total++;
      let T = toolTerms.get(tool);
      if (!T) toolTerms.set(tool, (T = terms(`${name} ${description}`)));
      const Q = terms(query);
      for (const t of T) bump(has, t);
      for (const q of Q) {
        bump(pairCount, q);
        if (T.has(q)) continue;
        bump(need, q);
        let row = co.get(q);
        if (!row) co.set(q, (row = new Map()));
        for (const t of T) {
          if (Q.has(t)) continue;
          let cell = row.get(t);
          if (!cell) row.set(t, (cell = { n: 0, tools: new Set(), sources: new Set() }));
          cell.n++;
          cell.tools.add(`${code}:${tool}`);
          cell.sources.add(code);
        }
      }
    }
    rate.set(code, new Map([...has].map(([t, n]) => [t, n / list.length])));
  }
  const associations = {};
  for (const q of [...co.keys()].sort()) {
    const nq = pairCount.get(q);
    if (nq < parameters.minTermPairs) continue;
    const kept = [];
    for (const [t, cell] of co.get(q)) {
      if (cell.n < parameters.minCount) continue;
      if (cell.tools.size < (cell.sources.size >= 2 ? parameters.minTools : parameters.minToolsOneSource)) continue;
      // chance: each pair that needed a bridge for q, at the rate t appears in its own source's tools
      let expected = 0;
      for (const [code, need] of needing) expected += (need.get(q) ?? 0) * (rate.get(code).get(t) ?? 0);
      if (cell.n < parameters.minLift * expected) continue;
      // normalised PMI: log(observed / chance) over -log P(q, t); 1 when q and t always go together
      const weight = Math.round(Math.min(1, Math.log(cell.n / expected) / -Math.log(cell.n / total)) * 1000) / 1000;
      if (weight < parameters.minWeight) continue;
      kept.push([t, weight, [...cell.sources].sort().join('+')]);
    }
    kept.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    if (kept.length > 0) associations[q] = kept.slice(0, parameters.maxTargets);
  }
  return { associations, pairs, total };
}

/** The file's text: one source term a line, so a rebuild's diff is readable. */
export function render(document) {
  const { associations, ...head } = document;
  const lines = Object.keys(associations).map((q) => `    ${JSON.stringify(q)}: ${JSON.stringify(associations[q])}`);
  const headText = JSON.stringify(head, null, 2).replace(/\n}$/, '');
  return `${headText},\n  "associations": {\n${lines.join(',\n')}\n  }\n}\n`;
}

export async function main(argv = process.argv.slice(2)) {
  const { tokenize } = await import(pathToFileURL(join(ROOT, 'dist/query/tokenize.js')).href);
  const only = argv.find((a) => a.startsWith('--sources='))?.slice('--sources='.length).split(',');
  const codes = Object.keys(SOURCES).filter((c) => !only || only.includes(c));
  const pairsBySource = codes.map((c) => [c, SOURCES[c].read()]);
  // --set=minLift=3,maxTargets=8: try other parameters (the file records the ones used)
  const overrides = argv.find((a) => a.startsWith('--set='))?.slice('--set='.length).split(',').map((kv) => kv.split('=')) ?? [];
  const parameters = { ...PARAMETERS, ...Object.fromEntries(overrides.map(([k, v]) => [k, Number(v)])) };
  const { associations, pairs, total } = learn(pairsBySource, tokenize, parameters);
  const targets = Object.values(associations).reduce((s, l) => s + l.length, 0);
  const document = {
    version: 1,
    about: 'toolcap vocabulary bridge: query term -> [catalog term, weight in (0,1], sources]. Built by scripts/build-vocabulary.mjs; see docs/vocabulary.md.',
    tokenizer: { probe: TOKENIZER_PROBE, terms: tokenize(TOKENIZER_PROBE) },
    split: { metatool: 'sha256(query text), first 4 bytes big-endian mod 100: 0-69 train, 70-79 tune, 80-99 held-out' },
    sources: Object.fromEntries(codes.map((c) => [c, { name: SOURCES[c].name, files: SOURCES[c].files, license: SOURCES[c].license, split: SOURCES[c].split, pairs: pairs[c] }])),
    parameters,
    counts: { pairs: total, terms: Object.keys(associations).length, associations: targets },
    associations,
  };
  const text = render(document);
  const out = argv.find((a) => a.startsWith('--out='))?.slice('--out='.length) ?? OUTPUT;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(`${out}: ${Object.keys(associations).length} terms, ${targets} associations from ${total} pairs (${codes.map((c) => `${c} ${pairs[c]}`).join(', ')}); ${(text.length / 1024).toFixed(1)} KB`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
