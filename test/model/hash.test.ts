import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';
import { contentHash, toolHash } from '../../src/model/hash.js';

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
