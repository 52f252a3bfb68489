import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from '../../src/runtime/backoff.js';

const flat: BackoffPolicy = { baseMs: 100, factor: 2, capMs: 1_000, jitter: 0, threshold: 1 };

describe('backoffDelay', () => {
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [4, 800],
    [5, 1_000], // capped
    [500, 1_000], // a long outage stays at the cap, never Infinity or NaN
    [0, 100], // below the threshold: the first wait
  ])('after %i failures waits %i ms without jitter', (failures, expected) => {
    expect(backoffDelay(failures, flat)).toBe(expected);
  });

  it.each([
    [0, 3_200],
    [0.5, 4_000],
    [0.999999, 4_800],
  ])('jitter spreads the wait by ±20 %% (random %f -> %i ms)', (r, expected) => {
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => r)).toBe(expected);
  });

  it('jitter never takes the wait past the cap', () => {
    expect(backoffDelay(50, DEFAULT_BACKOFF, () => 0.999999)).toBe(DEFAULT_BACKOFF.capMs);
  });

  it('a higher threshold delays the growth', () => {
    const policy = { ...flat, threshold: 3 };
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, policy))).toEqual([100, 100, 100, 200]);
  });
});
