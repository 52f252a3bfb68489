import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { contentHash, toolHash } from '../../src/model/hash.js';
import { canonicalJson, writeCanonicalJson } from '../../src/model/objects.js';

const TOOL: Tool = {
  name: 'files.delete',
  version: '1.0.0',
  description: 'Delete a file',
  effects: { mode: 'write', sideEffects: 'filesystem', reversible: 'none' },
  approval: { required: true },
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

describe('toolHash', () => {
  it('is sha256 of the canonical JSON of the declared tool', () => {
    const expected = createHash('sha256').update('{"name":"a"}').digest('hex');
    expect(toolHash({ name: 'a' })).toBe(`sha256:${expected}`);
    expect(toolHash(TOOL)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('does not depend on key order, at any depth', () => {
    const reordered: Tool = {
      inputSchema: { required: ['path'], properties: { path: { type: 'string' } }, type: 'object' },
      approval: { required: true },
      effects: { reversible: 'none', sideEffects: 'filesystem', mode: 'write' },
      description: 'Delete a file',
      version: '1.0.0',
      name: 'files.delete',
    };
    expect(toolHash(reordered)).toBe(toolHash(TOOL));
  });

  it('leaves derived values out: a tool hashes the same before and after completion', () => {
    expect(toolHash(complete(TOOL))).toBe(toolHash(TOOL));
    expect(toolHash({ name: 'a', approval: {} })).toBe(toolHash({ name: 'a' }));
  });

  it.each<[string, Tool]>([
    ['description', { ...TOOL, description: 'Delete one file' }],
    ['version', { ...TOOL, version: '1.0.1' }],
    ['a declared value equal to the derived one', { ...TOOL, effects: { ...TOOL.effects, risk: 'medium' } }],
    ['a schema detail', { ...TOOL, inputSchema: { type: 'object', properties: { path: { type: 'string', minLength: 1 } }, required: ['path'] } }],
    ['array order', { ...TOOL, tags: ['b', 'a'] }],
  ])('changes with %s', (_what, changed) => {
    expect(toolHash(changed)).not.toBe(toolHash(TOOL));
  });

  it('contentHash ignores undefined properties like JSON does', () => {
    expect(contentHash({ a: 1, b: undefined })).toBe(contentHash({ a: 1 }));
  });
});

describe('canonical JSON written in pieces', () => {
  /** The canonical text as the hash has always defined it (keys sorted, undefined left out of objects, null in arrays). */
  const reference = (value: unknown): string => {
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
    if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(',')}}`;
  };
  const shared = { type: 'object', properties: { id: { type: 'string', description: 'é ☃ \u2028 "quoted"' } } };
  it.each([
    ['a scalar', 'x'],
    ['null', null],
    ['undefined in objects and arrays', { a: undefined, b: [undefined, 1, () => 2], c: () => 3 }],
    ['empty containers', { a: {}, b: [], c: [{}, []] }],
    ['one definition reached from many places', { a: shared, b: [shared, { c: shared }], d: { e: { f: shared } } }],
    ['keys needing escapes and sorting', { z: 1, 'a"b': 2, '\n': 3, Ä: 4, a: { y: 1, b: 2 } }],
    ['deep nesting', JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`) as unknown],
    // eslint-disable-next-line no-sparse-arrays
    ['holes in arrays (written as nothing, not as null)', [1, , 3, [, 'x']]],
  ])('%s: the pieces join to the canonical text, whatever their size, and hash the same', (_what, value) => {
    const text = reference(value);
    expect(canonicalJson(value)).toBe(text);
    for (const chunk of [1, 7, 64, 65_536]) {
      const pieces: string[] = [];
      writeCanonicalJson(value, (piece) => pieces.push(piece), chunk);
      expect(pieces.join('')).toBe(text);
      if (chunk === 1 && text.length > 40) expect(pieces.length).toBeGreaterThan(1);
    }
    expect(contentHash(value)).toBe(`sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`);
  });

  it('writes nesting far deeper than the call stack allows recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = i % 2 === 0 ? [deep] : { a: deep };
    const text = canonicalJson(deep);
    expect(text.length).toBe(1 + 25_000 * 2 + 25_000 * 6);
    expect(contentHash(deep)).toBe(`sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`);
  });
});
