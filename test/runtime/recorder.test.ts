import { describe, expect, it } from 'vitest';
import { OutcomeRecorder } from '../../src/runtime/recorder.js';
import type { CallOutcomeRecord, Store } from '../../src/store/types.js';

/** A store that only counts what the recorder gives it; `fail` makes the next writes reject. */
function countingStore(options: { batch: boolean }) {
  const batches: number[] = [];
  const singles: string[] = [];
  const state = { fail: false };
  const store = {
    kind: 'sqlite',
    location: 'memory',
    recordCall: async (c: { callId: string }) => {
      if (state.fail) throw new Error('disk full');
      singles.push(c.callId);
    },
    appendAudit: async () => {
      if (state.fail) throw new Error('disk full');
      return { seq: 1 };
    },
    ...(options.batch
      ? {
          recordOutcomes: async (outcomes: readonly CallOutcomeRecord[]) => {
            if (state.fail) throw new Error('disk full');
            batches.push(outcomes.length);
          },
        }
      : {}),
  } as unknown as Store;
  return { store, batches, singles, state };
}

const outcome = (i: number): CallOutcomeRecord => ({
  call: { callId: `c${i}`, tool: 't', provider: 'p', job: null, persona: null, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1, outcome: 'ok', errorCode: null },
  audit: { at: '2026-01-01T00:00:00.000Z', kind: 'call.ok', tool: 't', callId: `c${i}`, persona: null, actor: null, detail: {} },
});

describe('group commit of call outcomes', () => {
  it('writes everything that finished in one turn of the event loop as one batch', async () => {
    const { store, batches } = countingStore({ batch: true });
    const recorder = new OutcomeRecorder(store, () => undefined);
    const written = Array.from({ length: 20 }, (_, i) => recorder.add(outcome(i)));
    expect(recorder.pending).toBe(20);
    expect(await Promise.all(written)).toEqual(Array(20).fill(true));
    expect(batches).toEqual([20]);
    expect(recorder.pending).toBe(0);
  });

  it('falls back to one write per record on a store without recordOutcomes, in order', async () => {
    const { store, singles } = countingStore({ batch: false });
    const recorder = new OutcomeRecorder(store, () => undefined);
    for (let i = 0; i < 5; i++) void recorder.add(outcome(i));
    await recorder.flush();
    expect(singles).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });

  it('keeps a refused batch for the next flush, with a warning, and loses nothing', async () => {
    const { store, batches, state } = countingStore({ batch: true });
    const warnings: string[] = [];
    const recorder = new OutcomeRecorder(store, (m) => warnings.push(m));
    state.fail = true;
    const first = recorder.add(outcome(1));
    expect(await first).toBe(false);
    expect(warnings[0]).toMatch(/could not record 1 call outcome to the store \(kept for the next try\): disk full/);
    expect(recorder.pending).toBe(1);
    state.fail = false;
    void recorder.add(outcome(2));
    await recorder.flush();
    expect(batches).toEqual([2]);
    expect(recorder.pending).toBe(0);
  });

  it('flush() with nothing queued resolves at once', async () => {
    const { store, batches } = countingStore({ batch: true });
    await new OutcomeRecorder(store, () => undefined).flush();
    expect(batches).toEqual([]);
  });
});
