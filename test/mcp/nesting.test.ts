/**
 * The nesting limit on tools/call arguments: the HTTP API's (a body of at
 * most 64 levels, so arguments of 63), a JSON-RPC InvalidParams error past
 * it, and no stack overflow at 5,000 levels.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { MAX_ARGUMENT_DEPTH, nestingDepth } from '../../src/mcp/nesting.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import { DEFAULT_LIMITS } from '../../src/source/source.js';
import { closeAll, connect, errorMeta, examplesEnv, rejection } from './gateway-helpers.js';

afterEach(closeAll);

/** Arguments `{ text: { a: { a: … } } }` nesting `levels` deep in all. */
function nested(levels: number): Record<string, unknown> {
  let value: unknown = 'x';
  for (let i = 1; i < levels; i++) value = { a: value };
  return { text: value };
}

describe('nestingDepth', () => {
  it.each([
    ['x', 0],
    [{}, 1],
    [[], 1],
    [{ a: [1, { b: null }] }, 3],
    [nested(5), 5],
  ])('%j is %i deep', (value, depth) => {
    expect(nestingDepth(value)).toBe(depth);
  });

  it('stops counting past the limit, and walks 100,000 levels without recursion', () => {
    expect(nestingDepth(nested(100_000), 10)).toBe(11);
    expect(nestingDepth(nested(100_000))).toBe(100_000);
  });

  it('is the HTTP body limit less the body object around the arguments', () => {
    expect(MAX_ARGUMENT_DEPTH).toBe(DEFAULT_LIMITS.maxDepth - 1);
  });
});

describe('tools/call arguments', () => {
  it.each([MAX_ARGUMENT_DEPTH + 1, 5_000])('%i levels: a JSON-RPC InvalidParams error, not a stack overflow', async (levels) => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const error = await rejection(client.callTool({ name: 'text.reverse', arguments: nested(levels) }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.data).toMatchObject({ code: 'ARGUMENTS_TOO_DEEP', maxDepth: MAX_ARGUMENT_DEPTH });
    // the gateway still serves
    const ok = await client.callTool({ name: 'text.reverse', arguments: { text: 'ab' } });
    expect(ok.structuredContent).toEqual({ reversed: 'ba' });
  });

  it(`${MAX_ARGUMENT_DEPTH} levels reach the runtime (here: its schema check)`, async () => {
    const { env } = await examplesEnv();
    const client = await connect(createGatewayServer({ registry: env.registry, runtime: env.runtime }));
    const result = await client.callTool({ name: 'text.reverse', arguments: nested(MAX_ARGUMENT_DEPTH) });
    expect(result.isError).toBe(true);
    expect(errorMeta(result)).toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });
});
