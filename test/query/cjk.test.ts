/**
 * Text in Chinese, Japanese or Korean script has no spaces between words:
 * the tokenizer indexes each run as its overlapping pairs of characters, a
 * task's runs reach its content terms, and the pairs count in no field's
 * length (a text without CJK scores as it did). The catalog is
 * LiveMCPBench's real servers (../shared/corpus), 74 of whose tools are
 * described in Chinese.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { rankTools } from '../../src/query/rank.js';
import { buildSearchIndex, scoreQuery } from '../../src/query/search.js';
import { cjkRuns, cjkTerms, tokenize } from '../../src/query/tokenize.js';
import { understand } from '../../src/query/understand.js';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url).pathname;
type Raw = { name: string; description?: string; inputSchema?: { properties?: Record<string, { description?: string }> } };

/** LiveMCPBench's tools as the retrieval bench loads them (name, description, parameter descriptions; first of a name). */
function liveMcpTools(): Tool[] {
  const servers = JSON.parse(readFileSync(`${CORPUS}livemcpbench/tools.json`, 'utf8')) as Array<{ tools?: Record<string, { tools?: Raw[] }> }>;
  const seen = new Set<string>();
  const out: Tool[] = [];
  for (const server of servers) {
    for (const entry of Object.values(server.tools ?? {})) {
      for (const t of entry.tools ?? []) {
        if (seen.has(t.name)) continue;
        seen.add(t.name);
        const properties = Object.fromEntries(Object.entries(t.inputSchema?.properties ?? {}).map(([k, v]) => [k, { description: v?.description ?? '' }]));
        out.push(complete({ name: t.name, description: t.description ?? '', inputSchema: { type: 'object', properties } }));
      }
    }
  }
  return out;
}

describe('CJK terms', () => {
  it.each([
    ['获取八字信息', ['获取', '取八', '八字', '字信', '信息']],
    ['What are the 八字 of a boy?', ['八字']],
    ['八 and 字', ['八', '字']],
    ['ひらがな', ['ひら', 'らが', 'がな']],
    ['한국어', ['한국', '국어']],
    ['Größe café', []],
    ['plain ascii', []],
  ])('cjkTerms(%j)', (text, terms) => {
    expect(cjkTerms(text)).toEqual(terms);
  });

  it.each([
    ['根据时间（公历或农历）、性别来获取八字信息。', ['根据', '据时', '时间', '公历', '历或', '或农', '农历', '性别', '别来', '来获', '获取', '取八', '八字', '字信', '信息']],
    ['getBaziDetail 获取八字', ['get', 'bazi', 'detail', '获取', '取八', '八字']],
  ])('tokenize(%j): the words, then the pairs of each run (punctuation ends a run)', (text, terms) => {
    expect(tokenize(text)).toEqual(terms);
  });

  // the pairs were appended as the arguments of one push: over about 120,000 of them (a library caller's text, which
  // has no cap) a RangeError, the call stack's size
  it('a text of 180,000 CJK pairs is tokenized, not a stack overflow', () => {
    const text = '获取八字信息'.repeat(30_000);
    expect(tokenize(text)).toHaveLength(text.length - 1);
    expect(() => understand(text)).not.toThrow();
  });

  it("a task's CJK runs are content terms, matched at full weight", () => {
    const u = understand('What are the 八字 of a boy born on August 8, 2008 at 11:00 am?');
    expect(cjkRuns(u.content)).toEqual(['八字']);
    expect(u.weak).not.toContain('八字');
  });
});

describe('ranking over a catalog described partly in Chinese (LiveMCPBench)', () => {
  const tools = liveMcpTools();

  it('a task naming 八字 ranks the tools that compute it first (before: nothing of it in the top 10)', () => {
    const top = rankTools('What are the 八字 of a boy born on August 8, 2008 at 11:00 am?', tools, { limit: 3 }).candidates.map((c) => c.tool.name);
    expect(top[0]).toBe('getBaziDetail');
    expect(top).toContain('buildBaziFromSolarDatetime');
    expect(rankTools('八字', tools, { limit: 10 }).candidates[0]?.matched).toContain('八字');
  });

  it('the pairs count in no length: a task without CJK scores every tool as an index without the CJK text does', () => {
    const withCjk = buildSearchIndex(tools);
    const without = buildSearchIndex(tools.map((t) => ({ ...t, description: (t.description ?? '').replace(/[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+/g, ' ') })));
    const cjkTools = tools.filter((t) => cjkTerms(t.description ?? '').length > 0).length;
    expect(cjkTools).toBeGreaterThan(50);
    for (const query of ['convert a time to the lunar calendar', 'save the sales figures to an excel sheet', 'get the weather in Beijing']) {
      const a = scoreQuery(withCjk, query, { vocabulary: false });
      const b = scoreQuery(without, query, { vocabulary: false });
      expect(a.touched.length).toBeGreaterThan(0);
      expect([...a.scores]).toEqual([...b.scores]);
    }
  });
});
