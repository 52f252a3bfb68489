/**
 * The ranker's shortcuts (bound skipping, the penalty table's tighter bound,
 * strong matches first, the band search for the best match that passes,
 * pooled score arrays) change nothing: over the real corpora of the
 * retrieval bench (Seal-Tools, MetaTool, LiveMCPBench, the conversational
 * catalogs, and Seal-Tools copied three times, as the 100,000-tool bench
 * copies its catalog), the answer, its scores and its explanation are
 * identical to ranking every match the long way (`exhaustive: true`), with
 * and without filters, a given intent, task risk and weights.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript bench helpers
import { catalogNames, conversationalTasks, loadCatalog } from '../../bench/catalogs.mjs';
// @ts-expect-error: plain JavaScript bench helpers
import { datasets } from '../../bench/retrieval.mjs';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { explain } from '../../src/query/explain.js';
import { matchesFilter, type ToolFilter } from '../../src/query/filters.js';
import { rankTools, type RankOptions } from '../../src/query/rank.js';
import { buildCatalog, personaTools } from '../../src/registry/catalog.js';

interface Set {
  name: string;
  tools: Tool[];
  queries: string[];
}

type Record = { name: string; description: string; paramList: Array<[string, string]> };
const canonical = (records: Record[]): Tool[] =>
  records.map((t) => complete({ name: t.name, description: t.description, inputSchema: { type: 'object', properties: Object.fromEntries(t.paramList.map(([k, d]) => [k, { description: d }])) } }));
/** Every `step`-th of a list, at most `count`. */
const sample = <T>(list: readonly T[], count: number): T[] => list.filter((_, i) => i % Math.max(1, Math.floor(list.length / count)) === 0).slice(0, count);

const sets: Set[] = [];
const seen = new Map<string, Tool[]>();
for (const ds of datasets() as Array<{ name: string; tools: Record[]; queries: Array<{ q: string }> }>) {
  if (!/^(seal-tools test_in_domain|metatool held-out|livemcpbench tasks)$/.test(ds.name)) continue;
  const tools = seen.get(ds.name.split(' ')[0]!) ?? canonical(ds.tools);
  sets.push({ name: ds.name, tools, queries: sample(ds.queries.map((q) => q.q), 40) });
  if (ds.name.startsWith('seal-tools')) {
    // three copies of each tool, named and described apart as bench/scale.mjs does: many near-equal matches
    const copies = [0, 1, 2].flatMap((k) => ds.tools.map((t) => (k === 0 ? t : { ...t, name: `${t.name}_c${k}`, description: `${t.description} (copy ${k}, eu-west)` })));
    sets.push({ name: 'seal-tools x3', tools: canonical(copies), queries: sample(ds.queries.map((q) => q.q), 30) });
  }
}
for (const name of catalogNames() as string[]) {
  const tools = (await loadCatalog(name, { buildCatalog, personaTools })) as Tool[];
  const tasks = (conversationalTasks({ catalog: name }) as Array<{ task: string }>).map((t) => t.task);
  sets.push({ name: `conversational ${name}`, tools, queries: tasks });
}

const filter = (f: ToolFilter): RankOptions => ({ where: (t) => matchesFilter(t, f) });
const OPTIONS: Array<[string, RankOptions]> = [
  ['defaults', {}],
  ['mode read', filter({ mode: 'read' })],
  ['maxRisk low', filter({ maxRisk: 'low' })],
  ['no approval, limit 3', { ...filter({ approval: false }), limit: 3 }],
  ['intent write given', { intent: 'write' }],
  ['intent read given, maxRisk medium', { intent: 'read', ...filter({ maxRisk: 'medium' }) }],
  ['task risk 2, limit 25', { taskRisk: 2, limit: 25 }],
  ['weights changed', { weights: { fit: 60, write: 30, scope: 9 } }],
];

/** Everything an answer says, tools by name, numbers exact. */
const answer = (query: string, tools: Tool[], options: RankOptions) => {
  const ranking = rankTools(query, tools, options);
  return { explanation: explain(query, ranking), names: ranking.candidates.map((c) => [c.tool.name, c.score, c.fit]) };
};

describe.each(sets.map((s) => [s.name, s] as const))('%s: shortcuts give the exhaustive answer', (_, set) => {
  it.each(OPTIONS)('%s', (_, options) => {
    let ranked = 0;
    for (const query of set.queries) {
      const fast = answer(query, set.tools, options);
      expect(fast, query).toStrictEqual(answer(query, set.tools, { ...options, exhaustive: true }));
      if (fast.names.length > 0) ranked++;
    }
    // a silent catalog completes every tool to write and high risk: a read or low-risk filter may leave nothing to rank
    if (!options.where) expect(ranked).toBeGreaterThan(0);
  });
});

describe('pooled score arrays', () => {
  it('a query ranks the same whatever ran before it, on this index or another', () => {
    // a small catalog (a fresh index per query is cheap) and a big one
    const [a, b] = [sets.find((s) => s.name === 'conversational github-mcp')!, sets[0]!];
    // each against a fresh index (a new tool list gets its own index and pool), after every other query ran on the shared one
    for (const q of b.queries.slice(0, 10)) answer(q, b.tools, filter({ mode: 'write' }));
    for (const q of a.queries) answer(q, a.tools, {});
    for (const q of a.queries) expect(answer(q, a.tools, {}), q).toStrictEqual(answer(q, [...a.tools], {}));
  });

  it('a filter that ranks again while it runs (a nested query) changes neither answer', () => {
    const set = sets[0]!;
    const q = set.queries[0]!;
    const plain = answer(q, set.tools, filter({ mode: 'read' }));
    let inner: unknown;
    const nested = answer(q, set.tools, {
      where: (t) => {
        inner ??= answer(set.queries[1]!, set.tools, {});
        return matchesFilter(t, { mode: 'read' });
      },
    });
    expect(nested).toStrictEqual(plain);
    expect(inner).toStrictEqual(answer(set.queries[1]!, set.tools, {}));
  });
});
