/**
 * The ranker's shortcuts change nothing: skipping tools whose bound cannot
 * beat the current top, scoring strong matches first, and looking for the
 * best match that passes the filter band by band give the same top 10 as
 * ranking every match (a limit above the number of matches disables them).
 * Over real catalogs and the conversational task set's real tasks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../src/model/schema.js';
import { matchesFilter, type ToolFilter } from '../../src/query/filters.js';
import { rankTools, type RankOptions } from '../../src/query/rank.js';
import { buildCatalog, personaTools } from '../../src/registry/catalog.js';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
const TASKS = new URL('../../bench/tasks/conversational.jsonl', import.meta.url).pathname;
const catalogs: Record<string, Tool[]> = {
  github: personaTools(buildCatalog([`${CORPUS}mcp-github-server/tools.json`]).catalog),
  slack: personaTools(buildCatalog([{ path: `${CORPUS}openapi/slack.web-api.swagger2.json`, dialect: 'openapi' }]).catalog),
};
const tasks = readFileSync(TASKS, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { task: string }).task);

const FILTERS: Array<[string, ToolFilter | undefined]> = [
  ['no filter', undefined],
  ['mode read', { mode: 'read' }],
  ['mode write', { mode: 'write' }],
  ['maxRisk low', { maxRisk: 'low' }],
  ['no approval', { approval: false }],
];

const view = (options: RankOptions, task: string, tools: Tool[], limit: number) =>
  rankTools(task, tools, { ...options, limit }).candidates.map((c) => [c.tool.name, c.score.toFixed(6), c.fit.toFixed(6)].join(' '));

describe.each(Object.keys(catalogs))('%s: the top 10 equals the first 10 of every match ranked', (name) => {
  const tools = catalogs[name]!;
  it.each(FILTERS)('%s', (_, filter) => {
    const options: RankOptions = filter ? { where: (t) => matchesFilter(t, filter) } : {};
    let compared = 0;
    for (const task of tasks) {
      const all = view(options, task, tools, 100_000);
      expect(view(options, task, tools, 10), task).toEqual(all.slice(0, 10));
      if (all.length > 10) compared++;
    }
    expect(compared).toBeGreaterThan(20); // the shortcut had something to skip
  });

  it('fit is relative to the best match that passes the filter', () => {
    const where = (t: Tool) => matchesFilter(t, { mode: 'read' });
    let checked = 0;
    for (const task of tasks) {
      const ranked = rankTools(task, tools, { where, limit: 100_000 }).candidates;
      if (ranked.length === 0) continue;
      expect(Math.max(...ranked.map((c) => c.fit)), task).toBeCloseTo(1, 9);
      expect(ranked.every((c) => where(c.tool))).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('a negative weight turns the bound off and still ranks correctly', () => {
    const options: RankOptions = { weights: { write: -30 }, where: (t) => matchesFilter(t, { maxRisk: 'medium' }) };
    for (const task of tasks.slice(0, 60)) expect(view(options, task, tools, 10), task).toEqual(view(options, task, tools, 100_000).slice(0, 10));
  });
});
