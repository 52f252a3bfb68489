import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';
import { createSnapshot } from '../../src/registry/snapshot.js';
import { getTool, listTools, searchAnswer, searchTools, stringifyWithTools } from '../../src/query/views.js';

const snap = createSnapshot(buildCatalog(['examples/manifests', 'examples/overrides']), { version: 1, builtAt: '2026-01-01T00:00:00.000Z' });

describe('stringifyWithTools: the same text as JSON.stringify, with each tool serialised once', () => {
  const first = snap.tools[0]?.name ?? '';
  it.each([
    ['a page of every tool', () => listTools(snap, {})],
    ['a persona page', () => listTools(snap, { personas: ['Atlas'], limit: 5 })],
    ['one tool with provenance', () => getTool(snap, first)],
    ['a search answer with explanations', () => searchAnswer(searchTools(snap, { query: 'list open incidents' }), true)],
    // a query that looks like the placeholder must come back as the query, not as a tool
    ['a query that imitates the placeholder', () => searchAnswer(searchTools(snap, { query: '\u0000tool-0:0\u0000 incidents' }), false)],
    ['no tools at all', () => ({ a: [1, 'two', null], tool: 'not a tool object' })],
  ])('%s', (_name, make) => {
    const value = make();
    expect(stringifyWithTools(value)).toBe(JSON.stringify(value));
    // twice: the second time reads the cached text
    expect(stringifyWithTools(value)).toBe(JSON.stringify(value));
  });
});

describe('listTools keeps the filtered list per snapshot, filter and health version', () => {
  it('pages of one query agree with one unpaged answer', () => {
    const all = listTools(snap, { personas: ['Atlas'] }).tools.map((t) => t.key);
    const paged: string[] = [];
    for (let offset = 0; offset < all.length; offset += 4) paged.push(...listTools(snap, { personas: ['Atlas'], limit: 4, offset }).tools.map((t) => t.key));
    expect(paged).toEqual(all);
  });

  it('a change in observed health (a new health version) is seen at once', () => {
    const name = snap.toolsFor()[0]?.name ?? '';
    let rate = 1;
    let version = 1;
    const health = { lookup: (n: string) => (n === name ? { status: 'ok' as const, successRate: rate, calls: 10 } : undefined), version: () => version };
    const has = () => listTools(snap, { minSuccessRate: 0.9 }, health).tools.some((t) => t.name === name);
    expect(has()).toBe(true);
    rate = 0.2;
    version = 2;
    expect(has()).toBe(false);
    expect(listTools(snap, { minSuccessRate: 0.9 }, health).tools.find((t) => t.name === name)).toBeUndefined();
  });
});
