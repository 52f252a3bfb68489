/**
 * The health book's side of shared circuits: which outcomes announce a
 * change (opening, extending and closing a circuit, never a success on a
 * closed one), and how a change from another instance is merged (the later
 * one wins, a remote close ends a local backoff, a stale one is ignored).
 */
import { describe, expect, it } from 'vitest';
import { HealthBook, type CircuitChange } from '../../../src/runtime/health.js';

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
