/**
 * The durability part of the store contract (migration 4): calls noted in
 * flight before their provider runs, their outcomes taking them off the
 * list, what a crash leaves marked `call.interrupted`; the `interrupted`
 * approval status and the code hash an approval is bound to.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { NewAuditRecord, Store } from '../../src/store/types.js';
import { approval, audit, call, freshStore, type StoreHarness } from './contract.js';

const started = (callId: string, at: string, over: Partial<NewAuditRecord> = {}): NewAuditRecord =>
  audit({ kind: 'call.started', callId, at, tool: 'files.write', detail: { arguments: {} }, ...over });

export function runDurabilityContract(name: string, harness: StoreHarness): void {
  describe(`store durability contract: ${name}`, () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      while (cleanups.length) await cleanups.pop()?.();
    });
    async function open(): Promise<{ store: Store; reopen: () => Promise<Store> }> {
      const { store, open: reopen } = await freshStore(harness, cleanups);
      return { store, reopen };
    }

    it('keeps the code hash an approval is bound to, and the interrupted status', async () => {
      const { store } = await open();
      const rec = approval({ codeHash: `sha256:${'c'.repeat(64)}` });
      await store.createApproval(rec);
      expect(await store.getApproval(rec.id)).toEqual(rec);
      await store.updateApproval(rec.id, 'pending', { status: 'approved' });
      const marked = await store.updateApproval(rec.id, 'approved', { status: 'interrupted', note: 'the process ended during the run' });
      expect(marked?.status).toBe('interrupted');
      expect(await store.listApprovals({ status: 'interrupted' })).toHaveLength(1);
    });

    it('a start is an audit line; a call whose outcome lands is no longer in flight; the rest are interrupted once, after a restart too', async () => {
      const { store, reopen } = await open();
      await store.recordStarts!([started('c1', '2026-01-01T00:00:01.000Z'), started('c2', '2026-01-01T00:00:02.000Z'), started('c3', '2026-01-01T00:00:09.000Z')]);
      const lines = await store.listAudit();
      expect(lines.map((l) => [l.kind, l.callId])).toEqual([['call.started', 'c1'], ['call.started', 'c2'], ['call.started', 'c3']]);
      await store.recordOutcomes!([{ call: call({ callId: 'c1' }), audit: audit({ callId: 'c1', kind: 'call.ok' }) }]);
      await store.close();

      const again = await reopen();
      const interrupted = await again.interruptCalls!({ at: '2026-01-01T00:01:00.000Z', before: '2026-01-01T00:00:05.000Z' });
      expect(interrupted).toEqual([{ callId: 'c2', tool: 'files.write', persona: null, startedAt: '2026-01-01T00:00:02.000Z', startedSeq: lines[1]!.seq }]);
      const after = await again.listAudit({ afterSeq: lines[2]!.seq });
      expect(after.map((l) => [l.kind, l.callId])).toEqual([['call.ok', 'c1'], ['call.interrupted', 'c2']]);
      expect(after[1]!.detail).toEqual({ startedSeq: lines[1]!.seq, startedAt: '2026-01-01T00:00:02.000Z' });
      // marked once: a second start of the instance finds nothing more before the cut
      expect(await again.interruptCalls!({ at: '2026-01-01T00:02:00.000Z', before: '2026-01-01T00:00:05.000Z' })).toEqual([]);
      expect((await again.interruptCalls!({ at: '2026-01-01T00:02:00.000Z', before: '2026-01-01T00:00:10.000Z' })).map((c) => c.callId)).toEqual(['c3']);
    });

    it('a start without a call id is refused whole (nothing half written)', async () => {
      const { store } = await open();
      await expect(store.recordStarts!([started('c1', '2026-01-01T00:00:01.000Z'), started('x', '2026-01-01T00:00:01.000Z', { callId: null })])).rejects.toThrow();
      expect(await store.listAudit()).toEqual([]);
      expect(await store.interruptCalls!({ at: '2026-01-01T00:01:00.000Z', before: '2030-01-01T00:00:00.000Z' })).toEqual([]);
    });
  });
}
