/**
 * A catalog silent on effects is read by its names only when its names say
 * what its tools do: MetaTool's plugins are brand names ("Klarna",
 * "timeport"), and the few that hold a read verb ("search", "ImageSearch")
 * must not be preferred for it, while ToolEmu's verb names still count.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { rankTools } from '../../src/query/rank.js';
import { namesSpeak, toolkitPrefixes } from '../../src/query/tool-signals.js';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
const snake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toLowerCase();
const metatool: Tool[] = Object.entries(JSON.parse(readFileSync(`${CORPUS}metatool/plugin_des.json`, 'utf8')) as Record<string, string>).map(([name, description]) =>
  complete({ name, description }),
);
const toolemu: Tool[] = (JSON.parse(readFileSync(`${CORPUS}toolemu/all_toolkits.json`, 'utf8')) as Array<{ name_for_model: string; tools: Array<{ name: string; summary: string }> }>).flatMap((kit) =>
  kit.tools.map((t) => complete({ name: `${snake(kit.name_for_model)}_${snake(t.name)}`, description: t.summary })),
);

describe('namesSpeak', () => {
  it.each([
    ['MetaTool plugins (brand names)', metatool, false],
    ['ToolEmu toolkits (verb names past a toolkit prefix)', toolemu, true],
  ])('%s', (_label, tools, expected) => {
    expect(namesSpeak(tools, toolkitPrefixes(tools))).toBe(expected);
  });

  it.each([
    ['an empty catalog', [], true],
    ['one verb name in three', ['create_issue', 'Klarna', 'Zillow'].map((name) => complete({ name, description: 'x' })), false],
    ['two verb names in three', ['create_issue', 'list_issues', 'Zillow'].map((name) => complete({ name, description: 'x' })), true],
  ])('%s', (_label, tools, expected) => {
    expect(namesSpeak(tools, toolkitPrefixes(tools))).toBe(expected);
  });
});

describe('ranking over a catalog whose names do not speak', () => {
  const withNames = (names: string[]) => names.map((name) => complete({ name, description: 'finds recipes and cooking ideas for dinner' }));

  it('a read-verb name earns no head start over an equal brand name', () => {
    // the same description: fit ties, so only penalties could separate them
    const brands = withNames(['Zillow', 'Klarna', 'Tasty', 'search_recipes', 'Wolfram', 'Kayak']);
    const explained = rankTools('what should I cook for dinner tonight?', brands, { limit: 6 }).candidates;
    const points = new Set(explained.map((c) => c.penalties.reduce((s, p) => s + p.points, 0)));
    expect(points.size).toBe(1);
  });

  it('in a catalog of verb names the read-named tool is still preferred for a read', () => {
    const verbs = withNames(['create_recipe', 'delete_recipe', 'update_recipe', 'search_recipes', 'publish_recipe', 'Tasty']);
    const first = rankTools('what should I cook for dinner tonight?', verbs, { limit: 6 }).candidates[0];
    expect(first?.tool.name).toBe('search_recipes');
  });
});
