/**
 * The health book's side of shared circuits: which outcomes announce a
 * change (opening, extending and closing a circuit, never a success on a
 * closed one), and how a change from another instance is merged (the later
 * one wins, a remote close ends a local backoff, a stale one is ignored).
 */
import { describe, expect, it } from 'vitest';
import { HealthBook, MAX_MERGED_CIRCUITS, MERGE_SKEW_MS, type CircuitChange } from '../../../src/runtime/health.js';

const book = () => new HealthBook({ backoff: { baseMs: 1000, jitter: 0 }, random: () => 0.5 });
const ok = (at: number) => ({ ok: true, durationMs: 1, at, provider: 'p', errorCode: null });
const failed = (at: number) => ({ ok: false, durationMs: 1, at, provider: 'p', errorCode: 'PROVIDER_ERROR' });

describe('circuit changes announced by the health book', () => {
  it.each([
    ['a success on a closed circuit', [ok(10)], []],
    ['a failure opens it', [failed(10)], [{ consecutiveFailures: 1, backoffUntil: 1010, changedAt: 10 }]],
    ['a second failure extends it', [failed(10), failed(20)], [{ backoffUntil: 1010 }, { consecutiveFailures: 2, backoffUntil: 2020, changedAt: 20 }]],
    ['a success closes it', [failed(10), ok(2000)], [{ backoffUntil: 1010 }, { consecutiveFailures: 0, backoffUntil: 0, changedAt: 2000 }]],
  ] as const)('%s', (_, outcomes, expected) => {
    const b = book();
    const seen: CircuitChange[] = [];
    b.onCircuitChange((c) => seen.push(c));
    for (const o of outcomes) b.recordAttempt('t', 'p', o);
    expect(seen).toEqual(expected.map((e) => expect.objectContaining({ tool: 't', provider: 'p', ...e })));
  });

  it('a merged change is not announced again', () => {
    const b = book();
    const seen: CircuitChange[] = [];
    b.onCircuitChange((c) => seen.push(c));
    b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 3, backoffUntil: 9000, changedAt: 50 });
    expect(seen).toEqual([]);
  });
});

describe('merging a circuit another instance changed', () => {
  it('an open remote circuit backs off here until the same time, and the router is refused', () => {
    const b = book();
    const before = b.version();
    expect(b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 2, backoffUntil: 5000, changedAt: 100 })).toBe(true);
    expect(b.circuit('t', 'p')).toMatchObject({ consecutiveFailures: 2, backoffUntil: 5000, probing: false });
    expect(b.admit('t', 'p', 200)).toMatchObject({ ok: false, until: 5000 });
    expect(b.version()).not.toBe(before);
  });

  it('a remote close (a probe that succeeded elsewhere) ends the backoff here', () => {
    const b = book();
    b.recordAttempt('t', 'p', failed(10));
    expect(b.admit('t', 'p', 20).ok).toBe(false);
    expect(b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 0, backoffUntil: 0, changedAt: 30 })).toBe(true);
    expect(b.admit('t', 'p', 40)).toEqual({ ok: true, probe: false });
  });

  it.each([
    ['older than the local change', 5],
    ['as old as the local change', 10],
  ])('a remote change %s is ignored', (_, changedAt) => {
    const b = book();
    b.recordAttempt('t', 'p', failed(10));
    expect(b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 0, backoffUntil: 0, changedAt })).toBe(false);
    expect(b.circuit('t', 'p').backoffUntil).toBe(1010);
  });

  it('a local outcome after a merged change wins over it', () => {
    const b = book();
    b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 1, backoffUntil: 5000, changedAt: 100 });
    b.recordAttempt('t', 'p', ok(200));
    expect(b.circuit('t', 'p').backoffUntil).toBe(0);
    expect(b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 1, backoffUntil: 5000, changedAt: 100 })).toBe(false);
  });
});

describe('merging bounds what another instance (or a forger) can say', () => {
  const NOW = 1_800_000_000_000;
  const CAP = 300_000; // the default capMs
  it.each([
    ['a change from the far future', { backoffUntil: 8.64e15, changedAt: 8.64e15 }, { backoffUntil: NOW + CAP + MERGE_SKEW_MS }],
    ['a backoff past the cap', { backoffUntil: NOW + 365 * 86_400_000, changedAt: NOW }, { backoffUntil: NOW + CAP + MERGE_SKEW_MS }],
    ['a plausible backoff', { backoffUntil: NOW + 5000, changedAt: NOW }, { backoffUntil: NOW + 5000 }],
    ['a negative failure count', { consecutiveFailures: -5, backoffUntil: NOW + 5000, changedAt: NOW }, { consecutiveFailures: 0 }],
    ['a huge failure count', { consecutiveFailures: 1e300, backoffUntil: NOW + 5000, changedAt: NOW }, { consecutiveFailures: 1_000_000 }],
  ] as const)('%s is clamped', (_, change, expected) => {
    const b = new HealthBook();
    expect(b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 2, ...change }, NOW)).toBe(true);
    expect(b.circuit('t', 'p')).toMatchObject(expected);
  });

  it('after a far-future change, a genuine close a little later still wins (here and merged)', () => {
    const b = new HealthBook();
    b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 1, backoffUntil: 8.64e15, changedAt: 8.64e15 }, NOW);
    expect(b.admit('t', 'p', NOW + 1000).ok).toBe(false);
    const later = NOW + MERGE_SKEW_MS + 1;
    expect(b.mergeCircuit({ tool: 't', provider: 'p', consecutiveFailures: 0, backoffUntil: 0, changedAt: later }, later)).toBe(true);
    expect(b.admit('t', 'p', later)).toEqual({ ok: true, probe: false });
  });

  it(`keeps at most ${MAX_MERGED_CIRCUITS} merged circuits; a known one still moves`, () => {
    const b = new HealthBook();
    for (let i = 0; i < MAX_MERGED_CIRCUITS + 500; i++) b.mergeCircuit({ tool: `junk.${i}`, provider: 'p', consecutiveFailures: 1, backoffUntil: 1, changedAt: 1 }, NOW);
    expect(b.circuitCount()).toBe(MAX_MERGED_CIRCUITS);
    expect(b.mergeCircuit({ tool: 'junk.0', provider: 'p', consecutiveFailures: 0, backoffUntil: 0, changedAt: 2 }, NOW)).toBe(true);
    expect(b.mergeCircuit({ tool: 'new.one', provider: 'p', consecutiveFailures: 0, backoffUntil: 0, changedAt: 2 }, NOW)).toBe(false);
  });
});
