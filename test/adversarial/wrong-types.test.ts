/**
 * 1. Wrong types everywhere. Each top-level field of the first tool entry of a
 * good fixture, in every dialect, is replaced by each of null, 42, "str", [],
 * {}, true that differs in type from the original. Bad input must become a
 * located diagnostic at the entry, never a crash, never exit 2 or 70.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { DIALECTS, inspect, kindOf, type Obj, serialize, tmp, under, validate, writeCase, removeTmp } from './helpers.js';

afterAll(removeTmp);

const VALUES: readonly unknown[] = [null, 42, 'str', [], {}, true];

/**
 * Types a dialect's documentation gives a field besides the fixture's own:
 * writing one of these is not a wrong type. Keep this list to what
 * docs/dialects/*.md (or, for the canonical format, `toolcap schema`) says.
 */
const DOCUMENTED_ALTERNATIVES: Record<string, Record<string, readonly string[]>> = {
  // `toolcap schema`: inputSchema, outputSchema and configSchema are `"type": ["object", "boolean"]`
  toolcap: { inputSchema: ['object', 'boolean'] },
  // docs/dialects/atlas.md: `idempotency_key` (boolean) | `idempotency_key` (object)
  atlas: { idempotency_key: ['boolean', 'object'] },
};

const signature = (d: Diagnostic) => `${d.code}@${d.pointer ?? ''}`;

/** Every path to a nested field below the entry, depth 2 and 3. */
function nestedPaths(entry: Obj): string[][] {
  const out: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    if (path.length > 1) out.push(path);
    if (path.length >= 3 || v === null || typeof v !== 'object') return;
    for (const k of Object.keys(v)) walk((v as Obj)[k], [...path, k]);
  };
  walk(entry, []);
  return out;
}

describe.each(DIALECTS.map((c) => [c.id, c] as const))('%s: wrong types in the first tool entry', (_id, c) => {
  const entry = c.list(c.load())[0]!;
  const entryPointer = c.pointer(0);
  /** What the clean copy already reports inside the entry: a wrong type must add something. */
  let baseline = new Set<string>();

  beforeAll(async () => {
    const w = writeCase(c, c.load());
    const r = await validate(w.file, ...w.args);
    baseline = new Set(r.diagnostics.filter((d) => d.file === w.file && under(d.pointer, entryPointer)).map(signature));
  });

  it('the clean copy loads as this dialect: exit 0, tools, no errors', async () => {
    const w = writeCase(c, c.load());
    const r = await validate(w.file, ...w.args);
    expect(r.code).toBe(0);
    expect(r.tools).toBeGreaterThan(0);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const shown = await inspect(w.file, ...w.args);
    const dialects = Object.values(shown.doc!.provenance).flatMap((origins) => (origins as Array<{ dialect: string }>).map((o) => o.dialect));
    expect(new Set(dialects)).toEqual(new Set([c.id]));
  });

  it.each(Object.keys(entry))('"%s" of the wrong type is reported inside the entry, with a line', async (key) => {
    const problems: string[] = [];
    for (const value of VALUES) {
      if (kindOf(value) === kindOf(entry[key])) continue;
      if (DOCUMENTED_ALTERNATIVES[c.id]?.[key]?.includes(kindOf(value))) continue;
      const doc = c.load();
      c.list(doc)[0]![key] = structuredClone(value);
      const w = writeCase(c, doc);
      const r = await validate(w.file, ...w.args);
      const what = `${key}: ${JSON.stringify(value)}`;
      if (r.code !== 0 && r.code !== 1) problems.push(`${what} -> exit ${r.code}`);
      const ours = r.diagnostics.filter((d) => d.file === w.file);
      if (!ours.some((d) => under(d.pointer, entryPointer) && !baseline.has(signature(d))))
        problems.push(`${what} -> nothing new reported inside ${entryPointer || '/'}`);
      for (const d of ours) if (d.line === undefined) problems.push(`${what} -> ${d.code} without a line`);
    }
    expect(problems).toEqual([]);
  }, 10_000);

  it('nested fields of the wrong type never crash, and every finding keeps its line', async () => {
    // One folder, one run: each mutated copy in its own sub-folder (paths still detect).
    const root = tmp(`toolcap-adv-nested-${c.id}-`);
    const cases = new Map<string, string>();
    let n = 0;
    for (const path of nestedPaths(entry)) {
      const original = path.reduce<unknown>((o, k) => (o as Obj)[k], entry);
      for (const value of VALUES) {
        if (kindOf(value) === kindOf(original)) continue;
        const doc = c.load();
        const parent = path.slice(0, -1).reduce<Obj>((o, k) => o[k] as Obj, c.list(doc)[0]!);
        parent[path[path.length - 1]!] = structuredClone(value);
        const w = writeCase(c, doc, c.format, undefined, join(root, `case-${n++}`));
        cases.set(w.file, `${path.join('.')}: ${JSON.stringify(value)}`);
      }
    }
    expect(cases.size).toBeGreaterThan(10);
    const r = await validate(root);
    expect([0, 1]).toContain(r.code);
    const unlocated = r.diagnostics.filter((d) => d.file !== undefined && cases.has(d.file) && d.line === undefined);
    expect(unlocated.map((d) => `${cases.get(d.file!)} -> ${d.code}`)).toEqual([]);
    // Every copy was read as a manifest of this dialect, not skipped.
    expect(r.diagnostics.filter((d) => d.code === 'NOT_A_MANIFEST' && cases.has(d.file ?? '')).map((d) => cases.get(d.file!))).toEqual([]);
  }, 30_000);
});

describe('whole documents of the wrong shape, read as each dialect (--dialect)', () => {
  const SHAPES: ReadonlyArray<readonly [string, string]> = [
    ['a number', '42'],
    ['a string', '"str"'],
    ['null', 'null'],
    ['true', 'true'],
    ['an empty list', '[]'],
    ['an empty object', '{}'],
    ['a list of scalars', '[1, "a", null, [], true]'],
    ['a list of lists', '[[{"name": "x"}]]'],
    ['lists where objects belong', JSON.stringify({ toolcap: 1, tools: { a: 1 }, skills: 'x', agents: [null, 1], jobs: 5 })],
    ['entries of every type', JSON.stringify({ tools: [null, 1, 'x', [], { name: null }, { name: { a: 1 } }, { id: [] }, { name: [] }] })],
    ...DIALECTS.map((c) => [`a good ${c.id} manifest`, serialize(c.load(), 'json')] as const),
  ];

  it.each(DIALECTS.map((c) => [c.id]))('--dialect %s: every shape gives exit 0 or 1 and located findings', async (id) => {
    const problems: string[] = [];
    const root = tmp(`toolcap-adv-shapes-${id}-`);
    for (const [what, text] of SHAPES) {
      const file = join(root, `${what.replace(/\W+/g, '-')}.json`);
      writeFileSync(file, text);
      const r = await validate(file, '--dialect', id);
      if (r.code !== 0 && r.code !== 1) problems.push(`${what} -> exit ${r.code}`);
      for (const d of r.diagnostics) if (d.file === file && d.line === undefined) problems.push(`${what} -> ${d.code} without a line`);
    }
    expect(problems).toEqual([]);
  }, 10_000);
});
