/**
 * The other instances' calls read into the health book: the first read only
 * notes what is there (the host seeded it already), a call is counted once
 * however many reads return it, and this process's own calls never.
 */
import { describe, expect, it } from 'vitest';
import { HealthBook } from '../../../src/runtime/health.js';
import { SharedCalls } from '../../../src/runtime/cluster/shared-calls.js';
import type { CallQuery, CallRecord } from '../../../src/store/types.js';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');

const call = (callId: string, over: Partial<CallRecord> = {}): CallRecord => ({
  callId,
  tool: 't',
  provider: 'p',
  job: null,
  persona: null,
  startedAt: new Date(NOW - 1000).toISOString(),
  durationMs: 10,
  outcome: 'ok',
  errorCode: null,
  ...over,
});

function table(rows: CallRecord[]) {
  const queries: CallQuery[] = [];
  return { queries, store: { listCalls: async (q: CallQuery = {}) => (queries.push(q), rows.filter((r) => q.since === undefined || r.startedAt >= q.since).reverse()) } };
}

describe('shared calls', () => {
  it('primes on the first read, then counts each other call once and never its own', async () => {
    const rows = [call('before')];
    const { store, queries } = table(rows);
    const health = new HealthBook();
    const shared = new SharedCalls(store, health, () => NOW);
    expect(await shared.pull()).toBe(0);
    expect(health.lookup('t')).toBeUndefined();

    health.record('t', { ok: false, durationMs: 5, at: NOW, provider: 'p', errorCode: 'TIMEOUT' }, null, 'mine');
    rows.push(call('mine', { outcome: 'timeout', errorCode: 'TIMEOUT' }), call('other-1'), call('other-2', { outcome: 'error', errorCode: 'PROVIDER_ERROR' }), call('rejected', { outcome: 'error', errorCode: 'TOOL_REJECTED' }));
    expect(await shared.pull()).toBe(2);
    expect(await shared.pull()).toBe(0);
    expect(health.lookup('t')).toMatchObject({ calls: 3, successRate: 1 / 3 });
    expect(queries.every((q) => q.limit === 1000 && q.since !== undefined)).toBe(true);
    shared.close();
  });
});
