import { describe, expect, it } from 'vitest';
import { CallJournal } from '../../src/runtime/call-journal.js';
import { createRedactor } from '../../src/runtime/containment/redact.js';
import { CallError } from '../../src/runtime/errors.js';
import { OutcomeRecorder, RETRY_MS } from '../../src/runtime/recorder.js';
import type { Tool } from '../../src/model/schema.js';
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

  it('a refused batch is tried again after a pause, not on every turn of the event loop (regression: a failing store spun a core and wrote a warning per turn)', async () => {
    const { store, batches, state } = countingStore({ batch: true });
    const warnings: string[] = [];
    const recorder = new OutcomeRecorder(store, (m) => warnings.push(m));
    state.fail = true;
    expect(await recorder.add(outcome(1))).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    // one try and one warning, not thousands
    expect(warnings.length).toBe(1);
    state.fail = false;
    await new Promise((r) => setTimeout(r, RETRY_MS + 100));
    // the kept record was written by the retry, with nothing else to prompt it
    expect(batches).toEqual([1]);
    expect(recorder.pending).toBe(0);
  });

  it('flush() with nothing queued resolves at once', async () => {
    const { store, batches } = countingStore({ batch: true });
    await new OutcomeRecorder(store, () => undefined).flush();
    expect(batches).toEqual([]);
  });
});

/** Every shape of store a library user may write: with or without the batch methods, empty batches, failing writes. */
const SHAPES: Array<[string, () => Store]> = [
  ['without recordOutcomes (one write per record)', () => countingStore({ batch: false }).store],
  ['with recordOutcomes', () => countingStore({ batch: true }).store],
  ['whose every write fails', () => {
    const s = countingStore({ batch: true });
    s.state.fail = true;
    return s.store;
  }],
  ['without recordOutcomes, whose every write fails', () => {
    const s = countingStore({ batch: false });
    s.state.fail = true;
    return s.store;
  }],
  ['that does nothing (a no-op store, as in bench router)', () => ({ recordCall: async () => undefined, appendAudit: async () => ({ seq: 1 }) }) as unknown as Store],
];

describe('close() and flush() end with every store shape (regression: #running left set spun flush at 100% CPU)', () => {
  it.each(SHAPES)('a store %s: flush after writes, after nothing, and twice', async (_label, make) => {
    const recorder = new OutcomeRecorder(make(), () => undefined);
    void recorder.add(outcome(1));
    await recorder.flush();
    await recorder.flush();
    void recorder.addStart(outcome(2).audit);
    await recorder.flush();
    await new OutcomeRecorder(make(), () => undefined).flush();
  });

  // Before the fix this hung the test run: the scheduled write found the queue already flushed, wrote an empty batch
  // without awaiting anything, and left its settled promise in #running; the next flush awaited it forever.
  it('a scheduled write that finds the queue already flushed does not leave a write "running"', async () => {
    const recorder = new OutcomeRecorder(countingStore({ batch: false }).store, () => undefined);
    void recorder.add(outcome(1));
    await recorder.flush(); // written before the scheduled write fires
    await new Promise<void>((r) => setImmediate(r)); // the scheduled write fires on an empty queue
    await recorder.flush();
    void recorder.add(outcome(2));
    await recorder.flush();
    expect(recorder.pending).toBe(0);
  });

  it('the runtime closes over a store without recordOutcomes whose writes resolve at once', async () => {
    const recorder = new OutcomeRecorder({ recordCall: () => Promise.resolve(), appendAudit: () => Promise.resolve({ seq: 1 }) } as unknown as Store, () => undefined);
    for (let i = 0; i < 3; i++) void recorder.add(outcome(i));
    await Promise.race([recorder.flush(), new Promise((_, reject) => setTimeout(() => reject(new Error('flush did not end')), 1000))]);
    await Promise.race([recorder.flush(), new Promise((_, reject) => setTimeout(() => reject(new Error('flush did not end')), 1000))]);
  });
});

describe('call starts', () => {
  it('are written in one recordStarts batch, before the outcomes of the same turn, and resolve true', async () => {
    const order: string[] = [];
    const store = {
      recordStarts: async (r: readonly unknown[]) => void order.push(`starts:${r.length}`),
      recordOutcomes: async (o: readonly unknown[]) => void order.push(`outcomes:${o.length}`),
    } as unknown as Store;
    const recorder = new OutcomeRecorder(store, () => undefined);
    const a = recorder.add(outcome(1));
    const b = recorder.addStart(outcome(2).audit);
    const c = recorder.addStart(outcome(3).audit);
    expect(await Promise.all([a, b, c])).toEqual([true, true, true]);
    expect(order).toEqual(['starts:2', 'outcomes:1']);
  });

  it('a refused start resolves false, is not kept, and warns nobody (its call is refused instead)', async () => {
    const { store, state } = countingStore({ batch: true });
    const warnings: string[] = [];
    const recorder = new OutcomeRecorder(store, (m) => warnings.push(m));
    state.fail = true;
    expect(await recorder.addStart(outcome(1).audit)).toBe(false);
    expect(recorder.pending).toBe(0);
    expect(warnings).toEqual([]);
  });
});

describe('a store outage longer than the backlog (regression: past MAX_PENDING the oldest records of answered reads were dropped)', () => {
  const read = { name: 'read.it', effects: { mode: 'read' } } as unknown as Tool;
  const write = { name: 'write.it', effects: { mode: 'write' } } as unknown as Tool;
  const party = { persona: null, actor: null, job: null };
  const end = { ok: true, provider: 'p', attempts: [], skipped: [], startedAt: 0, durationMs: 1 };
  const redactor = createRedactor();

  it('refuses new calls, reads included, once maxPending records wait; takes them again when the store has caught up; drops nothing', async () => {
    const { store, batches, state } = countingStore({ batch: true });
    const journal = new CallJournal(store, () => undefined, Date.now, { maxPending: 3 });
    state.fail = true;
    for (let i = 0; i < 3; i++) {
      await journal.started(read, `r${i}`, {}, party, redactor);
      await journal.finished(read, `r${i}`, party, end, redactor, { wait: false });
    }
    await new Promise((r) => setImmediate(r));
    for (const tool of [read, write]) {
      const refused = await journal.started(tool, 'next', {}, party, redactor).then(() => undefined, (e: unknown) => e);
      expect(refused).toBeInstanceOf(CallError);
      expect((refused as CallError).code).toBe('STORE_UNAVAILABLE');
      expect((refused as CallError).message).toMatch(/3 call records are waiting/);
    }
    state.fail = false;
    await journal.flush();
    expect(batches).toEqual([3]);
    await expect(journal.started(read, 'after', {}, party, redactor)).resolves.toBeUndefined();
  });

  it('drops the oldest outcomes only past twice maxPending (calls that were already running), with a warning', async () => {
    const { store, state } = countingStore({ batch: true });
    const warnings: string[] = [];
    const recorder = new OutcomeRecorder(store, (m) => warnings.push(m), { maxPending: 2 });
    state.fail = true;
    const answers = [1, 2, 3, 4, 5].map((i) => recorder.add(outcome(i)));
    expect(recorder.full).toBe(true);
    expect(recorder.pending).toBe(4);
    expect(await answers[0]).toBe(false);
    expect(warnings.join('\n')).toMatch(/1 call records dropped/);
  });
});
