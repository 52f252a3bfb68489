/**
 * Read questions over a catalog silent on effects (ToolEmu: every tool is
 * loaded as a conservative write): history questions ("did Amy reply…?")
 * do not ask for the write their verb names, name verbs the evidence lists
 * lack ("manage", "input", "place") still say write, and under a read task
 * only a tool named after a write pays the penalties derived from silence.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { DEFAULT_RANK_WEIGHTS, rankTools } from '../../src/query/rank.js';
import { penaltiesOf } from '../../src/query/penalties.js';
import { nameVerdict, toolkitPrefixes, toolSignals } from '../../src/query/tool-signals.js';
import { understand } from '../../src/query/understand.js';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toLowerCase();
const toolemu: Tool[] = (JSON.parse(readFileSync(`${CORPUS}toolemu/all_toolkits.json`, 'utf8')) as Array<{ name_for_model: string; tools: Array<{ name: string; summary: string }> }>).flatMap((kit) =>
  kit.tools.map((t) => complete({ name: `${snake(kit.name_for_model)}_${snake(t.name)}`, description: t.summary })),
);
const prefixes = toolkitPrefixes(toolemu);
const signalsOf = (name: string) => {
  const i = toolemu.findIndex((t) => t.name === name);
  expect(i, `${name} is in the catalog`).toBeGreaterThanOrEqual(0);
  return { tool: toolemu[i]!, signals: toolSignals(toolemu[i]!, prefixes[i]) };
};

describe('history questions', () => {
  it.each([
    ['did Amy reply about the lease?', 'reply'],
    ['did Sam ever pay me back for dinner?', 'pay'],
    ['has Jo already booked the hotel?', 'booked'],
  ])('%s: a read, "%s" matched weakly', (task, verb) => {
    const u = understand(task);
    expect(u.intent).toBe('read');
    expect(u.weak.split(' ')).toContain(verb);
    expect(u.content.split(' ')).not.toContain(verb);
  });

  it('a verb-or-noun after a determiner is the subject, not the history ("did the text go out?")', () => {
    expect(understand('did the text to the customer go out?').weak.split(' ')).not.toContain('text');
  });

  it('a request is not a history question ("reply to Amy about the lease")', () => {
    const u = understand('reply to Amy about the lease');
    expect(u.intent).toBe('write');
    expect(u.content.split(' ')).toContain('reply');
  });
});

describe('name verbs the evidence lists lack', () => {
  it.each(['manage', 'input', 'place', 'trade', 'handle', 'redirect', 'play'])('%s writes', (verb) => {
    expect(nameVerdict(verb)).toBe('write');
  });

  it.each([
    ['epic_fhir_manage_appointments', 'write'],
    ['web_browser_input_text', 'write'],
    ['amazon_place_order', 'write'],
    ['amazon_search_order_history', 'read'],
  ] as const)('%s says %s', (name, says) => {
    expect(signalsOf(name).signals.verbsSay).toBe(says);
  });
});

describe('a read-named tool of a silent catalog under a read task', () => {
  const ctx = (intent: 'read' | 'write') => ({ intent, confidence: 0.8, destroys: false, scope: 'unknown' as const, avoid: [], weights: DEFAULT_RANK_WEIGHTS, taskRisk: 1, steps: 1 });

  it('pays none of the penalties derived from silence; a write-named tool still pays them and the verb', () => {
    const read = signalsOf('amazon_search_order_history');
    expect(penaltiesOf(read.tool, ctx('read'), read.signals)).toEqual([]);
    const write = signalsOf('amazon_place_order');
    expect(penaltiesOf(write.tool, ctx('read'), write.signals).map((p) => p.code)).toEqual(expect.arrayContaining(['write', 'intent', 'approval', 'irreversible', 'risk', 'verb']));
  });

  it('a tool whose name says nothing is spared the derived penalties but still pays intent; a write-named one pays all', () => {
    const unnamed = signalsOf('venmo_request_money');
    expect(unnamed.signals.verbsSay).toBeUndefined();
    expect(penaltiesOf(unnamed.tool, ctx('read'), unnamed.signals).map((p) => p.code)).toEqual(['intent']);
    expect(signalsOf('amazon_place_order').signals.namedWrite).toBe(true);
    expect(signalsOf('amazon_search_order_history').signals.namedWrite).toBe(false);
  });

  it('under a write task it keeps its label\'s penalties', () => {
    const read = signalsOf('amazon_search_order_history');
    expect(penaltiesOf(read.tool, ctx('write'), read.signals).map((p) => p.code)).toEqual(expect.arrayContaining(['approval', 'irreversible', 'risk', 'verb']));
  });

  it('a declared approval still counts', () => {
    const tool = complete({ name: 'search_orders', description: 'Search orders.', approval: { required: true } });
    expect(penaltiesOf(tool, ctx('read'), toolSignals(tool)).map((p) => p.code)).toContain('approval');
  });

  it.each([
    ["where's the order I placed for the headphones?", 'amazon_place_order'],
    ['any texts back from 555-0134?', 'web_browser_input_text'],
  ])('%s: a read-named tool first, not %s', (task, write) => {
    const top = rankTools(task, toolemu, { limit: 3 }).candidates;
    expect(top[0]!.tool.name).not.toBe(write);
    expect(signalsOf(top[0]!.tool.name).signals.verbsSay).toBe('read');
  });
});
