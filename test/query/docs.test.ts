/** docs/query.md against the defaults it documents. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RANK_WEIGHTS } from '../../src/query/rank.js';
import { DEFAULT_FIELD_WEIGHTS } from '../../src/query/search.js';
import { FILTER_PARAMETERS } from '../../src/query/params.js';

const DOC = readFileSync(new URL('../../docs/query.md', import.meta.url), 'utf8');
const rows = (firstCell: RegExp) =>
  DOC.split('\n')
    .filter((l) => l.startsWith('| ') && firstCell.test(l))
    .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));

describe('docs/query.md', () => {
  it('lists every rank weight with its default', () => {
    const table = Object.fromEntries(rows(/^\| `[a-z]+`( \(multiplier\))? \| \d+/).filter((r) => r.length === 3).map(([name, points]) => [/`(\w+)`/.exec(name ?? '')?.[1], Number.parseInt(points ?? '', 10)]));
    expect(table).toEqual({ ...DEFAULT_RANK_WEIGHTS });
  });

  it('lists every search field with its weight', () => {
    const table = Object.fromEntries(rows(/^\| (`\w+`|parameters)[^|]*\| [\d.]+ \|$/).map(([field, weight]) => [/^`?(\w+)/.exec(field ?? '')?.[1], Number(weight)]));
    expect(table).toEqual({ ...DEFAULT_FIELD_WEIGHTS });
  });

  it('documents every query parameter', () => {
    for (const p of FILTER_PARAMETERS) expect(DOC).toContain(`| \`${p}\``);
  });
});
