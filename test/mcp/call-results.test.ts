/**
 * Tool errors for call errors: the wire fields of callErrorWire(), the same
 * mapping the HTTP API uses, under `_meta["toolcap.dev/error"]`.
 */
import { describe, expect, it } from 'vitest';
import { callErrorResult, ERROR_META_KEY } from '../../src/mcp/call-results.js';
import { CallError, callErrorWire } from '../../src/runtime/errors.js';

describe('callErrorResult', () => {
  it.each([
    new CallError('INVALID_ARGUMENTS', 'bad', { pointer: '/text', problems: [{ pointer: '/text', message: 'must be string' }] }),
    new CallError('NO_HEALTHY_PROVIDER', 'all down', { retryAfterMs: 1500, providers: [{ provider: 'local', outcome: 'backing off' }], callId: 'call_1' }),
    new CallError('TIMEOUT', 'slow'),
  ])('carries the wire details of $code', (error) => {
    const result = callErrorResult(error);
    const wire = callErrorWire(error);
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: `${wire.code}: ${wire.message}` }]);
    expect(result._meta?.[ERROR_META_KEY]).toEqual({ code: wire.code, message: wire.message, ...wire.details });
  });
});
