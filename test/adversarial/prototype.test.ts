/**
 * 2. `__proto__`, `constructor` and `prototype` keys at every level (top,
 * tool entry, nested objects such as auth, effects, parameters and their
 * properties), in JSON and YAML, in every dialect. Nothing may pollute a
 * prototype; `__proto__` keys are dropped with an UNSAFE_KEY warning each;
 * tools named after prototype members are ordinary tools.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';
import {
  DIALECTS,
  expectNoCrash,
  expectNoPollution,
  inspect,
  listFiles,
  type Obj,
  prototypeSnapshot,
  put,
  tmp,
  validate,
  writeCase,
  type DialectCase,
  removeTmp,
} from './helpers.js';

afterAll(removeTmp);

let before: string[] = [];
beforeEach(() => {
  before = prototypeSnapshot();
});
afterEach(() => {
  expectNoPollution(before);
});

/** Give `obj` an own, enumerable property `key` (even `__proto__`), so serializers write it. */
function plant(obj: Obj, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Plant `key` in the document's top object (if it is one), in the first tool
 * entry and in every object nested in that entry up to depth 3 (auth,
 * effects, parameters, parameters.properties, ...). Returns the pointers of
 * the objects that received the key.
 */
function plantEverywhere(c: DialectCase, doc: Obj | Obj[], key: string, value: () => unknown): string[] {
  const pointers: string[] = [];
  const entry = c.list(doc)[0]!;
  const entryPointer = c.pointer(0);
  const visit = (obj: Obj, pointer: string, depth: number) => {
    // children first, so the planted key itself is not visited
    if (depth < 3) for (const k of Object.keys(obj)) if (isObject(obj[k])) visit(obj[k] as Obj, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
    plant(obj, key, value());
    pointers.push(pointer);
  };
  visit(entry, entryPointer, 0);
  if (isObject(doc) && doc !== entry) {
    plant(doc, key, value());
    pointers.push('');
  }
  return pointers;
}

const FORMATS = ['json', 'yaml'] as const;
const matrix = DIALECTS.flatMap((c) => FORMATS.map((f) => [c.id, f, c] as const));

describe.each(matrix)('%s in %s', (_id, format, c) => {
  it('__proto__ at every level: one UNSAFE_KEY warning per key, with a line; nothing polluted; no tool lost', async () => {
    const clean = writeCase(c, c.load(), format);
    const expected = await validate(clean.file, ...clean.args);
    const doc = c.load();
    const planted = plantEverywhere(c, doc, '__proto__', () => ({ polluted: true, isAdmin: true }));
    expect(planted.length).toBeGreaterThan(2);
    const w = writeCase(c, doc, format);
    expect(readFileSync(w.file, 'utf8')).toContain('__proto__');
    const r = await validate(w.file, ...w.args);
    expect([0, 1]).toContain(r.code);
    expect(r.tools).toBe(expected.tools);
    const unsafe = r.diagnostics.filter((d) => d.code === 'UNSAFE_KEY');
    expect(unsafe.map((d) => d.pointer).sort()).toEqual(planted.map((p) => `${p}/__proto__`).sort());
    for (const d of unsafe) expect(d).toMatchObject({ severity: 'warning', file: w.file, line: expect.any(Number) });
    // the keys were dropped: nothing of them reaches the catalog
    const shown = await inspect(w.file, ...w.args);
    expect(shown.stdout).not.toContain('polluted');
    expect(shown.stdout).not.toContain('isAdmin');
  });

  it.each([
    ['constructor', () => ({ prototype: { polluted: true } })],
    ['prototype', () => ({ polluted: true })],
  ] as const)('%s at every level: loads, nothing polluted, no tool lost, every finding located', async (key, value) => {
    const clean = writeCase(c, c.load(), format);
    const expected = await validate(clean.file, ...clean.args);
    const doc = c.load();
    expect(plantEverywhere(c, doc, key, value).length).toBeGreaterThan(2);
    const w = writeCase(c, doc, format);
    const r = await validate(w.file, ...w.args);
    expect([0, 1]).toContain(r.code);
    expect(r.tools).toBe(expected.tools);
    for (const d of r.diagnostics.filter((x) => x.file === w.file)) expect(d.line, `${d.code} at ${d.pointer}`).toBeDefined();
    const shown = await inspect(w.file, ...w.args);
    expect(shown.doc?.tools.length).toBe(expected.tools);
  });
});

describe('tools named after prototype members are ordinary tools', () => {
  const NAMES = ['__proto__', 'constructor', 'prototype'] as const;

  it.each(NAMES)('toolcap: a tool named "%s" loads and appears in inspect --json', async (name) => {
    const file = put(tmp(), 'tools.yaml', `toolcap: 1\ntools:\n  - name: ${name}\n    effects: { mode: read, sideEffects: none }\n`);
    const out = await inspect(file);
    expect(out.code).toBe(0);
    expect(out.doc?.tools.map((t) => t.name)).toEqual([name]);
    expect(Object.prototype.hasOwnProperty.call(out.doc?.provenance, name)).toBe(true);
    const v = await validate(file);
    expect(v).toMatchObject({ code: 0, tools: 1 });
  });

  it('all of them, overridden by a second layer and seen by a persona named after one', async () => {
    const dir = tmp();
    const tools = NAMES.map((n) => `  - name: ${n}\n    effects: { mode: read, sideEffects: none }\n`).join('');
    const scoped = NAMES.map((n) => `  - name: ${n}\n    scope: { personas: [constructor, __proto__] }\n    description: scoped\n    effects: { mode: read, sideEffects: none }\n`).join('');
    const base = put(dir, 'base/tools.yaml', `toolcap: 1\ntools:\n${tools}${scoped}  - name: plain\n    effects: { mode: read, sideEffects: none }\n`);
    const overlay = put(dir, 'overlay/tools.yaml', `toolcap: 1\ntools:\n${NAMES.map((n) => `  - name: ${n}\n    description: overridden\n`).join('')}`);
    const all = await inspect(base, overlay);
    expect(all.code).toBe(0);
    const names = all.doc!.tools.map((t) => `${t.name}:${String(t['description'] ?? '')}`).sort();
    expect(names).toEqual(['__proto__:overridden', '__proto__:scoped', 'constructor:overridden', 'constructor:scoped', 'plain:', 'prototype:overridden', 'prototype:scoped']);
    for (const persona of ['__proto__', 'constructor']) {
      const view = await inspect(base, overlay, '--persona', persona);
      expect(view.code).toBe(0);
      expect(view.doc!.tools.map((t) => `${t.name}:${String(t['description'])}`).sort()).toEqual(['__proto__:scoped', 'constructor:scoped', 'plain:undefined', 'prototype:scoped']);
    }
    const unseen = await inspect(base, '--persona', 'prototype');
    expect(unseen.doc!.tools.map((t) => t.name).sort()).toEqual([...NAMES, 'plain'].sort());
  });

  it.each(DIALECTS.filter((c) => c.id !== 'toolcap').map((c) => [c.id, c] as const))('%s: a tool named "constructor" loads under that name', async (_id, c) => {
    const doc = c.load();
    c.list(doc)[0]![c.nameKey] = 'constructor';
    const w = writeCase(c, doc);
    const out = await inspect(w.file, ...w.args);
    expect([0, 1]).toContain(out.code);
    expect(out.doc?.tools.map((t) => t.name)).toContain('constructor');
  });
});

describe('fields named after prototype members survive a round trip', () => {
  /**
   * Unknown fields are "kept as an extension" so that export gives the source
   * back. Names that exist on Object.prototype must not be shadowed by it.
   */
  const MARKERS: Record<string, unknown> = {
    constructor: { marker: 'ctor-kept' },
    toString: 'tostring-kept',
    valueOf: 'valueof-kept',
    hasOwnProperty: 'hasown-kept',
  };

  it.each(DIALECTS.map((c) => [c.id, c] as const))('%s: convert back to the same dialect keeps unknown fields named constructor, toString, valueOf, hasOwnProperty', async (_id, c) => {
    const doc = c.load();
    // the canonical format is closed (an unknown field is an error, test below): there the names go where any name may, metadata
    if (c.id === 'toolcap') c.list(doc)[0]!['metadata'] = structuredClone(MARKERS);
    else Object.assign(c.list(doc)[0]!, structuredClone(MARKERS));
    const w = writeCase(c, doc);
    const out = join(w.dir, 'converted');
    const result = await cli('convert', w.file, '--to', c.id, '--out', out, ...w.args);
    expectNoCrash(result);
    expect(result.code, result.stderr).toBe(0);
    const files = statSync(out).isDirectory() ? listFiles(out) : [out];
    const text = files.map((f) => readFileSync(f, 'utf8')).join('\n');
    const lost = ['ctor-kept', 'tostring-kept', 'valueof-kept', 'hasown-kept'].filter((m) => !text.includes(m));
    expect(lost).toEqual([]);
  });

  it('toolcap: the same names as fields of a tool are UNKNOWN_FIELD errors, and convert writes nothing', async () => {
    const c = DIALECTS.find((d) => d.id === 'toolcap')!;
    const doc = c.load();
    Object.assign(c.list(doc)[0]!, structuredClone(MARKERS));
    const w = writeCase(c, doc);
    const result = await cli('convert', w.file, '--to', 'toolcap', '--out', join(w.dir, 'converted'), ...w.args);
    expectNoCrash(result);
    expect(result.code).toBe(1);
    for (const key of Object.keys(MARKERS)) expect(result.stderr).toContain(key);
  });
});

describe('canonical fields that name paths and extension keys', () => {
  // `derived` lists canonical paths (exporters delete them) and `extensions` is keyed by dialect:
  // both are written by the manifest author in the canonical format.
  const overlay = [
    'toolcap: 1',
    'tools:',
    '  - name: x',
    '    derived: ["__proto__.polluted", "constructor.prototype", "__proto__", "toString", "effects.__proto__", "hasOwnProperty.x"]',
    '    effects: { mode: read, sideEffects: none }',
    '    extensions:',
    '      atlas: { constructor: { prototype: { polluted: 1 } }, toString: 1 }',
    '      xena: { constructor: { prototype: { polluted: 1 } } }',
    '      capability: { fields: { constructor: { prototype: { polluted: 1 } } } }',
    '      shinkai: { constructor: 1 }',
    '      pylot: { fields: { constructor: 1 } }',
    '',
  ].join('\n');

  it.each(DIALECTS.map((c) => [c.id]))('layered and converted to %s: no crash, nothing polluted', async (to) => {
    const dir = tmp();
    const base = put(dir, 'base/tools.yaml', 'toolcap: 1\ntools:\n  - name: x\n    effects: { mode: read, sideEffects: none }\n');
    const over = put(dir, 'overlay/tools.yaml', overlay);
    const r = await cli('convert', base, over, '--to', to, '--out', join(dir, 'out'));
    expectNoCrash(r);
    expect([0, 1]).toContain(r.code);
    const shown = await inspect(base, over);
    expect([0, 1]).toContain(shown.code);
  });
});
