/**
 * The vocabulary bridge: the shipped data file (data/vocabulary.json) against
 * the current tokenizer, the loader's tolerance of a missing or broken file,
 * and the build script's split and determinism on the real corpus.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenize } from '../../src/query/tokenize.js';
import { bridgeTerms, defaultVocabulary, loadVocabulary, vocabularyFrom, vocabularyUrl } from '../../src/query/vocabulary.js';

const VOCABULARY_URL = vocabularyUrl();

interface VocabularyFile {
  version: number;
  tokenizer: { probe: string; terms: string[] };
  sources: Record<string, { name: string; files: string; license: string; split: string; pairs: number }>;
  parameters: { maxTargets: number; minWeight: number };
  associations: Record<string, Array<[string, number, string]>>;
}

const REBUILD = 'data/vocabulary.json was built with another tokenizer: run `npm run vocabulary`';
const file = JSON.parse(readFileSync(VOCABULARY_URL, 'utf8')) as VocabularyFile;

describe('the shipped vocabulary file', () => {
  it('was built with the current tokenizer (its fingerprint matches)', () => {
    expect(tokenize(file.tokenizer.probe), REBUILD).toEqual(file.tokenizer.terms);
  });

  it('holds only index terms of the current tokenizer: every term is a fixed point', () => {
    const terms = new Set<string>();
    for (const [from, targets] of Object.entries(file.associations)) {
      terms.add(from);
      for (const [to] of targets) terms.add(to);
    }
    const moved = [...terms].filter((t) => tokenize(t).length !== 1 || tokenize(t)[0] !== t);
    expect(moved, REBUILD).toEqual([]);
    expect(terms.size).toBeGreaterThan(1000);
  });

  it('is small and names every source with its license, split and pair count', () => {
    expect(statSync(VOCABULARY_URL).size).toBeLessThan(300 * 1024);
    expect(file.version).toBe(1);
    expect(Object.keys(file.sources).sort()).toEqual(['ab', 'bf', 'mt', 'st']);
    for (const source of Object.values(file.sources)) {
      expect(source).toMatchObject({ license: expect.stringMatching(/^(MIT|Apache-2\.0)$/), pairs: expect.any(Number) });
      expect(source.pairs).toBeGreaterThan(100);
      // training and dev data only: never a test split or a reported retrieval set
      expect(source.files).not.toMatch(/test_in_domain|test_out_domain|livemcpbench|gorilla|bench\/tasks|toolemu|multi_turn/);
    }
  });

  it('gives each term at most maxTargets targets, strongest first, weights in (0, 1], sources it names', () => {
    const codes = new Set(Object.keys(file.sources));
    for (const [from, targets] of Object.entries(file.associations)) {
      expect(targets.length).toBeGreaterThan(0);
      expect(targets.length).toBeLessThanOrEqual(file.parameters.maxTargets);
      targets.forEach(([to, weight, sources], i) => {
        expect(to).not.toBe(from);
        expect(weight).toBeGreaterThanOrEqual(file.parameters.minWeight);
        expect(weight).toBeLessThanOrEqual(1);
        if (i > 0) expect(weight).toBeLessThanOrEqual(targets[i - 1]![1]);
        expect(sources.split('+').every((c) => codes.has(c))).toBe(true);
      });
    }
  });

  it.each([
    ['song', 'music'],
    ['picture', 'imag'],
  ])('bridges "%s" to the catalog term "%s"', (word, target) => {
    const [term] = tokenize(word);
    expect(bridgeTerms(term!).map((b) => b.term)).toContain(target);
    expect(defaultVocabulary().warning).toBeUndefined();
  });
});

describe('loading a vocabulary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-vocabulary-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return pathToFileURL(join(dir, name));
  };

  it.each([
    ['a missing file', () => pathToFileURL(join(dir, 'nowhere.json'))],
    ['a file that is not JSON', () => write('broken.json', '{"associations": {"pictur": [')],
  ])('gives an empty bridge and a warning for %s, never an error', (_, url) => {
    const vocabulary = loadVocabulary(url());
    expect(vocabulary.size).toBe(0);
    expect(vocabulary.bridge('pictur')).toEqual([]);
    expect(vocabulary.warning).toMatch(/npm run vocabulary/);
  });

  it.each([
    ['not an object', 42, 0],
    ['associations not an object', { associations: [] }, 0],
    ['a target list that is not a list', { associations: { pictur: 'imag' } }, 0],
    ['entries of the wrong shape', { associations: { pictur: [['imag'], ['imag', 'high', 'mt'], [7, 0.5, 'mt'], 'imag'] } }, 0],
    ['weights outside (0, 1]', { associations: { pictur: [['imag', 0, 'mt'], ['photo', 1.5, 'mt'], ['media', -1, 'mt']] } }, 0],
    ['a term bridged to itself', { associations: { pictur: [['pictur', 0.9, 'mt']] } }, 0],
    ['one good entry among bad ones', { associations: { pictur: [['imag', 0.5, 'mt'], ['bad']], song: [] } }, 1],
  ])('skips %s', (_, document, size) => {
    const vocabulary = vocabularyFrom(document);
    expect(vocabulary.size).toBe(size);
    if (size === 1) expect(vocabulary.bridge('pictur')).toEqual([{ term: 'imag', weight: 0.5, sources: 'mt' }]);
  });
});

/** The build script's exports (a plain .mjs file: imported by URL, typed here). */
interface BuildScript {
  metatoolSplit(query: string): 'train' | 'tune' | 'held-out';
  metatoolRows(): Array<[string, string]>;
  SOURCES: Record<string, { read(): Array<{ query: string; tool: string; name: string; description: string }> }>;
  PARAMETERS: { maxTargets: number };
  learn(pairs: Array<[string, unknown[]]>, tok: typeof tokenize): { associations: Record<string, Array<[string, number, string]>>; total: number };
  render(document: unknown): string;
}
const script = (await import(new URL('../../scripts/build-vocabulary.mjs', import.meta.url).href)) as BuildScript;

describe('scripts/build-vocabulary.mjs', () => {
  it('splits MetaTool by a hash of the query: about 70/10/20, the same every time', () => {
    const rows = script.metatoolRows();
    expect(rows.length).toBe(20614);
    const count = { train: 0, tune: 0, 'held-out': 0 };
    for (const [q] of rows) count[script.metatoolSplit(q)]++;
    expect(count.train / rows.length).toBeCloseTo(0.7, 1);
    expect(count.tune / rows.length).toBeCloseTo(0.1, 1);
    expect(count['held-out'] / rows.length).toBeCloseTo(0.2, 1);
    expect(rows.slice(0, 50).map(([q]) => script.metatoolSplit(q))).toEqual(rows.slice(0, 50).map(([q]) => script.metatoolSplit(q)));
  });

  it('learns from the MetaTool train slice only', () => {
    const pairs = script.SOURCES['mt']!.read();
    expect(pairs.length).toBeGreaterThan(13000);
    expect(pairs.every((p) => script.metatoolSplit(p.query) === 'train')).toBe(true);
  });

  it('gives the same associations from the same pairs (API-Bank and Seal-Tools dev)', () => {
    const pairs: Array<[string, unknown[]]> = [['ab', script.SOURCES['ab']!.read()], ['st', script.SOURCES['st']!.read()]];
    const a = script.learn(pairs, tokenize);
    const b = script.learn(pairs, tokenize);
    expect(script.render({ associations: a.associations })).toBe(script.render({ associations: b.associations }));
    expect(a.total).toBe(pairs.reduce((n, [, list]) => n + list.length, 0));
    expect(Object.keys(a.associations).length).toBeGreaterThan(10);
    for (const targets of Object.values(a.associations)) expect(targets.length).toBeLessThanOrEqual(script.PARAMETERS.maxTargets);
  });
});
