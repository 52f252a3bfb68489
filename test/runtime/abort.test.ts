import { afterEach, describe, expect, it, vi } from 'vitest';
import { getEventListeners } from 'node:events';
import { attemptSignal, raceAbort, sleep } from '../../src/runtime/abort.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('raceAbort', () => {
  it('settles with the work when the signal stays quiet', async () => {
    await expect(raceAbort(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error('no')), new AbortController().signal)).rejects.toThrow('no');
  });

  it('rejects with the signal reason as soon as it aborts, even if the work never settles', async () => {
    const controller = new AbortController();
    const raced = raceAbort(new Promise(() => undefined), controller.signal);
    controller.abort(new Error('timeout'));
    await expect(raced).rejects.toThrow('timeout');
  });

  it.each([
    ['already aborted', true],
    ['aborted during the race', false],
  ] as const)('the error maker learns whether the signal was %s', async (_label, before) => {
    const controller = new AbortController();
    if (before) controller.abort();
    const raced = raceAbort(new Promise(() => undefined), controller.signal, (b) => new Error(b ? 'before' : 'during'));
    controller.abort();
    await expect(raced).rejects.toThrow(before ? 'before' : 'during');
  });
});

describe('sleep', () => {
  it('waits the time given', async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = sleep(100).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(done).toBe(true);
  });

  it('ends early with the reason when the signal aborts', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waiting = sleep(10_000, controller.signal);
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
  });
});

describe('attemptSignal', () => {
  it('aborts with a TimeoutError once the time is up', async () => {
    vi.useFakeTimers();
    const { signal } = attemptSignal(1000);
    vi.advanceTimersByTime(999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ name: 'TimeoutError' });
  });

  it('aborts with the parent’s reason, at once when the parent has already aborted', () => {
    const parent = new AbortController();
    const attempt = attemptSignal(60_000, parent.signal);
    parent.abort(new Error('caller gave up'));
    expect(attempt.signal.reason).toEqual(new Error('caller gave up'));
    attempt.release();
    expect(attemptSignal(60_000, parent.signal).signal.reason).toEqual(new Error('caller gave up'));
  });

  it('a timeout longer than a Node timer holds (a manifest\'s timeoutSec of 40 days) does not abort at once', async () => {
    const attempt = attemptSignal(40 * 86_400_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(attempt.signal.aborted).toBe(false);
    attempt.release();
  });

  it('after release() it never aborts: the timer is cleared and the parent no longer listened to', () => {
    vi.useFakeTimers();
    const parent = new AbortController();
    const attempt = attemptSignal(1000, parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    attempt.release();
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    vi.advanceTimersByTime(5000);
    parent.abort();
    expect(attempt.signal.aborted).toBe(false);
  });
});
