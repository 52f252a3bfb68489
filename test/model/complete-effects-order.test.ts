// complete() builds the effects group of a tool declaring nothing or only `sideEffects` as one literal
// (model/derive.ts). Its keys must come in the order of the general case, which JSON output and
// hashes show: declared keys first, in their order, then the derived ones in a fixed order.
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import type { Tool } from '../../src/model/schema.js';

/** The general case, spelled out: a copy of the declared keys, then every derivable key assigned in order. */
function expectedKeys(declared: Record<string, unknown>): string[] {
  const keys = Object.keys(declared);
  for (const k of ['mode', 'sideEffects', 'reversible', 'risk', 'deterministic']) if (!keys.includes(k)) keys.push(k);
  return keys;
}

describe('complete: effects key order', () => {
  it.each<[string, Record<string, unknown>]>([
    ['nothing declared (with execution declared)', {}],
    ['only sideEffects: none', { sideEffects: 'none' }],
    ['only sideEffects: write', { sideEffects: 'write' }],
    ['risk before sideEffects', { risk: 'high', sideEffects: 'none' }],
    ['sideEffects then mode', { sideEffects: 'network', mode: 'read' }],
    ['only mode', { mode: 'read' }],
    ['an undeclared extra key', { sideEffects: 'none', rollbackHint: 'undo' }],
  ])('%s', (_label, effects) => {
    const tool = { name: 'x', effects, execution: { timeoutSec: 5 } } as Tool;
    const done = complete(tool);
    expect(Object.keys(done.effects!)).toEqual(expectedKeys(effects));
    expect(done.effects).toMatchObject(effects);
    // the declared group is never the completed one (nor changed)
    expect(done.effects).not.toBe(effects);
    expect(Object.keys(effects)).toEqual(Object.keys({ ...effects }));
  });

  it('a side-effect category alone gives what the general case gives, value for value', () => {
    expect(complete({ name: 'x', effects: { sideEffects: 'none' } } as Tool).effects).toEqual({ sideEffects: 'none', mode: 'read', reversible: 'full', risk: 'low', deterministic: false });
    expect(JSON.stringify(complete({ name: 'x', effects: { sideEffects: 'write' } } as Tool).effects)).toBe('{"sideEffects":"write","mode":"write","reversible":"none","risk":"high","deterministic":false}');
  });
});
