/**
 * 4. Entries: unknown fields, duplicate names in one file, duplicate YAML
 * keys, names with spaces, uppercase and unicode, 10,000-character strings,
 * and a tool list of 20,000 entries, in every dialect.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/registry/catalog.js';
import { DIALECTS, inspect, type Obj, serialize, tmp, under, validate, validName, writeCase, removeTmp } from './helpers.js';

afterAll(removeTmp);

const LIMIT_MS = 10_000;
const cases = DIALECTS.map((c) => [c.id, c] as const);

describe.each(cases)('%s: entries', (_id, c) => {
  // the canonical format is closed: there an unknown field is an error (exit 1); every other dialect keeps it as an extension, with a warning
  it('an unknown field -> an UNKNOWN_FIELD on its key (an error in the canonical format, else a warning); the tool still loads', async () => {
    const clean = writeCase(c, c.load());
    const expected = await validate(clean.file);
    const doc = c.load();
    c.list(doc)[0]!['x_adversarial_unknown'] = { nested: [1, 2, 3] };
    const w = writeCase(c, doc);
    const r = await validate(w.file);
    const closed = c.id === 'toolcap';
    expect(r.code).toBe(closed ? 1 : expected.code);
    expect(r.tools).toBe(expected.tools);
    expect(r.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'UNKNOWN_FIELD', severity: closed ? 'error' : 'warning', file: w.file, pointer: `${c.pointer(0)}/x_adversarial_unknown`, line: expect.any(Number) }),
    );
  });

  it('the same tool twice in one layer -> DUPLICATE_TOOL on the second, related to the first', async () => {
    if (c.wrap) {
      const doc = c.load();
      const list = c.list(doc);
      list.push(structuredClone(list[0]!));
      const w = writeCase(c, doc);
      const r = await validate(w.file);
      expect(r.code).toBe(1);
      const dup = r.diagnostics.find((d) => d.code === 'DUPLICATE_TOOL');
      expect(dup).toMatchObject({ severity: 'error', file: w.file, pointer: c.pointer(list.length - 1), line: expect.any(Number) });
      expect(dup?.related).toMatchObject([{ file: w.file, pointer: c.pointer(0), line: expect.any(Number) }]);
    } else {
      // one tool per file: two files of one folder are one layer
      const root = tmp();
      const first = writeCase(c, c.load(), c.format, undefined, join(root, 'a')).file;
      const second = writeCase(c, c.load(), c.format, undefined, join(root, 'b')).file;
      const r = await validate(root);
      expect(r.code).toBe(1);
      const dup = r.diagnostics.find((d) => d.code === 'DUPLICATE_TOOL');
      expect(dup).toMatchObject({ severity: 'error', file: second, pointer: c.pointer(0), line: expect.any(Number) });
      expect(dup?.related).toMatchObject([{ file: first, pointer: c.pointer(0), line: expect.any(Number) }]);
    }
  });

  it('a duplicate YAML key in the tool entry -> DUPLICATE_KEY at the second one', async () => {
    const text = serialize(c.load(), 'yaml');
    const lines = text.split('\n');
    const at = lines.findIndex((l) => new RegExp(`^(\\s*)(- )?${c.nameKey}: `).test(l));
    expect(at).toBeGreaterThanOrEqual(0);
    const line = lines[at]!;
    lines.splice(at + 1, 0, line.replace(/^(\s*)- /, '$1  '));
    const w = writeCase(c, undefined, 'yaml', lines.join('\n'));
    const r = await validate(w.file, ...w.args);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'DUPLICATE_KEY', severity: 'error', file: w.file, line: at + 2 }));
  });

  it.each([
    ['spaces', 'my tool'],
    ['uppercase', 'MyTool'],
    ['uppercase and spaces', 'My Tool'],
    ['accents', 'wérkzeug'],
    ['CJK', '工具'],
    ['an emoji', 'tool 🔧'],
    ['a tab', 'tab\tname'],
    ['a NUL', 'a\u0000b'],
    ['a path', '../../etc/passwd'],
    ['only a space', ' '],
    ['a leading dash', '-tool'],
  ])('a name with %s: the tool loads under a valid canonical name, or an error is located at the entry', async (_what, name) => {
    const doc = c.load();
    c.list(doc)[0]![c.nameKey] = name;
    const w = writeCase(c, doc);
    const cliRun = await validate(w.file);
    expect([0, 1]).toContain(cliRun.code);
    const { catalog, diagnostics } = buildCatalog([w.file]);
    const reported = diagnostics.some((d) => d.severity === 'error' && d.file === w.file && under(d.pointer, c.pointer(0)));
    const fromEntry = catalog.tools.filter((e) => e.origins[0]?.file === w.file && e.origins[0]?.pointer === c.pointer(0));
    for (const e of fromEntry) {
      expect(validName(e.value.name) || reported, `canonical name ${JSON.stringify(e.value.name)} without an error`).toBe(true);
    }
    if (fromEntry.length === 0) expect(reported, 'the entry was dropped without an error').toBe(true);
  });

  it('10,000-character strings in every string field -> no crash, located findings, quickly', async () => {
    const doc = c.load();
    const entry = c.list(doc)[0]!;
    const long = 'x'.repeat(10_000);
    for (const k of Object.keys(entry)) if (typeof entry[k] === 'string') entry[k] = long;
    entry[`x_${long}`] = long; // a 10,000-character key, too
    const w = writeCase(c, doc);
    const r = await validate(w.file);
    expect([0, 1]).toContain(r.code);
    for (const d of r.diagnostics.filter((x) => x.file === w.file)) expect(d.line, d.code).toBeDefined();
  }, LIMIT_MS);

  it('a valid 10,000-character name appears in inspect --json', async () => {
    const doc = c.load();
    const name = c.id === 'capability' ? `a.${'b'.repeat(9_998)}` : 'a'.repeat(10_000);
    c.list(doc)[0]![c.nameKey] = name;
    const w = writeCase(c, doc);
    const out = await inspect(w.file);
    expect(out.code).toBe(0);
    // Shinkai slugs its human-readable names, which leaves this one as it is
    expect(out.doc?.tools.map((t) => t.name)).toContain(name);
  });
});

describe.each(cases.filter(([, c]) => c.wrap !== undefined))('%s: 20,000 tools in one list', (_id, c) => {
  it('load in well under 10 s, all of them', async () => {
    const entries: Obj[] = Array.from({ length: 20_000 }, (_, i) => c.minimal(i));
    const w = writeCase(c, c.wrap!(entries), 'json', JSON.stringify(c.wrap!(entries)));
    const r = await validate(w.file, ...w.args);
    expect(r.code).toBe(0);
    expect(r.tools).toBe(20_000);
  }, LIMIT_MS * 2);
});
