/**
 * Safer ranking over real catalogs (the GitHub MCP server's 114 tools, the
 * Slack Web API): the least destructive tool that does the job first, list
 * before item for list tasks, alternatives used, ties by safety, and no
 * swamping of fit when the intent is unsure.
 */
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { DEFAULT_RANK_WEIGHTS, rankTools } from '../../src/query/rank.js';
import { safetyScale } from '../../src/query/penalties.js';
import { toolSignals } from '../../src/query/tool-signals.js';
import { buildCatalog, personaTools } from '../../src/registry/catalog.js';
import { FIXTURE } from './fixture.js';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
const github = personaTools(buildCatalog([`${CORPUS}mcp-github-server/tools.json`]).catalog);
const slack = personaTools(buildCatalog([{ path: `${CORPUS}openapi/slack.web-api.swagger2.json`, dialect: 'openapi' }]).catalog);
const first = (task: string, tools: readonly Tool[]) => rankTools(task, tools, { limit: 5 }).candidates[0]?.tool.name;

describe('the least destructive tool that does the job', () => {
  it.each([
    ['close issue 12', 'update_issue_state'],
    ['change the title of issue 12', 'update_issue_title'],
    ['delete the file docs/a.md', 'delete_file'],
  ])('github: %s -> %s', (task, expected) => {
    expect(first(task, github)).toBe(expected);
  });

  it.each([
    ["don't delete #old-project, just archive it", ['admin_conversations_archive', 'conversations_archive']],
    ['archive #old-project', ['admin_conversations_archive', 'conversations_archive']],
    ['get rid of the #old-project channel', ['admin_usergroups_remove_channels', 'admin_conversations_delete']],
  ])('slack: %s -> one of %j', (task, expected) => {
    expect(expected).toContain(first(task, slack));
  });

  it('a ruled-out verb costs its tools the avoid penalty; destroying costs only when not asked for', () => {
    const ruled = rankTools("don't delete #old-project, just archive it", slack, { limit: 50 }).candidates.find((c) => c.tool.name === 'admin_conversations_delete');
    expect(ruled?.penalties.map((p) => p.code)).toEqual(expect.arrayContaining(['avoid', 'destructive']));
    const asked = rankTools('delete the #old-project channel', slack, { limit: 50 }).candidates.find((c) => c.tool.name === 'admin_conversations_delete');
    expect(asked?.penalties.map((p) => p.code)).not.toContain('destructive');
  });
});

describe('list before item for list tasks, item before list for a named item', () => {
  it.each([
    ['which branches do we have in acme/web?', 'list_branches'],
    ['show me issue 4512 in acme/widgets', 'issue_read'],
  ])('github: %s -> %s', (task, expected) => {
    expect(rankTools(task, github, { limit: 3 }).candidates.map((c) => c.tool.name)).toContain(expected);
  });

  it.each([
    ['list_branches', 'list'],
    ['search_issues', 'list'],
    ['issue_read', 'item'],
    ['get_file_contents', 'list'],
    ['get_commit', 'item'],
  ])('tool signals: %s is %s', (name, cardinality) => {
    const tool = github.find((t) => t.name === name);
    expect(tool && toolSignals(tool).cardinality).toBe(cardinality);
  });
});

describe('alternatives and ties', () => {
  const tools = FIXTURE.filter((t) => t.enabled !== false && !t.scope);

  it("a manifest's alternatives inherit part of the fit: under an unsure intent the safer one goes first", () => {
    const ranking = rankTools('pull request for my branch', tools, { limit: 5 });
    expect(ranking.intent).toBe('unknown');
    const alt = ranking.candidates.find((c) => c.tool.name === 'github.diff_branch');
    expect(alt?.alternativeTo).toBe('github.create_pull_request');
    expect(ranking.candidates[0]?.tool.name).toBe('github.diff_branch');
    // a sure write still gets its write tool
    expect(rankTools('open a pull request for my branch', tools, { limit: 5 }).candidates[0]?.tool.name).toBe('github.create_pull_request');
  });

  // a write tool at fit 1 paying 10 points and its read alternative inheriting 0.9 of its fit score 90 each; the
  // inherited fit, 0.9 × raw ÷ raw, comes out at 0.9 or a digit below it as the raw score goes
  describe('scores equal but for float noise go to the safer tool, whatever the bound skips', () => {
    const weights = { ...Object.fromEntries(Object.keys(DEFAULT_RANK_WEIGHTS).map((k) => [k, 0])), fit: 100, write: 10 };
    const tools = [
      complete({ name: 'export_data', description: 'Export data', effects: { mode: 'write', sideEffects: 'write' }, alternatives: ['preview_data'] }),
      complete({ name: 'preview_data', description: 'Show a preview', effects: { mode: 'read', sideEffects: 'none' } }),
    ];
    it.each([
      ['export data', 'exactly 90', 1],
      ['export sales', 'a digit below 90', 1],
      ['export sales', 'a digit below 90', 10],
      ['export the invoices of march', 'a digit below 90', 1],
      ['export everything', 'a digit below 90', 10],
    ])('%s (the alternative scores %s), limit %i', (task, noise, limit) => {
      const scores = rankTools(task, tools, { weights, intent: 'read', limit: 10, exhaustive: true }).candidates.map((c) => c.score);
      expect(scores[0] === 90 && scores[1] === 90).toBe(noise === 'exactly 90');
      expect(scores).toEqual([expect.closeTo(90, 9), expect.closeTo(90, 9)]);
      for (const exhaustive of [false, true]) {
        expect(rankTools(task, tools, { weights, intent: 'read', limit, exhaustive }).candidates[0]?.tool.name).toBe('preview_data');
      }
    });
  });

  it('equal scores and penalties go to the better match, never to the earlier name', () => {
    const make = (name: string, description: string) => complete({ name, description, effects: { mode: 'read', sideEffects: 'none' } });
    const zero = Object.fromEntries(Object.keys(DEFAULT_RANK_WEIGHTS).map((k) => [k, 0]));
    const ranking = rankTools('weekly sales report', [make('a_report', 'A report'), make('b_report', 'The weekly sales report')], { weights: zero });
    expect(ranking.candidates.every((c) => c.score === 0)).toBe(true);
    expect(ranking.candidates.map((c) => c.tool.name)).toEqual(['b_report', 'a_report']);
  });
});

describe('an unsure intent does not let penalties swamp fit', () => {
  it('unknown intent scales the safety penalties to 40%', () => {
    expect(safetyScale('unknown', 0)).toBe(0.4);
    expect(safetyScale('read', 1)).toBe(1);
    expect(safetyScale('write', 0.5)).toBeCloseTo(0.7);
  });

  it('a write tool that fits perfectly beats a read tool fitting half as well when the intent is unknown', () => {
    const ranking = rankTools('update_issue_title issue 12', github, { limit: 5, intent: 'unknown' });
    expect(ranking.candidates[0]?.tool.name).toBe('update_issue_title');
    const sure = rankTools('update_issue_title issue 12', github, { limit: 5, intent: 'read' });
    expect(sure.candidates[0]?.tool.effects?.mode).toBe('read');
  });
});
