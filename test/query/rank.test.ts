import { describe, expect, it } from 'vitest';
import { explainRanking } from '../../src/query/explain.js';
import { DEFAULT_RANK_WEIGHTS, queryIntent, rankTools } from '../../src/query/rank.js';
import { buildSearchIndex, search } from '../../src/query/search.js';
import { buildCatalog, personaTools } from '../../src/registry/catalog.js';
import { FIXTURE } from './fixture.js';

const TOOLS = FIXTURE.filter((t) => t.enabled !== false && !t.scope);
const first = (query: string) => rankTools(query, TOOLS).candidates[0]?.tool.name;
const writes = (name: string | undefined) => TOOLS.find((t) => t.name === name)?.effects?.mode !== 'read';

describe('queryIntent', () => {
  it.each([
    ['show the diff between my branch and main', 'read'],
    ['list my calendar events for tomorrow', 'read'],
    ['create a pull request for this branch', 'write'],
    ['delete the stale branch', 'write'],
    ['calendar', 'unknown'],
    ['tag issue 19 as a bug', 'write'],
  ])('%s -> %s', (query, intent) => {
    expect(queryIntent(query).intent).toBe(intent);
  });
});

describe('search', () => {
  it('weights the name above the parameters', () => {
    const hits = search(buildSearchIndex(TOOLS), 'branch');
    expect(hits.map((h) => h.tool.name).slice(0, 2).sort()).toEqual(['github.delete_branch', 'github.diff_branch']);
    expect(hits.at(-1)?.tool.name).toBe('github.create_pull_request'); // only in its parameters and description
  });

  it('finds nothing for words no tool has', () => {
    expect(search(buildSearchIndex(TOOLS), 'zebra quantum')).toEqual([]);
  });
});

describe('rankTools: read intent never puts a write tool first when a read tool fits', () => {
  it.each([
    ['show the diff of my branch', 'github.diff_branch'],
    ['compare the branch with its base', 'github.diff_branch'],
    ['list calendar events', 'calendar.list_events'],
    ['show my calendar events this week', 'calendar.list_events'],
    ['check the branch', 'github.diff_branch'],
  ])('%s -> %s', (query, expected) => {
    expect(queryIntent(query).intent).toBe('read');
    expect(first(query)).toBe(expected);
    expect(writes(first(query))).toBe(false);
  });
});

describe('rankTools: the read-intent guarantee, as documented', () => {
  const READ_QUERIES = [
    'show the diff of my branch', 'look at the pull request branch changes', 'list calendar events', 'find events to invite people to',
    'view the branch before deleting it', 'search the web for pull request etiquette', 'get the branch', 'read the calendar event title',
  ];
  it.each(READ_QUERIES)('%s: a read tool with fit > 0.5 and no cost, latency or risk penalty beats every write tool', (query) => {
    const { intent, candidates } = rankTools(query, TOOLS, { limit: 100 });
    expect(intent).toBe('read');
    const fitting = candidates.filter((c) => !writes(c.tool.name) && c.fit > 0.5 && c.penalties.length === 0);
    const firstWrite = candidates.findIndex((c) => writes(c.tool.name));
    for (const c of fitting) if (firstWrite >= 0) expect(candidates.indexOf(c)).toBeLessThan(firstWrite);
  });
});

describe('rankTools: write intent still finds its write tool', () => {
  it.each([
    ['create a pull request for my branch', 'github.create_pull_request'],
    ['open a pull request', 'github.create_pull_request'],
    ['create a calendar event', 'calendar.create_event'],
    ['schedule an event on my calendar', 'calendar.create_event'],
    ['delete the branch', 'github.delete_branch'],
  ])('%s -> %s', (query, expected) => {
    expect(first(query)).toBe(expected);
  });

  it('waives the write penalty under write intent, keeps approval and risk', () => {
    const top = rankTools('create a pull request', TOOLS).candidates[0];
    expect(top?.penalties.map((p) => p.code)).toEqual(['approval', 'risk']);
  });
});

describe('rankTools options', () => {
  it('weights are configurable: without penalties, fit alone decides', () => {
    const zero = Object.fromEntries(Object.keys(DEFAULT_RANK_WEIGHTS).map((k) => [k, k === 'fit' ? 100 : 0]));
    const ranking = rankTools('pull request branch', TOOLS, { weights: zero });
    expect(ranking.candidates.every((c) => c.score === c.fit * 100)).toBe(true);
  });

  it('where narrows candidates; limit caps them; ties break by name', () => {
    const ranking = rankTools('branch', TOOLS, { where: (t) => t.tags?.includes('github') ?? false, limit: 2 });
    expect(ranking.candidates).toHaveLength(2);
    expect(ranking.candidates.every((c) => c.tool.tags?.includes('github'))).toBe(true);
  });

  it('taskRisk multiplies the risk penalty', () => {
    const risk = (taskRisk: number) => rankTools('delete the branch', TOOLS, { taskRisk, intent: 'write' }).candidates.find((c) => c.tool.name === 'github.delete_branch')?.penalties.find((p) => p.code === 'risk')?.points;
    expect(risk(1)).toBe(10);
    expect(risk(3)).toBe(30);
  });
});

describe('explainRanking', () => {
  it('gives fit, every penalty with its reason, the score and the alternatives', () => {
    const explanation = explainRanking('show the web search results for a branch diff', TOOLS);
    expect(explanation).toMatchObject({ intent: 'read', confidence: 0.9, intentEvidence: ['verb: "show"'], weights: DEFAULT_RANK_WEIGHTS });
    for (const c of explanation.candidates) {
      expect(c.fit).toBeGreaterThan(0);
      expect(c.fit).toBeLessThanOrEqual(1);
      expect(c.score).toBeCloseTo(c.fit * 100 - c.penalties.reduce((s, p) => s + p.points, 0), 9);
      for (const p of c.penalties) expect(p.reason).not.toBe('');
    }
    const web = explanation.candidates.find((c) => c.name === 'web.search');
    expect(web?.penalties.map((p) => p.code).sort()).toEqual(['cost', 'slow']);
    const pr = explainRanking('pull request', TOOLS).candidates.find((c) => c.name === 'github.create_pull_request');
    expect(pr?.alternatives).toEqual(['github.diff_branch', 'github.draft_pr_summary']);
    expect(JSON.parse(JSON.stringify(explanation))).toEqual(explanation);
  });

  it('under read intent a write tool carries both the write and the intent penalty', () => {
    const del = explainRanking('show the branch', TOOLS).candidates.find((c) => c.name === 'github.delete_branch');
    expect(del?.penalties.map((p) => p.code)).toEqual(['write', 'intent', 'approval', 'irreversible', 'risk', 'destructive']);
  });
});

describe('over the example manifests', () => {
  const tools = personaTools(buildCatalog(['examples/manifests']).catalog);
  it.each([
    ['show the diff of my branch against main', 'github.diff_branch'],
    ['create a pull request for my branch', 'github.create_pull_request'],
    ['list open incidents', 'pagerduty.list_incidents'],
    ['trigger an incident', 'pagerduty.trigger_incident'],
    ['list calendar events', 'calendar_list_events'],
    ['create a calendar event', 'calendar_create_event'],
  ])('%s -> %s', (query, expected) => {
    expect(rankTools(query, tools).candidates[0]?.tool.name).toBe(expected);
  });
});
