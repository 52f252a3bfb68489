/**
 * Nothing acknowledged is lost (issue 12): a call that may write is on
 * record before its provider runs and answered only once its outcome is
 * committed; a read keeps write-behind; at start, what an earlier process
 * left (approved runs, started calls without an outcome) is marked
 * interrupted, shown, and never run again.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAll, deferred, expectCode, fakeTool, harness } from './helpers.js';

afterEach(closeAll);

const WRITE = { mode: 'write', sideEffects: 'write', risk: 'medium', reversible: 'none' };
const writeTool = (name: string, over: Record<string, unknown> = {}) => fakeTool(name, { effects: WRITE, ...over });

describe('a call that may write', () => {
  it('has its call.started line committed before the provider runs, and its outcome committed before the answer', async () => {
    const h = await harness([writeTool('notes.add')]);
    let seenAtRun: string[] = [];
    h.fakes.on('p1', async () => {
      seenAtRun = (await h.store.inner.listAudit()).map((a) => a.kind); // the real store, not flushed
      return 'added';
    });
    const r = await h.runtime.call('notes.add', { line: 'x' });
    expect(seenAtRun).toEqual(['call.started']);
    // answered: the outcome is already in the store, with nothing flushed
    const kinds = (await h.store.inner.listAudit()).map((a) => [a.kind, a.callId]);
    expect(kinds).toEqual([['call.started', r.callId], ['call.ok', r.callId]]);
    expect((await h.store.inner.listCalls()).map((c) => c.callId)).toEqual([r.callId]);
  });

  it('a mode that is not declared counts as a write', async () => {
    const h = await harness([fakeTool('legacy.tool', { effects: undefined })]);
    await h.runtime.call('legacy.tool', {});
    expect((await h.store.inner.listAudit()).map((a) => a.kind)).toEqual(['call.started', 'call.ok']);
  });

  it.each(['appendAudit', '*'])('is refused (STORE_UNAVAILABLE) and never runs when its start cannot be recorded (%s fails)', async (method) => {
    const h = await harness([writeTool('notes.add')]);
    h.store.failing.add(method);
    const e = await expectCode(h.runtime.call('notes.add', {}), 'STORE_UNAVAILABLE');
    expect(e.status).toBe(503);
    expect(h.fakes.count()).toBe(0);
  });

  it('that ran is answered with its result when the store fails afterwards (the effect happened), with a warning', async () => {
    const h = await harness([writeTool('notes.add')]);
    h.fakes.on('p1', async () => {
      h.store.failing.add('recordCall');
      return 'added';
    });
    await expect(h.runtime.call('notes.add', {})).resolves.toMatchObject({ status: 'ok', result: 'added' });
    expect(h.warnings.join('\n')).toMatch(/could not record 1 call outcome/);
  });
});

describe('a read', () => {
  it('is answered without waiting for its record (group commit, write-behind) and writes no start', async () => {
    const h = await harness([fakeTool('read.it')]);
    await h.runtime.call('read.it', {});
    expect(await h.store.inner.listAudit()).toEqual([]); // not yet: at most one turn of the event loop behind
    await h.flush();
    expect((await h.store.inner.listAudit()).map((a) => a.kind)).toEqual(['call.ok']);
  });
});

describe('recoverInterrupted at start', () => {
  it('marks the approved run and the started call an earlier process left, shows them, and never runs them again', async () => {
    const h = await harness([writeTool('notes.add'), writeTool('ops.deploy', { approval: { required: true } })]);
    const hung = deferred();
    h.fakes.on('p1', () => hung.promise);
    // the earlier process: a plain write and an approved one, both running when it "dies"
    const plain = h.runtime.call('notes.add', {});
    const pending = await h.runtime.call('ops.deploy', { env: 'prod' });
    if (pending.status !== 'pending_approval') throw new Error('expected pending');
    const approving = h.runtime.approve(pending.approval.id, { by: 'alice' });
    // both reach their provider once their starts are synced (off the event loop: not within a fixed number of turns)
    await vi.waitFor(() => expect(h.fakes.count()).toBe(2), { timeout: 10_000 });
    expect((await h.store.inner.getApproval(pending.approval.id))?.status).toBe('approved');

    // the next process starts later on the same store
    h.clock.tick(60_000);
    const next = h.another();
    const runs = h.fakes.count();
    const recovered = await next.recoverInterrupted();
    expect(recovered.approvals.map((a) => [a.id, a.status])).toEqual([[pending.approval.id, 'interrupted']]);
    expect(recovered.calls).toHaveLength(2);
    expect(await next.listApprovals({ status: 'interrupted' })).toHaveLength(1);
    const kinds = (await h.store.inner.listAudit({ limit: 100 })).map((a) => a.kind);
    expect(kinds.filter((k) => k.endsWith('interrupted'))).toEqual(['approval.interrupted', 'call.interrupted', 'call.interrupted']);
    // never run again, and not approvable again
    await expectCode(next.approve(pending.approval.id, { by: 'bob' }), 'APPROVAL_CONFLICT');
    expect(h.fakes.count()).toBe(runs);
    // a second start finds nothing more
    expect(await h.another().recoverInterrupted()).toEqual({ approvals: [], calls: [] });

    // the "dead" process's runs finish after all: the known outcome wins over interrupted
    hung.resolve('late');
    await plain;
    const out = await approving;
    expect(out.approval.status).toBe('executed');
  });

  it('leaves alone what this runtime itself is running', async () => {
    const h = await harness([writeTool('notes.add')]);
    const hung = deferred();
    h.fakes.on('p1', () => hung.promise);
    const running = h.runtime.call('notes.add', {});
    await vi.waitFor(() => expect(h.fakes.count()).toBe(1), { timeout: 10_000 });
    expect(await h.runtime.recoverInterrupted()).toEqual({ approvals: [], calls: [] });
    hung.resolve('done');
    await running;
  });
});
