import { afterEach, describe, expect, it } from 'vitest';
import { contentHash, toolHash } from '../../src/model/hash.js';
import type { ApprovalRule } from '../../src/runtime/approval-rules.js';
import { closeAll, expectCode, fail, fakeProviders, fakeTool, harness, manifest } from './helpers.js';

afterEach(closeAll);

const gatedTool = (overrides: Record<string, unknown> = {}) =>
  fakeTool('notes.append', {
    inputSchema: { type: 'object', properties: { line: { type: 'string' } }, required: ['line'], additionalProperties: false },
    effects: { mode: 'write', sideEffects: 'filesystem', risk: 'medium', reversible: 'partial' },
    approval: { required: true },
    execution: { timeoutSec: 5, retryClass: 'never', allowParallel: false },
    ...overrides,
  });

const ARGS = { line: 'hello world' };

describe('approval requests', () => {
  it('approval.required returns a pending approval bound to the manifest and argument hashes', async () => {
    const h = await harness([gatedTool()], { approvalTtlSec: 600 });
    const r = await h.runtime.call('notes.append', ARGS, { caller: 'agent-7' });
    expect(r.status).toBe('pending_approval');
    if (r.status !== 'pending_approval') return;
    const tool = h.runtime.resolve('notes.append');
    expect(r.approval).toMatchObject({
      tool: 'notes.append',
      persona: null,
      arguments: ARGS,
      manifestHash: toolHash(tool),
      argumentsHash: contentHash(ARGS),
      requestedBy: 'agent-7',
      status: 'pending',
      decidedBy: null,
      decidedAt: null,
      result: null,
    });
    expect(r.approval.id).toMatch(/^apr_[0-9a-f]{32}$/);
    expect(r.approval.reason).toContain('approval.required');
    expect(Date.parse(r.approval.expiresAt) - Date.parse(r.approval.createdAt)).toBe(600_000);
    expect(r.approval.createdAt).toBe(new Date(h.clock.now).toISOString());
    expect(h.fakes.count()).toBe(0);

    const audit = await h.sqlite.listAudit({ callId: r.callId });
    expect(audit.map((a) => a.kind)).toEqual(['call.pending_approval']);
    expect(audit[0]).toMatchObject({ tool: 'notes.append', actor: 'agent-7', detail: { approvalId: r.approval.id } });
    expect((await h.runtime.listApprovals({ status: 'pending' })).map((a) => a.id)).toEqual([r.approval.id]);
    expect(await h.runtime.getApproval(r.approval.id)).toEqual(r.approval);
  });

  it('approving runs the stored arguments exactly once and marks the approval executed', async () => {
    const h = await harness([gatedTool()]);
    h.fakes.on('p1', async (args) => ({ appended: args['line'] }));
    const r = await h.runtime.call('notes.append', ARGS, { caller: 'agent-7' });
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    const out = await h.runtime.approve(r.approval.id, { by: 'alice', note: 'fine' });
    expect(out.error).toBeUndefined();
    expect(out.call).toMatchObject({ status: 'ok', provider: 'p1', result: { appended: 'hello world' } });
    expect(h.fakes.count()).toBe(1);
    expect(h.fakes.calls[0]?.args).toEqual(ARGS);
    expect(out.approval).toMatchObject({ status: 'executed', decidedBy: 'alice', note: 'fine' });
    const callId = out.call?.callId;
    expect(out.approval.result).toEqual({ callId, provider: 'p1', result: { appended: 'hello world' } });
    expect((await h.runtime.getApproval(r.approval.id)).status).toBe('executed');

    const kinds = (await h.sqlite.listAudit()).map((a) => a.kind);
    // a tool that writes is on record (call.started) before it runs
    expect(kinds).toEqual(['call.pending_approval', 'approval.approved', 'call.started', 'call.ok']);
    const trail = await h.sqlite.listAudit({ callId: callId! });
    // the request, the decision and the run share the call id
    expect(trail.map((r) => r.kind)).toEqual(['call.pending_approval', 'approval.approved', 'call.started', 'call.ok']);
    const okLine = trail.find((r) => r.kind === 'call.ok');
    expect(okLine).toMatchObject({ kind: 'call.ok', detail: { approvalId: r.approval.id, provider: 'p1' } });

    // a second decision loses, and nothing runs again
    for (const again of [() => h.runtime.approve(r.approval.id), () => h.runtime.deny(r.approval.id)]) {
      const e = await expectCode(again(), 'APPROVAL_CONFLICT');
      expect(e.status).toBe(409);
      expect(e.message).toContain('executed');
    }
    expect(h.fakes.count()).toBe(1);
  });

  it('a provider failure after approval marks the approval failed', async () => {
    const h = await harness([gatedTool()]);
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'disk full', false));
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    const out = await h.runtime.approve(r.approval.id, { by: 'alice' });
    expect(out.error?.code).toBe('PROVIDER_ERROR');
    expect(out.approval.status).toBe('failed');
    expect(await h.runtime.getApproval(r.approval.id)).toMatchObject({ status: 'failed', result: { error: 'PROVIDER_ERROR' } });
    expect(h.fakes.count()).toBe(1);
  });

  it('deny records the decision, nothing runs, and a later approve conflicts', async () => {
    const h = await harness([gatedTool()]);
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    const denied = await h.runtime.deny(r.approval.id, { by: 'bob', note: 'no thanks' });
    expect(denied).toMatchObject({ status: 'denied', decidedBy: 'bob', note: 'no thanks', decidedAt: new Date(h.clock.now).toISOString() });
    await expectCode(h.runtime.approve(r.approval.id, { by: 'alice' }), 'APPROVAL_CONFLICT');
    expect(h.fakes.count()).toBe(0);
    const audit = await h.sqlite.listAudit();
    expect(audit.map((a) => a.kind)).toEqual(['call.pending_approval', 'approval.denied']);
    expect(audit[1]).toMatchObject({ actor: 'bob', detail: { approvalId: r.approval.id, note: 'no thanks' } });
  });

  it.each(['approve', 'deny', 'getApproval'] as const)('%s of an unknown id is APPROVAL_NOT_FOUND', async (method) => {
    const h = await harness([gatedTool()]);
    const e = await expectCode(h.runtime[method]('apr_nope'), 'APPROVAL_NOT_FOUND');
    expect(e.status).toBe(404);
  });

  it('two concurrent approvals of one id run the provider exactly once', async () => {
    const h = await harness([gatedTool()]);
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    const results = await Promise.allSettled([h.runtime.approve(r.approval.id, { by: 'alice' }), h.runtime.approve(r.approval.id, { by: 'bob' })]);
    const fulfilled = results.filter((x) => x.status === 'fulfilled');
    const rejected = results.filter((x): x is PromiseRejectedResult => x.status === 'rejected');
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toMatchObject({ code: 'APPROVAL_CONFLICT' });
    expect(h.fakes.count()).toBe(1);
    expect((await h.runtime.getApproval(r.approval.id)).status).toBe('executed');
  });

  it('two runtimes on one store approving one id: exactly one runs', async () => {
    const h = await harness([gatedTool()]);
    const other = h.another();
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    const results = await Promise.allSettled([h.runtime.approve(r.approval.id), other.approve(r.approval.id)]);
    expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    expect(h.fakes.count()).toBe(1);
  });

  it.each([
    ['a changed description', (t: Record<string, unknown>) => ({ ...t, description: 'Append a line, now differently' })],
    ['a new provider', (t: Record<string, unknown>) => ({ ...t, providers: fakeProviders(['p1', 0], ['p2', 5]) })],
    ['a new version', (t: Record<string, unknown>) => ({ ...t, version: '1.0.1' })],
  ])('a manifest changed between request and approval (%s) voids it; nothing runs', async (_label, change) => {
    const h = await harness([gatedTool()]);
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    await h.rewrite(manifest([change(gatedTool())]));
    const e = await expectCode(h.runtime.approve(r.approval.id, { by: 'alice' }), 'APPROVAL_VOID');
    expect(e.status).toBe(409);
    expect(h.fakes.count()).toBe(0);
    const after = await h.runtime.getApproval(r.approval.id);
    expect(after.status).toBe('void');
    expect(after.note).toContain(r.approval.manifestHash);
    expect((await h.sqlite.listAudit()).map((a) => a.kind)).toContain('approval.void');
  });

  it('a tool removed between request and approval voids it', async () => {
    const h = await harness([gatedTool(), fakeTool('other.tool')]);
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    await h.rewrite(manifest([fakeTool('other.tool')]));
    await expectCode(h.runtime.approve(r.approval.id), 'APPROVAL_VOID');
    expect((await h.runtime.getApproval(r.approval.id)).status).toBe('void');
    expect(h.fakes.count()).toBe(0);
  });

  it('a rebuild of an unchanged manifest keeps the approval valid', async () => {
    const h = await harness([gatedTool()]);
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    await h.rewrite(manifest([gatedTool()]));
    const out = await h.runtime.approve(r.approval.id);
    expect(out.approval.status).toBe('executed');
    expect(h.fakes.count()).toBe(1);
  });

  it.each([
    ['one ms before expiry runs', 60_000 - 1, 'executed'],
    ['at expiry', 60_000, 'expired'],
    ['well past expiry', 3_600_000, 'expired'],
  ] as const)('approval expiry (ttl 60 s): %s', async (_label, elapsed, status) => {
    const h = await harness([gatedTool()], { approvalTtlSec: 60 });
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    h.clock.tick(elapsed);
    if (status === 'expired') {
      const e = await expectCode(h.runtime.approve(r.approval.id, { by: 'alice' }), 'APPROVAL_CONFLICT');
      expect(e.message).toContain('expired');
      expect(h.fakes.count()).toBe(0);
    } else {
      await h.runtime.approve(r.approval.id);
      expect(h.fakes.count()).toBe(1);
    }
    expect((await h.runtime.getApproval(r.approval.id)).status).toBe(status);
  });

  it('approval.consent gates a call too', async () => {
    const h = await harness([gatedTool({ approval: { required: false, consent: true } })]);
    const r = await h.runtime.call('notes.append', ARGS);
    expect(r.status).toBe('pending_approval');
    if (r.status === 'pending_approval') expect(r.approval.reason).toContain('consent');
    expect(h.fakes.count()).toBe(0);
  });

  // regression: an approvalId smuggled into the call context (it is not part of CallContext) is ignored
  it('a made-up approvalId in the call context does not bypass approval', async () => {
    const h = await harness([gatedTool()]);
    const smuggled = { approvalId: 'apr_made_up' } as Parameters<typeof h.runtime.call>[2];
    const outcome = await h.runtime.call('notes.append', ARGS, smuggled).catch((e: unknown) => e);
    expect(h.fakes.count()).toBe(0);
    expect(outcome).not.toMatchObject({ status: 'ok' });
  });
});

describe('policy rules', () => {
  const tools = [
    fakeTool('read.low', { effects: { mode: 'read', sideEffects: 'read_external_service', risk: 'low', reversible: 'full' } }),
    fakeTool('compute.low', { effects: { mode: 'read', sideEffects: 'compute', risk: 'low', reversible: 'full' } }),
    fakeTool('files.write', { effects: { mode: 'write', sideEffects: 'filesystem', risk: 'medium', reversible: 'partial' } }),
    fakeTool('db.drop', { effects: { mode: 'write', sideEffects: 'database', risk: 'critical', reversible: 'none' } }),
    fakeTool('github.comment', { effects: { mode: 'mixed', sideEffects: 'network', risk: 'low', reversible: 'partial' } }),
  ];

  type Case = [label: string, rule: ApprovalRule, tool: string, persona: string | undefined, gated: boolean];
  const cases: Case[] = [
    ['minSideEffects below', { minSideEffects: 'filesystem' }, 'read.low', undefined, false],
    ['minSideEffects equal', { minSideEffects: 'filesystem' }, 'files.write', undefined, true],
    ['minSideEffects above', { minSideEffects: 'filesystem' }, 'db.drop', undefined, true],
    ['minRisk below', { minRisk: 'high' }, 'files.write', undefined, false],
    ['minRisk above', { minRisk: 'high' }, 'db.drop', undefined, true],
    ['minRisk equal', { minRisk: 'low' }, 'compute.low', undefined, true],
    ['tools prefix match', { tools: ['github.*'] }, 'github.comment', undefined, true],
    ['tools prefix miss', { tools: ['github.*'] }, 'read.low', undefined, false],
    ['tools exact match', { tools: ['read.low'] }, 'read.low', undefined, true],
    ['tools exact is not a prefix', { tools: ['read'] }, 'read.low', undefined, false],
    ['personas match', { personas: ['intern'] }, 'read.low', 'intern', true],
    ['personas other persona', { personas: ['intern'] }, 'read.low', 'staff', false],
    ['personas no persona', { personas: ['intern'] }, 'read.low', undefined, false],
    ['modes write', { modes: ['write'] }, 'files.write', undefined, true],
    ['modes read not matched', { modes: ['write', 'mixed'] }, 'read.low', undefined, false],
    ['modes mixed', { modes: ['write', 'mixed'] }, 'github.comment', undefined, true],
    ['all conditions hold', { tools: ['github.*'], personas: ['intern'], modes: ['mixed'] }, 'github.comment', 'intern', true],
    ['one condition fails', { tools: ['github.*'], personas: ['intern'], minRisk: 'high' }, 'github.comment', 'intern', false],
  ];

  it.each(cases)('%s', async (_label, rule, name, persona, gated) => {
    const h = await harness(tools, { rules: [{ ...rule, reason: 'the test rule' }] });
    const r = await h.runtime.call(name, {}, persona === undefined ? {} : { persona });
    expect(r.status).toBe(gated ? 'pending_approval' : 'ok');
    if (r.status === 'pending_approval') expect(r.approval.reason).toBe('the test rule');
    expect(h.fakes.count()).toBe(gated ? 0 : 1);
  });

  it('a rule-gated call runs its stored arguments on approval', async () => {
    const h = await harness(tools, { rules: [{ minRisk: 'critical' }] });
    const r = await h.runtime.call('db.drop', { table: 't' });
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    expect(r.approval.reason).toContain('policy rule');
    const out = await h.runtime.approve(r.approval.id, { by: 'dba' });
    expect(out.approval.status).toBe('executed');
    expect(h.fakes.calls.map((c) => c.args)).toEqual([{ table: 't' }]);
  });

  it('rules never waive approval a manifest asks for', async () => {
    const h = await harness([gatedTool()], { rules: [{ tools: ['something.else'] }] });
    expect((await h.runtime.call('notes.append', ARGS)).status).toBe('pending_approval');
  });
});

describe('store outages', () => {
  it('an approval-gated call fails closed when the store is closed', async () => {
    const h = await harness([gatedTool()]);
    await h.sqlite.close();
    const e = await expectCode(h.runtime.call('notes.append', ARGS), 'STORE_UNAVAILABLE');
    expect(e.status).toBe(503);
    expect(h.fakes.count()).toBe(0);
  });

  it.each(['createApproval', 'appendAudit'])('an approval request fails closed when %s rejects', async (method) => {
    const h = await harness([gatedTool()]);
    h.store.failing.add(method);
    await expectCode(h.runtime.call('notes.append', ARGS), 'STORE_UNAVAILABLE');
    expect(h.fakes.count()).toBe(0);
  });

  it.each(['getApproval', 'updateApproval', 'appendAudit'])('approve fails closed and never runs the provider when %s rejects', async (method) => {
    const h = await harness([gatedTool()]);
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    h.store.failing.add(method);
    await expectCode(h.runtime.approve(r.approval.id, { by: 'alice' }), 'STORE_UNAVAILABLE');
    expect(h.fakes.count()).toBe(0);
  });

  it.each(['listApprovals', 'getApproval'] as const)('%s reports STORE_UNAVAILABLE when the store is down', async (method) => {
    const h = await harness([gatedTool()]);
    h.store.failing.add('*');
    await expectCode(method === 'listApprovals' ? h.runtime.listApprovals() : h.runtime.getApproval('apr_x'), 'STORE_UNAVAILABLE');
  });

  it.each([
    ['recordCall rejects', ['recordCall']],
    ['appendAudit rejects', ['appendAudit']],
    ['the whole store is down', ['*']],
  ])('a call that needs no approval still runs when %s, and the failure is reported', async (_label, methods) => {
    const h = await harness([fakeTool('read.it')]);
    for (const m of methods) h.store.failing.add(m);
    const r = await h.runtime.call('read.it', { a: 1 });
    expect(r.status).toBe('ok');
    expect(h.fakes.count()).toBe(1);
    await h.flush();
    expect(h.warnings).toHaveLength(1);
    expect(h.warnings[0]).toMatch(/could not record 1 call outcome to the store \(kept for the next try\): fake outage/);
  });

  it('a non-gated call still runs when the SQLite store is closed', async () => {
    const h = await harness([fakeTool('read.it')]);
    await h.sqlite.close();
    await expect(h.runtime.call('read.it', {})).resolves.toMatchObject({ status: 'ok' });
    await h.flush();
    expect(h.warnings.join('\n')).toMatch(/closed/);
  });

  // Regression: before f299223 the record write of a gated call ran inside the provider try/catch, so a store
  // failure after a successful run was treated as a provider failure and retried (the approved tool ran twice).
  it.each([
    ['recordCall fails after the run', ['recordCall'], 'executed'],
    ['recordCall and the executed mark fail after the run', ['recordCall', 'updateApproval'], 'approved'],
  ] as const)('a gated call that ran is answered and never run again when %s', async (_label, methods, status) => {
    const h = await harness([gatedTool({ execution: { timeoutSec: 5, retryClass: 'safe', allowParallel: false, idempotent: true }, providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    const r = await h.runtime.call('notes.append', ARGS);
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    h.fakes.on('p1', async () => {
      for (const m of methods) h.store.failing.add(m); // the store goes down while the tool runs
      return 'written';
    });
    const out = await h.runtime.approve(r.approval.id, { by: 'alice' });
    expect(h.fakes.order()).toEqual(['p1']);
    expect(out.error).toBeUndefined();
    expect(out.call).toMatchObject({ status: 'ok', provider: 'p1', result: 'written' });
    expect(out.approval.status).toBe(status);
    expect(h.warnings.join('\n')).toMatch(/could not record .*to the store/);
    h.store.failing.clear();
    expect((await h.runtime.getApproval(r.approval.id)).status).toBe(status); // never "failed": nobody retries a call that ran
  });
});

describe('what an approver is shown of the arguments', () => {
  it('a token-shaped value in an argument the schema does not mark sensitive is redacted in every view; approving runs the real value', async () => {
    const token = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';
    const h = await harness([gatedTool()], { approvalTtlSec: 600 });
    const seen: unknown[] = [];
    h.fakes.on('p1', async (args: unknown) => {
      seen.push(args);
      return 'ok';
    });
    const r = await h.runtime.call('notes.append', { line: `use ${token}` });
    if (r.status !== 'pending_approval') throw new Error('expected a pending approval');
    const views = [r.approval, await h.runtime.getApproval(r.approval.id), ...(await h.runtime.listApprovals())];
    for (const v of views) expect(JSON.stringify(v.arguments)).not.toContain(token.slice(0, 10));
    await h.runtime.approve(r.approval.id, { by: 'reviewer' });
    expect(JSON.stringify(seen)).toContain(token);
  });
});
