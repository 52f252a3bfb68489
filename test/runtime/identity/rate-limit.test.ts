import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallRateLimiter, DEFAULT_RATE_LIMIT } from '../../../src/runtime/identity/rate-limit.js';

describe('CallRateLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-01-01T00:00:00.000Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('allows points calls per window for each principal, then says how long to wait', async () => {
    const limiter = new CallRateLimiter({ points: 3, durationSec: 10 });
    for (let i = 0; i < 3; i++) expect(await limiter.consume('ci-bot')).toEqual({ ok: true });
    vi.advanceTimersByTime(4000);
    expect(await limiter.consume('ci-bot')).toEqual({ ok: false, retryAfterMs: 6000 });
    // another principal has its own window
    expect(await limiter.consume('alice')).toEqual({ ok: true });
    vi.advanceTimersByTime(6000);
    expect(await limiter.consume('ci-bot')).toEqual({ ok: true });
  });

  it('counts a cost of several calls', async () => {
    const limiter = new CallRateLimiter({ points: 5, durationSec: 1 });
    expect(await limiter.consume('p', 5)).toEqual({ ok: true });
    expect(await limiter.consume('p')).toMatchObject({ ok: false });
  });

  it('gives named principals their own number of points, and 0 means no limit', async () => {
    const limiter = new CallRateLimiter({ points: 1, durationSec: 60, principals: { 'ci-bot': 3, 'batch': 0 } });
    expect(limiter.pointsFor('ci-bot')).toBe(3);
    expect(limiter.pointsFor('someone')).toBe(1);
    expect(limiter.pointsFor('__proto__')).toBe(1);
    const results = [];
    for (let i = 0; i < 4; i++) results.push((await limiter.consume('ci-bot')).ok);
    expect(results).toEqual([true, true, true, false]);
    for (let i = 0; i < 100; i++) expect(await limiter.consume('batch')).toEqual({ ok: true });
    expect(await limiter.consume('someone')).toEqual({ ok: true });
    expect(await limiter.consume('someone')).toEqual({ ok: false, retryAfterMs: 60_000 });
  });

  it('defaults to 60 calls a minute', async () => {
    expect(DEFAULT_RATE_LIMIT).toEqual({ points: 60, durationSec: 60, principals: {} });
    const limiter = new CallRateLimiter();
    for (let i = 0; i < 60; i++) expect((await limiter.consume('p')).ok).toBe(true);
    expect(await limiter.consume('p')).toEqual({ ok: false, retryAfterMs: 60_000 });
  });
});
