/**
 * A canonical tool as the gateway lists it: annotations from what the
 * manifest declares (explicit hints win, derived values say nothing), the
 * title, schemas MCP accepts, and the capability block.
 */
import { describe, expect, it } from 'vitest';
import { complete } from '../../src/model/derive.js';
import { toolHash } from '../../src/model/hash.js';
import { CAPABILITY_META_KEY, mcpToolOf } from '../../src/mcp/projection.js';

describe('mcpToolOf', () => {
  const base = { name: 'x.y' };

  it.each([
    { title: 'nothing declared: no annotations (MCP defaults apply)', tool: { ...base }, annotations: undefined },
    { title: 'irreversible network mix', tool: { ...base, effects: { mode: 'mixed', sideEffects: 'network', reversible: 'none' } }, annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true } },
    { title: 'read-only: destructive is not written', tool: { ...base, effects: { mode: 'read', sideEffects: 'database', reversible: 'none' } }, annotations: { readOnlyHint: true, openWorldHint: false } },
    { title: 'an explicit hint wins', tool: { ...base, effects: { mode: 'write', sideEffects: 'database', reversible: 'none' }, hints: { destructive: false } }, annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false } },
    { title: 'the title, also in annotations for older clients', tool: { ...base, title: 'X Y', execution: { idempotent: true } }, annotations: { title: 'X Y', idempotentHint: true } },
  ] as const)('$title', ({ tool, annotations }) => {
    expect(mcpToolOf(tool).annotations).toEqual(annotations);
  });

  it("ignores complete()'s conservative fills: the capability block has them, the hints do not", () => {
    const tool = complete({ ...base, effects: { sideEffects: 'none' } });
    const listed = mcpToolOf(tool);
    expect(listed.annotations).toEqual({ openWorldHint: false });
    expect(listed._meta?.[CAPABILITY_META_KEY]).toMatchObject({ mode: 'read', sideEffects: 'none', reversible: 'full', manifestHash: toolHash(tool) });
  });

  it('replaces an input schema MCP cannot take as a root, and leaves out such an output schema', () => {
    const odd = mcpToolOf({ ...base, inputSchema: true, outputSchema: { type: 'array' } });
    expect(odd.inputSchema).toEqual({ type: 'object' });
    expect(odd.outputSchema).toBeUndefined();
    expect(mcpToolOf({ ...base, outputSchema: { properties: { a: { type: 'string' } } } }).outputSchema).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });
});
