/**
 * Matching beyond a query's own words: the vocabulary bridge and the
 * prefix/fuzzy fallback, over the GitHub MCP server's 114 real tools (read by
 * the MCP dialect) and over small catalogs where the arithmetic is the point.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mcpDialect } from '../../src/dialects/mcp.js';
import { complete } from '../../src/model/derive.js';
import { BRIDGE_FACTOR, BRIDGE_LIMITS } from '../../src/query/expand.js';
import { editDistance, FALLBACK_WEIGHTS, fallbackMatches, lexiconOf, negates } from '../../src/query/fallback.js';
import { rankTools } from '../../src/query/rank.js';
import { buildSearchIndex, matchedTerms, scoreQuery, search } from '../../src/query/search.js';
import { tokenize } from '../../src/query/tokenize.js';
import { defaultVocabulary, loadVocabulary, vocabularyFrom } from '../../src/query/vocabulary.js';
import { importFile } from '../dialects/contract.js';

const github = importFile(mcpDialect, join('../shared/corpus/mcp-github-server/tools.json')).imported.tools.map((t) => complete(t.value));
const index = buildSearchIndex(github);
const names = (query: string, options = {}) => search(index, query, { limit: 3, ...options }).map((h) => h.tool.name);

describe('prefix and fuzzy fallback over the GitHub MCP server', () => {
  it('reads 114 tools', () => expect(github).toHaveLength(114));

  it.each([
    ['pul reqest', /pull_request/],
    ['releses', /^list_releases$/],
    ['colaborators', /^list_repository_collaborators$/],
    ['brnch', /branch/],
    ['notif', /notification/],
    ['isue coments', /comment/],
  ])('"%s" (misspelled or cut) finds %s, where exact matching finds nothing', (query, expected) => {
    expect(names(query, { fallback: false })).toEqual([]);
    const found = names(query);
    expect(found.length).toBeGreaterThan(0);
    expect(found.some((n) => expected.test(n))).toBe(true);
  });

  it.each([
    'list pull requests',
    'create a branch',
    'get the latest release',
    'search code in a repository',
  ])('adds no fallback for "%s": every term has postings', (query) => {
    const { terms, expansions } = scoreQuery(index, query);
    expect(terms.every((t) => index.postings.has(t))).toBe(true);
    expect(expansions.filter((e) => e.kind !== 'bridge')).toEqual([]);
  });

  it.each([
    'pul reqest for my brnch',
    'show me the releses and colaborators',
    'get rid of the wokflow runs',
    'let the team know about the secrity alerts',
    'which pictures and songs are in the repo',
  ])('"%s": fallback only for terms without postings; bridge only from associated terms, never to a query term', (query) => {
    const vocabulary = defaultVocabulary();
    const { terms, expansions } = scoreQuery(index, query);
    expect(expansions.length).toBeGreaterThan(0);
    for (const e of expansions) {
      expect(terms).toContain(e.from);
      expect(terms).not.toContain(e.term);
      expect(index.postings.has(e.term)).toBe(true);
      expect(e.weight).toBeGreaterThan(0);
      expect(e.weight).toBeLessThan(1);
      if (e.kind === 'bridge') {
        expect(vocabulary.bridge(e.from).map((b) => b.term)).toContain(e.term);
        expect(e.weight).toBeLessThanOrEqual(BRIDGE_FACTOR);
        expect(e.sources).toMatch(/^[a-z]{2}(\+[a-z]{2})*$/);
      } else {
        expect(index.postings.has(e.from)).toBe(false);
      }
    }
    expect(expansions.filter((e) => e.kind === 'bridge').length).toBeLessThanOrEqual(BRIDGE_LIMITS.perQuery);
    expect(new Set(expansions.filter((e) => e.kind === 'bridge').map((e) => e.term)).size).toBe(expansions.filter((e) => e.kind === 'bridge').length);
  });

  it('labels what an expanded term stood for in the matched terms', () => {
    const [hit] = search(index, 'colaborators', { limit: 1 });
    expect(hit?.matched).toEqual(['collaborator (from colaborator, fuzzy)']);
  });

  it('falls back to exact matching without a vocabulary file, and does not crash', () => {
    const missing = loadVocabulary(pathToFileURL(join(import.meta.dirname, 'no-such-vocabulary.json')));
    expect(missing.warning).toMatch(/npm run vocabulary/);
    const { expansions } = scoreQuery(index, 'which pictures are in the repo', { vocabulary: missing });
    expect(expansions.filter((e) => e.kind === 'bridge')).toEqual([]);
    expect(names('list pull requests', { vocabulary: missing })).toEqual(names('list pull requests', { vocabulary: false }));
  });
});

describe('the bridge, with a vocabulary of one association', () => {
  // one field each, the same length, so only the matching differs
  const tools = [
    complete({ name: 'a', description: 'resize an image quickly' }),
    complete({ name: 'b', description: 'resize a picture quickly' }),
    complete({ name: 'c', description: 'rotate a picture or image' }),
  ];
  const small = buildSearchIndex(tools);
  const strongest = vocabularyFrom({ associations: { [tokenize('picture')[0]!]: [[tokenize('image')[0]!, 1, 'mt']] } });
  const score = (query: string, vocabulary = strongest) => scoreQuery(small, query, { vocabulary, fallback: false });

  it('never lets a stand-in outweigh the word itself, even at weight 1', () => {
    const { scores } = score('resize picture');
    expect(scores[1]!).toBeGreaterThan(scores[0]!);
    const direct = score('resize image').scores[0]!;
    const without = score('resize picture', vocabularyFrom({})).scores[0]!;
    expect(scores[0]! - without).toBeCloseTo(BRIDGE_FACTOR * (direct - without), 10);
  });

  it('adds nothing to a tool that already says the word', () => {
    const withBridge = score('rotate picture').scores;
    const without = score('rotate picture', vocabularyFrom({})).scores;
    expect(withBridge[1]).toBe(without[1]);
    expect(withBridge[2]).toBe(without[2]);
  });

  it('shows the stand-in only where it stood in', () => {
    const { terms, expansions } = score('resize picture');
    expect(expansions).toEqual([{ from: 'pictur', term: 'imag', kind: 'bridge', weight: BRIDGE_FACTOR, sources: 'mt' }]);
    expect(matchedTerms(small, terms, 0, expansions)).toEqual(['resiz', 'imag (from pictur, bridge)']);
    expect(matchedTerms(small, terms, 1, expansions)).toEqual(['resiz', 'pictur']);
    expect(matchedTerms(small, terms, 2, expansions)).toEqual(['pictur']);
  });

  it('is off with vocabulary: false', () => {
    expect(scoreQuery(small, 'resize picture', { vocabulary: false }).expansions).toEqual([]);
  });
});

describe('edit distance and fallback matches', () => {
  it.each([
    ['reqest', 'request', 2, 1],
    ['reuqest', 'request', 2, 1],
    ['request', 'request', 1, 0],
    ['colaborator', 'collaborator', 2, 1],
    ['secrity', 'security', 1, 1],
    ['wokflw', 'workflow', 2, 2],
    ['abc', 'xyz', 1, 2],
    ['branch', 'b', 2, 3],
  ])('editDistance(%s, %s, max %i) is %i', (a, b, max, d) => {
    expect(editDistance(a, b, max)).toBe(d);
  });

  const lexicon = lexiconOf(['rent', 'rental', 'mind', 'releas', 'request', 'repository', 'v2', 'wait', 'notification']);
  const has = (t: string) => lexicon.sorted.includes(t);
  it.each([
    ['notif', [{ term: 'notification', kind: 'prefix' }]],
    ['requesting', [{ term: 'request', kind: 'prefix' }]],
    ['rentals', [{ term: 'rental', kind: 'fuzzy' }]],
    ['reqest', [{ term: 'request', kind: 'fuzzy' }]],
    ['reles', [{ term: 'releas', kind: 'fuzzy' }]],
    ['mindfulness', []],
    ['want', []],
    ['v3', []],
    ['re', []],
  ])('%s -> %j', (term, expected) => {
    expect(fallbackMatches(lexicon, term, has).map(({ term: t, kind }) => ({ term: t, kind }))).toEqual(expected);
  });

  // the longest index term that starts a word was looked for among all the word's prefixes down to 60 % of it: a word of
  // n letters asked about 0.4 n prefixes, each hashed whole (16,000 letters: 220 ms a query, 1,000: 1 ms)
  it.each([
    ['requesting', 'request'],
    ['notificationsx', 'notification'],
    ['repositoryrepository', undefined],
    ['requestss', 'request'],
    ['a'.repeat(10_000), undefined],
  ])('a prefix of %.20s is looked for only as long as an index term: %s', (term, found) => {
    let asked = 0;
    const counted = (t: string) => (asked++, has(t));
    const prefix = fallbackMatches(lexicon, term, counted).find((m) => m.kind === 'prefix' && term.startsWith(m.term));
    expect(prefix?.term).toBe(found);
    expect(asked).toBeLessThanOrEqual(Math.max(...lexicon.sorted.map((t) => t.length)));
  });

  it('weighs a match below the word itself, closer matches higher', () => {
    const [prefix] = fallbackMatches(lexicon, 'notif', has);
    expect(prefix!.weight).toBeCloseTo((FALLBACK_WEIGHTS.prefix * 5) / 12, 10);
    const [fuzzy] = fallbackMatches(lexicon, 'reqest', has);
    expect(fuzzy!.weight).toBe(FALLBACK_WEIGHTS.fuzzy1);
  });
});

describe('a word and its negation are never fuzzy matches', () => {
  it.each([
    ['unresolv', 'resolv', true],
    ['resolv', 'unresolv', true],
    ['nonempty', 'empty', true],
    ['disconnect', 'connect', true],
    ['invalid', 'valid', true],
    ['impossibl', 'possibl', true],
    ['irregular', 'regular', true],
    ['illegal', 'legal', true],
    ['reqest', 'request', false],
    ['astrology', 'strology', false],
    ['unresolv', 'unresolv', false],
  ])('negates(%s, %s) is %s', (a, b, expected) => {
    expect(negates(a, b)).toBe(expected);
  });

  const lexicon = lexiconOf(['resolv', 'connect', 'complet', 'regular', 'resolut']);
  const has = (t: string) => lexicon.sorted.includes(t);
  it.each([
    ['unresolv', []],
    ['disconnect', []],
    ['incomplet', []],
    ['iregular', [{ term: 'regular', kind: 'fuzzy' }]],
  ])('%s -> %j', (term, expected) => {
    expect(fallbackMatches(lexicon, term, has).map(({ term: t, kind }) => ({ term: t, kind }))).toEqual(expected);
  });

  it('Seal-Tools: "if it is unresolved, submit a new ticket" does not put resolveTicket first', () => {
    const rows = readFileSync('../shared/corpus/seal-tools/tool.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { api_name: string; api_description?: string; parameters?: Record<string, { description?: string }> });
    const seen = new Set<string>();
    const tools = rows
      .filter((r) => !seen.has(r.api_name) && seen.add(r.api_name))
      .map((r) => complete({ name: r.api_name, description: r.api_description ?? '', inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(r.parameters ?? {}).map(([k, v]) => [k, { description: v?.description ?? '' }])) } }));
    const task =
      'Please check the current status of my IT support ticket with the ID gDigAX6tNT. If it is unresolved, please submit a new support ticket for the IT issue at IP address 192.168.10.6. Finally, retrieve the status of my purchase order with the ID FXVjwDP41f.';
    const ranking = rankTools(task, tools, { limit: 5 });
    expect(ranking.candidates[0]?.tool.name).toBe('submitTicket');
    const resolve = ranking.candidates.find((c) => c.tool.name === 'resolveTicket');
    expect(resolve?.matched.some((m) => m.includes('from unresolv'))).not.toBe(true);
  });
});
