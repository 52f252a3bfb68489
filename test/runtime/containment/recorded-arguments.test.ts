import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { isSensitiveSchema, recordedArguments } from '../../../src/runtime/containment/recorded-arguments.js';

const tool: Pick<Tool, 'observability' | 'inputSchema'> = {
  observability: { traceAttrs: ['repo', 'token', 'secret', 'options', 'items', 'missing', 'free'] },
  inputSchema: {
    type: 'object',
    properties: {
      repo: { type: 'string' },
      token: { type: 'string', 'x-sensitive': true },
      secret: { type: 'string', sensitive: true },
      body: { type: 'string' },
      options: {
        type: 'object',
        properties: { depth: { type: 'number' }, password: { type: 'string', format: 'password' } },
        additionalProperties: { type: 'string', writeOnly: true },
      },
      items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, key: { type: 'string', sensitive: true } } } },
    },
  },
};

describe('recordedArguments', () => {
  it('keeps only traceAttrs fields, never sensitive ones, at any depth', () => {
    const args = {
      repo: 'acme/api',
      token: 'ghp_x',
      secret: 's',
      body: 'not traced',
      options: { depth: 2, password: 'pw', extra: 'write-only' },
      items: [{ name: 'a', key: 'k1' }, 'odd'],
      free: { anything: 1 },
    };
    expect(recordedArguments(tool, args)).toEqual({
      repo: 'acme/api',
      options: { depth: 2 },
      items: [{ name: 'a' }, 'odd'],
      free: { anything: 1 }, // no schema for it: traced as named
    });
  });

  it.each([
    [{ observability: {} }, {}],
    [{}, {}],
    [{ observability: { traceAttrs: ['a'] } }, { a: 1 }],
    [{ observability: { traceAttrs: ['a'] }, inputSchema: true }, { a: 1 }],
  ] as Array<[Pick<Tool, 'observability' | 'inputSchema'>, Record<string, unknown>]>)('%j records %j of { a: 1, b: 2 }', (t, expected) => {
    expect(recordedArguments(t, { a: 1, b: 2 })).toEqual(expected);
  });

  it.each([
    [{ sensitive: true }, true],
    [{ 'x-sensitive': true }, true],
    [{ format: 'password' }, true],
    [{ writeOnly: true }, true],
    [{ sensitive: 'yes' }, false],
    [{ type: 'string' }, false],
    [true, false],
    [undefined, false],
  ])('isSensitiveSchema(%j) is %s', (schema, sensitive) => {
    expect(isSensitiveSchema(schema)).toBe(sensitive);
  });
});
