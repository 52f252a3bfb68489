/**
 * Waiters of an approval settled by another instance: a poke (the cluster
 * notice) makes them read the store at once, without waiting for the poll
 * (the fake clock never reaches it); a poke for another id reads nothing;
 * an approval settled here is announced, one not settled is not.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApprovalWaits } from '../../../src/runtime/approval-waits.js';

type V = { id: string; status: 'pending' | 'approved' | 'executed' };

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

describe('approval waits across instances', () => {
  it('a poke reads the store now and wakes the waiter when settled', async () => {
    const waits = new ApprovalWaits<V>();
    let stored: V = { id: 'a1', status: 'pending' };
    const read = vi.fn(async () => stored);
    const waited = waits.wait('a1', 60_000, undefined, read);
    await vi.advanceTimersByTimeAsync(0);
    expect(read).toHaveBeenCalledTimes(1);
    waits.poke('other');
    expect(read).toHaveBeenCalledTimes(1);
    stored = { id: 'a1', status: 'executed' };
    waits.poke('a1');
    expect(read).toHaveBeenCalledTimes(2);
    await expect(waited).resolves.toEqual({ id: 'a1', status: 'executed' });
    // done: a later poke finds nobody waiting
    waits.poke('a1');
    expect(read).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['settled here: announced', { id: 'a2', status: 'executed' } as V, ['a2']],
    ['not settled: not announced', { id: 'a3', status: 'approved' } as V, []],
  ])('%s', (_, approval, announced) => {
    const waits = new ApprovalWaits<V>();
    const seen: string[] = [];
    waits.onSettled((id) => seen.push(id));
    waits.notify(approval);
    expect(seen).toEqual(announced);
  });
});
