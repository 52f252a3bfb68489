/**
 * 3. Resource limits: 10,000 levels of nesting inside a tool's input schema
 * (JSON, YAML flow, YAML block), YAML alias bombs inside it, a 40 MB file,
 * an empty file, a file of NUL bytes, and a truncated copy of every good
 * fixture. Each must end quickly in a located diagnostic.
 */
import { readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, parseSource } from '../../src/source/source.js';
import { type CoreDialect, DIALECTS, dialect, expectNoCrash, FIXTURES, inspect, type Obj, put, serialize, tmp, validate, writeCase, type DialectCase, removeTmp } from './helpers.js';
import { cli } from '../cli/helpers.js';

afterAll(removeTmp);

const LIMIT_MS = 10_000;
const DEPTH = 10_000;

/** Where each dialect keeps a tool's input schema, in the tool entry. */
const SCHEMA_KEY: Record<CoreDialect, string> = {
  toolcap: 'inputSchema',
  atlas: 'parameters',
  capability: 'inputSchema',
  pylot: 'inputs',
  xena: 'inputSchema',
  shinkai: 'parameters',
};

const MARK = 'ADVERSARIAL_PLACEHOLDER';

/** The good document with a placeholder string where the first tool's input schema holds a property. */
function withPlaceholder(c: DialectCase): Obj | Obj[] {
  const doc = c.load();
  const entry = c.list(doc)[0]!;
  entry[SCHEMA_KEY[c.id]] = c.id === 'pylot' ? { deep: MARK } : { type: 'object', properties: { deep: MARK } };
  return doc;
}

/** Replace the line holding the YAML placeholder (`key: MARK`) by `key:` and `block`, indented under it. */
function yamlBlockAt(text: string, block: (indent: string) => string): string {
  const line = new RegExp(`^( *)([^\\n]*?): ["']?${MARK}["']?$`, 'm');
  expect(text).toMatch(line);
  return text.replace(line, (_all, indent: string, key: string) => `${indent}${key}:\n${block(`${indent}  `)}`);
}

/** Replace the placeholder scalar (JSON or YAML) by raw text. */
function inline(text: string, raw: string): string {
  const quoted = new RegExp(`["']?${MARK}["']?`);
  expect(text).toMatch(quoted);
  return text.replace(quoted, () => raw);
}

const deepJsonArrays = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const deepJsonObjects = '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);
const deepFlowMaps = '{a: '.repeat(DEPTH) + '1' + '}'.repeat(DEPTH);

function billionLaughs(indent: string): string {
  const lol = '["lol","lol","lol","lol","lol","lol","lol","lol","lol"]';
  const lines = [`a: &a ${lol}`];
  for (const [name, prev] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd'], ['f', 'e'], ['g', 'f'], ['h', 'g'], ['i', 'h']] as const) {
    lines.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${prev}`).join(',')}]`);
  }
  return lines.map((l) => indent + l).join('\n');
}

interface Hostile {
  label: string;
  format: 'json' | 'yaml';
  build(text: string): string;
  code: 'NESTING_TOO_DEEP' | 'YAML_ALIAS_LIMIT';
}

const HOSTILE: readonly Hostile[] = [
  { label: 'JSON arrays 10,000 deep', format: 'json', build: (t) => inline(t, deepJsonArrays), code: 'NESTING_TOO_DEEP' },
  { label: 'JSON objects 10,000 deep', format: 'json', build: (t) => inline(t, deepJsonObjects), code: 'NESTING_TOO_DEEP' },
  { label: 'YAML flow sequences 10,000 deep', format: 'yaml', build: (t) => inline(t, deepJsonArrays), code: 'NESTING_TOO_DEEP' },
  { label: 'YAML flow mappings 10,000 deep', format: 'yaml', build: (t) => inline(t, deepFlowMaps), code: 'NESTING_TOO_DEEP' },
  { label: 'YAML block sequences 10,000 deep', format: 'yaml', build: (t) => yamlBlockAt(t, (i) => `${i}${'- '.repeat(DEPTH)}x`), code: 'NESTING_TOO_DEEP' },
  {
    label: 'YAML block mappings 1,000 deep',
    format: 'yaml',
    build: (t) => yamlBlockAt(t, (i) => Array.from({ length: 1000 }, (_, k) => `${i}${' '.repeat(k)}k${k}:`).join('\n') + ' 1'),
    code: 'NESTING_TOO_DEEP',
  },
  { label: 'a YAML alias bomb (billion laughs)', format: 'yaml', build: (t) => yamlBlockAt(t, billionLaughs), code: 'YAML_ALIAS_LIMIT' },
];

describe.each(DIALECTS.map((c) => [c.id, c] as const))('%s: hostile input schemas', (_id, c) => {
  it.each(HOSTILE.map((h) => [h.label, h] as const))('%s -> located error, quickly', async (_label, h) => {
    const text = h.build(serialize(withPlaceholder(c), h.format));
    const w = writeCase(c, undefined, h.format, text);
    const r = await validate(w.file, ...w.args);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: h.code, severity: 'error', file: w.file, line: expect.any(Number) }));
  }, LIMIT_MS);
});

describe('hostile schemas behind a capability inputSchemaRef', () => {
  const c = dialect('capability');
  it.each([
    ['JSON arrays 10,000 deep', 'deep.json', deepJsonArrays, 'NESTING_TOO_DEEP'],
    ['YAML flow mappings 10,000 deep', 'deep.yaml', deepFlowMaps, 'NESTING_TOO_DEEP'],
    ['a YAML alias bomb', 'bomb.yaml', billionLaughs(''), 'YAML_ALIAS_LIMIT'],
  ])('%s in the referenced file -> %s located in that file', async (_label, name, body, code) => {
    const doc = c.load();
    const entry = c.list(doc)[0]!;
    delete entry['inputSchema'];
    entry['inputSchemaRef'] = `schemas/${name}`;
    const w = writeCase(c, doc);
    put(w.dir, `schemas/${name}`, body);
    const r = await validate(w.file, ...w.args);
    expect(r.code).toBe(1);
    // (the path of a referenced file is shown relative to the working folder)
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code, file: expect.stringMatching(new RegExp(`schemas/${name}$`)), line: expect.any(Number) }));
  }, LIMIT_MS);
});

describe('the YAML nesting guard cannot be sidestepped', () => {
  // A quote inside a plain scalar of a flow sequence ("a 'b") is not a quoted
  // string in YAML, so the brackets after it still nest.
  it.each([
    ['100 levels (past the limit of 64)', 100],
    ['10,000 levels', DEPTH],
  ])("a flow plain scalar holding a quote, then %s -> NESTING_TOO_DEEP, quickly", async (_label, depth) => {
    const text = `toolcap: 1\ntools:\n  - name: x\n    inputSchema: [a 'b, ${'['.repeat(depth)}${']'.repeat(depth)}]\n`;
    const file = put(tmp(), 'tools.yaml', text);
    const r = await validate(file);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'NESTING_TOO_DEEP', file, line: 4 }));
  }, LIMIT_MS);
});

describe.each(DIALECTS.map((c) => [c.id, c] as const))('%s: degenerate files', (_id, c) => {
  it('a 40 MB manifest -> FILE_TOO_LARGE, without reading it', async () => {
    const doc = c.load();
    c.list(doc)[0]!['description'] = 'x'.repeat(40 * 1024 * 1024);
    const w = writeCase(c, doc);
    expect(statSync(w.file).size).toBeGreaterThan(DEFAULT_LIMITS.maxBytes);
    const r = await validate(w.file, ...w.args);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toMatchObject([{ code: 'FILE_TOO_LARGE', severity: 'error', file: w.file }]);
  }, LIMIT_MS);

  it('an empty manifest -> FILE_EMPTY at line 1', async () => {
    const w = writeCase(c, undefined, c.format, '');
    const r = await validate(w.file, ...w.args);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toMatchObject([{ code: 'FILE_EMPTY', severity: 'error', file: w.file, line: 1 }]);
  });

  it('a manifest of NUL bytes -> an error at line 1', async () => {
    const w = writeCase(c, undefined, c.format, '\0'.repeat(4096));
    const r = await validate(w.file, ...w.args);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ severity: 'error', file: w.file, line: 1 }));
  });
});

describe('NUL bytes are not a document', () => {
  it.each([['a.json'], ['a.yaml']])('parseSource(%s) of NUL bytes gives an error', (path) => {
    const { file, diagnostics } = parseSource(path, '\0'.repeat(64));
    expect(file).toBeUndefined();
    expect(diagnostics).toContainEqual(expect.objectContaining({ severity: 'error', file: path, line: 1 }));
  });

  it.each([['tools.json'], ['tools.yaml']])('a folder holding a NUL-filled %s fails validation', async (name) => {
    const dir = tmp();
    put(dir, 'good.yaml', 'toolcap: 1\ntools:\n  - name: a\n    effects: { mode: read, sideEffects: none }\n');
    const bad = put(dir, name, '\0'.repeat(4096));
    const r = await validate(dir);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ severity: 'error', file: bad }));
  });
});

describe('40 MB reached another way', () => {
  const big = () => {
    const dir = tmp();
    const file = put(dir, 'real/big.json', JSON.stringify({ toolcap: 1, tools: [{ name: 'a', description: 'x'.repeat(40 * 1024 * 1024) }] }));
    return { dir, file };
  };

  it('in a folder walk -> FILE_TOO_LARGE', async () => {
    const { dir, file } = big();
    const r = await validate(dir);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toMatchObject([{ code: 'FILE_TOO_LARGE', file }]);
  }, LIMIT_MS);

  it('through a symbolic link given as the path -> FILE_TOO_LARGE', async () => {
    const { dir, file } = big();
    const link = join(dir, 'link.json');
    symlinkSync(file, link);
    const r = await validate(link);
    expect(r.code).toBe(1);
    expect(r.tools).toBe(0);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'FILE_TOO_LARGE' }));
  }, LIMIT_MS);
});

/** Good fixtures of the six dialects (and the canonical core), skipping broken ones and referenced schemas. */
function goodFixtures(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (e.name !== 'broken' && e.name !== 'schemas') walk(join(dir, e.name));
      } else if (/\.(json|ya?ml)$/.test(e.name)) out.push(join(dir, e.name));
    }
  };
  for (const d of ['core', 'atlas', 'capability', 'pylot', 'xena', 'shinkai']) walk(join(FIXTURES, d));
  return out.sort();
}

/**
 * Where to cut YAML so that the rest cannot be valid: just inside a flow
 * collection or a double-quoted scalar, at or after the middle if possible.
 */
function yamlCut(text: string): number | undefined {
  const openers = [...text.matchAll(/(?:: |- |[[{,] ?)([[{"])/g)].map((m) => (m.index ?? 0) + m[0].length);
  const mid = text.length >> 1;
  return openers.find((i) => i >= mid) ?? openers[openers.length - 1];
}

describe('truncated copies of every good fixture', () => {
  const fixtures = goodFixtures();

  it('there are fixtures of every dialect', () => {
    for (const d of ['atlas', 'capability', 'pylot', 'xena', 'shinkai', 'core']) expect(fixtures.some((f) => f.includes(`/${d}/`))).toBe(true);
  });

  it.each(fixtures.map((f) => [relative(FIXTURES, f), f]))('%s cut in the middle -> located diagnostics, never a crash', async (rel, path) => {
    const text = readFileSync(path, 'utf8');
    const isJson = path.endsWith('.json');
    const dir = tmp();
    // same relative path, so that path-based detection still applies
    const file = put(dir, rel, text.slice(0, text.length >> 1));
    const r = await validate(file);
    expect([0, 1]).toContain(r.code);
    for (const d of r.diagnostics.filter((x) => x.file === file)) expect(d.line, d.code).toBeDefined();
    if (isJson) {
      expect(r.code).toBe(1);
      expect(r.diagnostics).toMatchObject([{ code: 'PARSE_ERROR', file, line: expect.any(Number) }]);
    }
  }, LIMIT_MS);

  const yamlWithFlow = fixtures.filter((f) => !f.endsWith('.json')).map((f) => [relative(FIXTURES, f), f] as const).filter(([, f]) => yamlCut(readFileSync(f, 'utf8')) !== undefined);

  it('some YAML fixtures have a flow collection or quoted scalar to cut inside', () => {
    expect(yamlWithFlow.length).toBeGreaterThan(2);
  });

  it.each(yamlWithFlow)('%s cut inside a flow collection or quoted scalar -> PARSE_ERROR with a line', async (rel, path) => {
    const text = readFileSync(path, 'utf8');
    const dir = tmp();
    const file = put(dir, rel, text.slice(0, yamlCut(text)!));
    const r = await validate(file);
    expect(r.code).toBe(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'PARSE_ERROR', file, line: expect.any(Number) });
  }, LIMIT_MS);
});


describe('YAML features that are not plain data', () => {
  const tool = (extra: string) => `toolcap: 1\ntools:\n  - name: x\n    effects: { mode: read, sideEffects: none }\n${extra}`;
  it.each([
    ['a !!binary tag', tool('    description: !!binary aGVsbG8=\n')],
    ['a !!set tag', tool('    tags: !!set { a, b }\n')],
    ['a !!js/function tag', tool('    description: !!js/function "function () { return 1 }"\n')],
    ['a custom tag', tool('    description: !custom foo\n')],
    ['a merge key', 'base: &b { mode: read, sideEffects: none }\ntoolcap: 1\ntools:\n  - name: x\n    effects: { <<: *b }\n'],
    ['two documents in one file', `${tool('')}---\ntoolcap: 1\n`],
    ['a float too large for a double', tool('    cost: { estimatedDollars: 1e400 }\n')],
  ])('%s -> exit 0 or 1, located findings, no crash', async (_what, text) => {
    const file = put(tmp(), 'tools.yaml', text);
    for (const extra of [[], ['--compile-schemas']]) {
      const r = await validate(file, ...extra);
      expect([0, 1]).toContain(r.code);
      for (const d of r.diagnostics.filter((x) => x.file === file)) expect(d.line, d.code).toBeDefined();
    }
  });
});

describe('YAML whose data would not be a tree of plain values', () => {
  const tool = (extra: string) => `toolcap: 1\ntools:\n  - name: x\n    effects: { mode: read, sideEffects: none }\n${extra}`;
  // rows: what, text, [line, column] of the finding
  it.each([
    // an alias inside the node it names: the data contains itself (inspect --json crashed with exit 70)
    ['an alias inside its own anchor (a list)', tool('    metadata: &a [*a]\n'), [5, 19]],
    ['an alias inside its own anchor (a schema)', tool('    inputSchema: &s { type: object, properties: { x: *s } }\n'), [5, 54]],
    ['a merge key naming its own mapping', tool('    metadata: &m { a: 1, <<: *m }\n'), [5, 30]],
    ['an alias two levels inside its anchor', tool('    metadata: &m\n      a:\n        - *m\n'), [7, 11]],
    // a list or mapping as a key: yaml turned it into the string "[ a, b ]" and printed a process warning
    ['a list as a key', tool('    metadata: { [a, b]: c }\n'), [5, 17]],
    ['a mapping as a key', tool('    metadata:\n      ? { a: 1 }\n      : c\n'), [6, 9]],
    ['an alias of a list as a key', tool('    tags: &l [a]\n    metadata: { *l : c }\n'), [6, 17]],
  ])('%s -> PARSE_ERROR at its line; inspect and convert do not crash', async (_what, text, [line, column]) => {
    const file = put(tmp(), 'tools.yaml', text);
    const r = await validate(file);
    expect(r.code).toBe(1);
    expect(r.diagnostics).toMatchObject([{ code: 'PARSE_ERROR', file, line, column }]);
    const shown = await inspect(file);
    expect(shown.code).toBe(1);
    const converted = await cli('convert', file, '--to', 'mcp');
    expectNoCrash(converted);
    expect(converted.code).toBe(1);
  });
  // Alias.resolve(doc) without a context walks the whole document: called per alias, 32,000 aliases (128 KB) took minutes
  it('32,000 aliases of one anchor: YAML_ALIAS_LIMIT, in linear time', () => {
    const text = tool(`    metadata: { x: &a 1, list: [${Array.from({ length: 32_000 }, () => '*a').join(', ')}] }\n`);
    const started = performance.now();
    expect(parseSource('tools.yaml', text).diagnostics).toMatchObject([{ code: 'YAML_ALIAS_LIMIT' }]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
  it('an alias key naming a list anchored earlier in the same mapping is a collection key; one naming a scalar is not', () => {
    expect(parseSource('tools.yaml', tool('    metadata: { &l [a]: 1, *l : 2 }\n')).diagnostics.map((d) => d.code)).toEqual(['PARSE_ERROR', 'PARSE_ERROR']);
    // (naming the scalar of a key of the same mapping, it would be a DUPLICATE_KEY: test/source/source.test.ts)
    expect(parseSource('tools.yaml', tool('    metadata: { x: &k a, *k : 2 }\n')).diagnostics).toEqual([]);
  });
});

describe('a YAML alias shares one value between two places', () => {
  // `skills[0].tools` must be a list of names; here it is an alias of the tool list itself.
  const text = 'toolcap: 1\ntools: &t\n  - name: x\n    effects: { mode: read, sideEffects: none }\nskills:\n  - name: s\n    tools: *t\n';

  it('a finding reached through the alias still has a line', async () => {
    const file = put(tmp(), 'tools.yaml', text);
    const r = await validate(file);
    expect(r.code).toBe(1);
    const findings = r.diagnostics.filter((d) => d.file === file);
    expect(findings.length).toBeGreaterThan(0);
    for (const d of findings) expect(d.line, `${d.code} at ${d.pointer}`).toBeDefined();
  });

  it('rejecting the bad use does not silently drop the valid tool it aliases', async () => {
    const file = put(tmp(), 'tools.yaml', text);
    const r = await validate(file);
    expect(r.tools).toBe(1);
  });
});
