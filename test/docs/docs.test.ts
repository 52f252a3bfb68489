/**
 * The reference docs against the code they describe: diagnostic codes and
 * severities, vocabulary orders, the completion table, merge groups, limits,
 * exit codes, and every relative link.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { DEFAULT_TIMEOUT_SEC, DERIVABLE_FIELDS } from '../../src/model/derive.js';
import { DIAGNOSTIC_CODES } from '../../src/model/diagnostics.js';
import { MODES, RETRY_CLASSES, REVERSIBILITY, RISK_LEVELS, SIDE_EFFECTS } from '../../src/model/vocabulary.js';
import { DEFAULT_LIMITS } from '../../src/source/source.js';
import { MAX_FILES_PER_LAYER } from '../../src/load/loader.js';
import { MERGED_GROUPS } from '../../src/registry/merge.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { PROBLEM_CODES } from '../../src/server/problem.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const MODEL = read('docs/model.md');
const DIAGNOSTICS = read('docs/diagnostics.md');

/** The text with fenced code blocks blanked out (line count kept). */
function withoutFences(md: string): string {
  let inFence = false;
  return md
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

/** The section under the first heading matching `heading`, up to the next heading of the same or a higher level. */
function section(md: string, heading: RegExp): string {
  const lines = withoutFences(md).split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && heading.test(l));
  if (start < 0) throw new Error(`no heading matching ${heading}`);
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && /^#{1,6} /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** Cells of a table row; `\|` inside a cell is not a separator. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** Body rows of every table in `text` (header and separator rows left out). */
function tableRows(text: string, onlyFirst = false): string[][] {
  const rows: string[][] = [];
  let block: string[] = [];
  const flush = () => {
    if (block.length >= 2 && /^\|?\s*:?-{3,}/.test(block[1]!.trim())) rows.push(...block.slice(2).map(cells));
    block = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim().startsWith('|')) block.push(line);
    else if (block.length > 0) {
      flush();
      if (onlyFirst && rows.length > 0) return rows;
    }
  }
  flush();
  return rows;
}

/** The content of a cell that is exactly one code span, else undefined. */
function codeSpan(cell: string | undefined): string | undefined {
  const m = /^`([^`]+)`$/.exec(cell ?? '');
  return m?.[1];
}

/** Every `export const NAME` in src/, so docs may name constants as well as codes. */
function exportedConstants(): Set<string> {
  const names = new Set<string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.ts')) for (const m of readFileSync(full, 'utf8').matchAll(/export const ([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]!);
    }
  };
  visit(join(ROOT, 'src'));
  return names;
}

describe('docs/diagnostics.md', () => {
  const rows = tableRows(section(DIAGNOSTICS, /^## Codes$/));

  it('has one row per diagnostic code, with its default severity', () => {
    const seen = new Map<string, string[]>();
    for (const row of rows) {
      const code = codeSpan(row[0]);
      expect(code, `row without a code: | ${row.join(' | ')} |`).toBeDefined();
      seen.set(code!, [...(seen.get(code!) ?? []), row[1] ?? '']);
    }
    for (const [code, severity] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(seen.get(code), `no row for ${code}`).toBeDefined();
      expect(seen.get(code), `${code}: one row with severity ${severity}`).toEqual([severity]);
    }
  });

  it('names no code that does not exist', () => {
    const codes = rows.map((r) => codeSpan(r[0]));
    for (const code of codes) expect(Object.keys(DIAGNOSTIC_CODES)).toContain(code);
  });

  it('lists the exit codes of src/cli/exit-codes.ts', () => {
    const exitRows = tableRows(section(DIAGNOSTICS, /^## Exit codes$/));
    const documented = Object.fromEntries(exitRows.map((r) => [codeSpan(r[1]) ?? r[1], Number(r[0])]));
    expect(documented).toEqual({ ...EXIT });
  });
});

describe('code-like names in the docs', () => {
  const constants = exportedConstants();
  for (const [file, text] of [['docs/model.md', MODEL], ['docs/diagnostics.md', DIAGNOSTICS]] as const) {
    it(`${file} names only existing codes and constants`, () => {
      const unknown = [...text.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g)]
        .map((m) => m[1]!)
        .filter((name) => !(name in DIAGNOSTIC_CODES) && !(name in EXIT) && !constants.has(name));
      expect(unknown).toEqual([]);
    });
  }
});

describe('docs/model.md', () => {
  const vocabularies = { SIDE_EFFECTS, RISK_LEVELS, MODES, REVERSIBILITY, RETRY_CLASSES };
  for (const [name, values] of Object.entries(vocabularies)) {
    it(`lists ${name} in the order of vocabulary.ts`, () => {
      const rows = tableRows(section(MODEL, new RegExp(`^### \`${name}\`$`)), true);
      expect(rows.map((r) => codeSpan(r[0]))).toEqual([...values]);
    });
  }

  it('has every derivable field, and only those, in the completion table, in the order complete() fills them', () => {
    const rows = tableRows(section(MODEL, /^## What `complete\(\)` fills/), true);
    const fields = rows.map((r) => r[0]).filter((c) => c !== '').map(codeSpan);
    expect(fields).toEqual([...DERIVABLE_FIELDS]);
    expect(rows.find((r) => r[0] === '`execution.timeoutSec`')?.[2]).toContain(`\`${DEFAULT_TIMEOUT_SEC}\``);
  });

  it('names exactly the groups that merge one level deep', () => {
    const rows = tableRows(section(MODEL, /^## Merging layers$/));
    const row = rows.find((r) => r[0] === 'Groups merged one level deep');
    expect(row).toBeDefined();
    const listed = [...row![1]!.split('(')[0]!.matchAll(/`([a-z]+)`/g)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(MERGED_GROUPS));
  });

  it('states the parse limits of the code', () => {
    const limits = section(MODEL, /^## Limits$/);
    expect(limits).toContain(`\`${DEFAULT_LIMITS.maxBytes}\` bytes`);
    expect(limits).toContain(`\`${DEFAULT_LIMITS.maxDepth}\` levels`);
    expect(limits).toContain(`\`${DEFAULT_LIMITS.maxAliasCount}\` per document`);
    expect(limits).toContain(`\`${MAX_FILES_PER_LAYER}\``);
  });
});

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(md: string): Set<string> {
  const out = new Set<string>();
  const counts = new Map<string, number>();
  for (const line of withoutFences(md).split('\n')) {
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function markdownFiles(): string[] {
  const out = ['README.md'];
  const visit = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.md')) out.push(path);
    }
  };
  visit('docs');
  return out;
}

describe('relative links in README.md and docs/', () => {
  for (const file of markdownFiles()) {
    it(`${file}: every relative link points at a file (and heading) that exists`, () => {
      const text = withoutFences(read(file)).replace(/`[^`\n]*`/g, '');
      const broken: string[] = [];
      for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, mailto:
        const [path, fragment] = target.split('#') as [string, string | undefined];
        const full = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURI(path));
        if (!existsSync(full)) {
          broken.push(`${target} (no ${relative(ROOT, full)})`);
          continue;
        }
        if (fragment && full.endsWith('.md') && statSync(full).isFile() && !anchors(readFileSync(full, 'utf8')).has(fragment)) {
          broken.push(`${target} (no heading #${fragment})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});

describe('docs/http.md', () => {
  const HTTP = read('docs/http.md');
  const errors = section(HTTP, /^## Errors/);
  it.each(Object.entries(PROBLEM_CODES))('lists the problem code %s with status %i', (code, status) => {
    expect(errors).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
  });
  it('lists no problem code the server does not have', () => {
    const listed = [...errors.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(Object.keys(PROBLEM_CODES).sort());
  });
  it.each(['/tools', '/tools/{name}', '/search', '/skills', '/jobs', '/summary', '/health', '/openapi.json'])('documents %s, as /openapi.json does', (path) => {
    expect(section(HTTP, /^## Endpoints/)).toContain(`\`${path}\``);
    expect(Object.keys(openApiDocument('0').paths as object)).toContain(path);
  });
});
