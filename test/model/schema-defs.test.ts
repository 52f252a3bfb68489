// Shared schema definitions (src/model/schema-defs.ts): lifted into one table
// only when shared, put back per tool with only what each schema reaches
// (recursion included), and the self-contained form still compiles and rejects
// bad values; plus jsonSize (src/model/json-size.ts) against JSON.stringify.
import { describe, expect, it } from 'vitest';
import { createAjv } from '../../src/model/validator.js';
import { jsonSize } from '../../src/model/json-size.js';
import { attachSharedDefs, defRefNames, reachedDefs, shareDefs, type DefsTable } from '../../src/model/schema-defs.js';
import type { Tool } from '../../src/model/schema.js';

// A recursive pair (node <-> edge), one leaf every big schema reaches, and one definition nobody reaches.
const leaf = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const node: Record<string, unknown> = { type: 'object', properties: { id: { type: 'string' }, edges: { type: 'array', items: { $ref: '#/$defs/edge' } }, owner: { $ref: '#/$defs/leaf' } }, required: ['id'] };
const edge: Record<string, unknown> = { type: 'object', properties: { to: { $ref: '#/$defs/node' } } };
const unused = { type: 'integer' };
const table: DefsTable = { node, edge, leaf, unused };

const input = (ref: string) => ({ type: 'object', properties: { body: { $ref: ref } }, required: ['body'] });
const bare: Tool[] = [
  { name: 'graph.get', outputSchema: { $ref: '#/$defs/node' } },
  { name: 'graph.put', inputSchema: input('#/$defs/node') },
  { name: 'leaf.put', inputSchema: input('#/$defs/leaf') },
  { name: 'plain', inputSchema: { type: 'object' } },
];
const full = attachSharedDefs(bare, table);

describe('attachSharedDefs: each schema gets the definitions it reaches, only those', () => {
  it.each([
    ['graph.get', 'outputSchema', ['edge', 'leaf', 'node']],
    ['graph.put', 'inputSchema', ['edge', 'leaf', 'node']],
    ['leaf.put', 'inputSchema', ['leaf']],
  ] as const)('%s %s holds %j', (name, field, expected) => {
    const schema = full.find((t) => t.name === name)![field] as Record<string, unknown>;
    expect(Object.keys(schema['$defs'] as object).sort()).toEqual(expected);
    expect(reachedDefs(schema).sort()).toEqual(expected);
    // shared, not copied
    expect((schema['$defs'] as DefsTable)['node'] ?? node).toBe(node);
  });

  it('leaves a tool needing nothing as it is', () => {
    expect(full[3]).toBe(bare[3]);
  });

  it("keeps a schema's own definition of a name over the table's", () => {
    const own = { type: 'string' };
    const [tool] = attachSharedDefs([{ name: 'x', inputSchema: { $ref: '#/$defs/leaf', $defs: { leaf: own } } }], table);
    expect((tool!.inputSchema as { $defs: DefsTable }).$defs).toEqual({ leaf: own });
  });

  it('follows references inside the own definitions to the table', () => {
    const [tool] = attachSharedDefs([{ name: 'x', inputSchema: { $ref: '#/$defs/mine', $defs: { mine: { $ref: '#/$defs/leaf' } } } }], table);
    expect(Object.keys((tool!.inputSchema as { $defs: DefsTable }).$defs).sort()).toEqual(['leaf', 'mine']);
  });
});

describe('shareDefs: definitions written once', () => {
  const shared = shareDefs(full);

  it('lifts what two or more schemas share, and only that', () => {
    expect(Object.keys(shared.$defs ?? {}).sort()).toEqual(['edge', 'leaf', 'node']);
    for (const tool of shared.tools) for (const f of ['inputSchema', 'outputSchema'] as const) expect((tool[f] as Record<string, unknown> | undefined)?.['$defs']).toBeUndefined();
  });

  it('reads back to the same tools (round trip)', () => {
    expect(attachSharedDefs(shared.tools, shared.$defs!)).toEqual(full);
  });

  it('is computed once per tool list', () => {
    expect(shareDefs(full)).toBe(shared);
  });

  it('keeps an unshared definition in its tool', () => {
    const only = shareDefs([full[2]!, bare[3]!]);
    expect(only.$defs).toBeUndefined();
    expect(only.tools[0]).toBe(full[2]);
  });

  it('keeps a name two different objects use in the tool that does not own it, and still reads back', () => {
    const other = { type: 'object', properties: { other: { type: 'boolean' } } };
    const clash: Tool[] = [...full, { name: 'clash', inputSchema: { $ref: '#/$defs/leaf', $defs: { leaf: other } } }];
    const out = shareDefs(clash);
    expect(out.$defs!['leaf']).toBe(leaf);
    expect((out.tools.at(-1)!.inputSchema as { $defs: DefsTable }).$defs).toEqual({ leaf: other });
    expect(attachSharedDefs(out.tools, out.$defs!)).toEqual(clash);
  });
});

describe('self-contained schemas compile and still check values', () => {
  const ajv = createAjv();
  const validate = ajv.compile(full[1]!.inputSchema as object);

  it.each([
    ['a recursive value', { body: { id: 'a', edges: [{ to: { id: 'b', edges: [{ to: { id: 'c' } }] } }], owner: { id: 'o' } } }, true],
    ['a missing id deep in the recursion', { body: { id: 'a', edges: [{ to: { edges: [] } }] } }, false],
    ['a wrong type through the leaf', { body: { id: 'a', owner: { id: 7 } } }, false],
    ['no body', {}, false],
  ])('%s: %s', (_what, value, ok) => {
    expect(validate(value)).toBe(ok);
  });
});

describe('defRefNames', () => {
  it.each([
    ['plain', { $ref: '#/$defs/a' }, ['a']],
    ['a deeper pointer', { items: { $ref: '#/$defs/a/properties/x' } }, ['a']],
    ['escaped and percent-encoded', { anyOf: [{ $ref: '#/$defs/a~1b' }, { $ref: '#/$defs/c%20d' }] }, ['a/b', 'c d']],
    ['other references', { $ref: 'other.json#/x', properties: { $ref: { type: 'string' } } }, []],
  ])('%s', (_what, value, names) => {
    expect([...defRefNames(value)].sort()).toEqual(names);
  });
});

describe('jsonSize is the byte length of compact JSON', () => {
  const sharedChild = { a: [1, 2.5, -3e21, true, null], 'k"ey': 'é ✓ \n "q"' };
  it.each([
    ['scalars', [0, 'x', false, null, 1.5e-7]],
    ['escapes and non-ASCII', { s: 'tab\t quote" back\\ é 𝄞 \u0001' }],
    ['undefined properties and array items', { a: undefined, b: [undefined, 1] }],
    ['a shared object reached twice', { one: sharedChild, two: [sharedChild, { sharedChild }] }],
    ['the recursive tools', full],
  ])('%s', (_what, value) => {
    expect(jsonSize(value)).toBe(Buffer.byteLength(JSON.stringify(value)));
  });
});
