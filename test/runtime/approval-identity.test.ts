/**
 * Approvals no agent can grant itself: four eyes and grants on approve and
 * deny, self-approval per rule and per runtime, elicitation only where
 * allowed, identical pending requests deduplicated, the outcome kept with
 * the approval, and waiting for an approval to settle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRule } from '../../src/runtime/approval-rules.js';
import { ProviderError } from '../../src/runtime/providers/types.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import type { RuntimeOptions } from '../../src/runtime/runtime.js';
import { closeAll, expectCode, fakeTool, harness } from './helpers.js';

afterEach(closeAll);

const p = (id: string, roles: Principal['roles'], approves?: Principal['approves']): Principal => ({
  id,
  roles,
  personas: ['*'],
  defaultPersona: 'atlas',
  ...(approves ? { approves } : {}),
  via: 'api-key',
});

const REQUESTER = p('ci-bot', ['caller']);
const ADMIN = p('root', ['admin']);
const TOOLS = [
  fakeTool('notes.append', { scope: { personas: ['atlas', 'ops'] }, effects: { mode: 'write', sideEffects: 'filesystem', risk: 'medium', reversible: 'partial' }, approval: { required: true } }),
  fakeTool('notes.search', { scope: { personas: ['atlas', 'ops'] }, approval: { required: true } }),
];
const ARGS = { line: 'hello' };

async function pending(options: Partial<RuntimeOptions> = {}, requester: Principal = REQUESTER, tool = 'notes.append', args: unknown = ARGS) {
  const h = await harness(TOOLS, options);
  const r = await h.runtime.call(tool, args, { principal: requester });
  if (r.status !== 'pending_approval') throw new Error('expected a pending approval');
  return { h, id: r.approval.id };
}

type Outcome = 'ok' | 'FORBIDDEN' | 'SELF_APPROVAL';

describe('who may approve: four eyes and grants', () => {
  const cases: Array<[label: string, decider: Principal, requester: Principal, rules: ApprovalRule[], global: boolean | undefined, expected: Outcome]> = [
    ['the requester itself', REQUESTER, REQUESTER, [], undefined, 'SELF_APPROVAL'],
    ['an approver granted the persona and the tool namespace', p('ana', ['approver'], { personas: ['atlas'], tools: ['notes.*'] }), REQUESTER, [], undefined, 'ok'],
    ['an approver granted every persona and the exact tool', p('ana', ['approver'], { personas: ['*'], tools: ['notes.append'] }), REQUESTER, [], undefined, 'ok'],
    ['an approver of another persona', p('ana', ['approver'], { personas: ['ops'], tools: ['*'] }), REQUESTER, [], undefined, 'FORBIDDEN'],
    ['an approver of other tools', p('ana', ['approver'], { personas: ['atlas'], tools: ['files.*'] }), REQUESTER, [], undefined, 'FORBIDDEN'],
    ['an approver without grants', p('ana', ['approver']), REQUESTER, [], undefined, 'FORBIDDEN'],
    ['another caller', p('other-bot', ['caller']), REQUESTER, [], undefined, 'FORBIDDEN'],
    ['an admin', ADMIN, REQUESTER, [], undefined, 'ok'],
    ['an admin who asked itself', ADMIN, ADMIN, [], undefined, 'SELF_APPROVAL'],
    ['an admin who asked itself, self-approval on for the rule', ADMIN, ADMIN, [{ tools: ['notes.append'], selfApproval: true }], undefined, 'ok'],
    ['an admin who asked itself, self-approval on for another rule', ADMIN, ADMIN, [{ tools: ['other.*'], selfApproval: true }], undefined, 'SELF_APPROVAL'],
    ['an admin who asked itself, self-approval on globally', ADMIN, ADMIN, [], true, 'ok'],
    ['an admin who asked itself, rule says no, global yes', ADMIN, ADMIN, [{ tools: ['notes.append'], selfApproval: false }], true, 'SELF_APPROVAL'],
    ['a caller who asked itself, self-approval on: still not an approver', REQUESTER, REQUESTER, [{ tools: ['notes.append'], selfApproval: true }], undefined, 'FORBIDDEN'],
  ];

  it.each(cases)('%s', async (_label, decider, requester, rules, selfApproval, expected) => {
    const { h, id } = await pending({ rules, ...(selfApproval !== undefined ? { selfApproval } : {}) }, requester);
    const approve = h.runtime.approve(id, { principal: decider, channel: 'http', by: 'security-officer', note: 'ok' });
    if (expected !== 'ok') {
      const e = await expectCode(approve, expected);
      expect(e.status).toBe(403);
      expect(e.extra.approvalId).toBe(id);
      expect((await h.runtime.getApproval(id)).status).toBe('pending');
      expect(h.fakes.count()).toBe(0);
      return;
    }
    const out = await approve;
    expect(out.call?.status).toBe('ok');
    // the principal decided: a `by` name is ignored
    expect(out.approval).toMatchObject({ status: 'executed', decidedBy: decider.id, decidedByPrincipal: decider.id, decidedVia: 'http', requestedByPrincipal: requester.id });
    const audit = await h.sqlite.listAudit({ limit: 100 });
    expect(audit.find((a) => a.kind === 'approval.approved')).toMatchObject({ actor: decider.id, detail: { via: 'http' } });
    expect(audit.find((a) => a.kind === 'call.ok')).toMatchObject({ actor: requester.id });
  });

  it('deny: an approver within its grants, or the requester withdrawing its own request; nobody else', async () => {
    const { h, id } = await pending();
    await expectCode(h.runtime.deny(id, { principal: p('other-bot', ['caller']) }), 'FORBIDDEN');
    await expectCode(h.runtime.deny(id, { principal: p('ana', ['approver'], { personas: ['ops'], tools: ['*'] }) }), 'FORBIDDEN');
    expect(await h.runtime.deny(id, { principal: REQUESTER, channel: 'cli', note: 'never mind' })).toMatchObject({ status: 'denied', decidedByPrincipal: 'ci-bot', decidedVia: 'cli' });
    const second = await pending();
    expect(await second.h.runtime.deny(second.id, { principal: p('ana', ['approver'], { personas: ['atlas'], tools: ['*'] }), channel: 'http' })).toMatchObject({ status: 'denied', decidedBy: 'ana' });
  });

  it('without a principal (library use) `by` decides as before', async () => {
    const { h, id } = await pending();
    const out = await h.runtime.approve(id, { by: 'alice' });
    expect(out.approval).toMatchObject({ status: 'executed', decidedBy: 'alice' });
    expect(out.approval).not.toHaveProperty('decidedByPrincipal');
  });

  it('a refused decision cannot expire or void the approval', async () => {
    const { h, id } = await pending({ approvalTtlSec: 1 });
    h.clock.tick(5000);
    await expectCode(h.runtime.approve(id, { principal: REQUESTER }), 'SELF_APPROVAL');
    expect((await h.runtime.getApproval(id)).status).toBe('pending');
  });
});

describe('elicitation', () => {
  it.each<[string, string, ApprovalRule[], boolean | undefined, boolean]>([
    ['a write tool, no rule', 'notes.append', [], undefined, false],
    ['a read tool, no rule', 'notes.search', [], undefined, true],
    ['a write tool, the rule allows it', 'notes.append', [{ tools: ['notes.append'], elicitation: true }], undefined, true],
    ['a read tool, the rule forbids it', 'notes.search', [{ tools: ['notes.search'], elicitation: false }], undefined, false],
    ['a write tool, allowed by the runtime', 'notes.append', [], true, true],
    ['a read tool, refused by the runtime', 'notes.search', [], false, false],
  ])('elicitationAllowed: %s -> %s', async (_label, tool, rules, elicitation, expected) => {
    const { h, id } = await pending({ rules, ...(elicitation !== undefined ? { elicitation } : {}) }, ADMIN, tool);
    expect(h.runtime.elicitationAllowed(await h.runtime.getApproval(id))).toBe(expected);
  });

  it('an elicitation answer is a self-approval: refused unless self-approval is allowed too', async () => {
    const read = await pending({}, ADMIN, 'notes.search');
    await expectCode(read.h.runtime.approve(read.id, { principal: ADMIN, channel: 'elicitation' }), 'SELF_APPROVAL');
    const allowed = await pending({ rules: [{ tools: ['notes.search'], selfApproval: true }] }, ADMIN, 'notes.search');
    const out = await allowed.h.runtime.approve(allowed.id, { principal: ADMIN, channel: 'elicitation' });
    expect(out.approval).toMatchObject({ status: 'executed', decidedByPrincipal: 'root', decidedVia: 'elicitation' });
    const audit = await allowed.h.sqlite.listAudit({ limit: 100 });
    expect(audit.find((a) => a.kind === 'approval.approved')).toMatchObject({ actor: 'root', detail: { via: 'elicitation' } });
  });

  it('never for a write tool by default, even with self-approval on', async () => {
    const { h, id } = await pending({ selfApproval: true }, ADMIN, 'notes.append');
    await expectCode(h.runtime.approve(id, { principal: ADMIN, channel: 'elicitation' }), 'FORBIDDEN');
    expect((await h.runtime.getApproval(id)).status).toBe('pending');
  });
});

describe('identical pending requests', () => {
  it('returns the waiting approval to the same principal asking again, and a new one otherwise', async () => {
    const { h, id } = await pending();
    const again = await h.runtime.call('notes.append', { ...ARGS }, { principal: REQUESTER });
    expect(again).toMatchObject({ status: 'pending_approval', approval: { id } });
    const differentArgs = await h.runtime.call('notes.append', { line: 'other' }, { principal: REQUESTER });
    const differentPrincipal = await h.runtime.call('notes.append', ARGS, { principal: p('other-bot', ['caller']) });
    const differentPersona = await h.runtime.call('notes.append', ARGS, { principal: REQUESTER, persona: 'ops' });
    const ids = [differentArgs, differentPrincipal, differentPersona].map((r) => (r.status === 'pending_approval' ? r.approval.id : 'ran'));
    expect(new Set([id, ...ids]).size).toBe(4);
    expect(await h.runtime.listApprovals({ status: 'pending' })).toHaveLength(4);
  });

  it('twenty identical requests at once make one approval', async () => {
    const h = await harness(TOOLS);
    const results = await Promise.all(Array.from({ length: 20 }, () => h.runtime.call('notes.append', ARGS, { principal: REQUESTER })));
    expect(new Set(results.map((r) => (r.status === 'pending_approval' ? r.approval.id : 'ran'))).size).toBe(1);
    expect(await h.runtime.listApprovals({ requestedBy: 'ci-bot' })).toHaveLength(1);
  });

  it('asks again once the earlier request is decided, expired, or the manifest changed', async () => {
    const { h, id } = await pending({ approvalTtlSec: 60 });
    await h.runtime.deny(id, { principal: ADMIN });
    const after = await h.runtime.call('notes.append', ARGS, { principal: REQUESTER });
    expect(after.status === 'pending_approval' && after.approval.id).not.toBe(id);
    h.clock.tick(61_000);
    const afterExpiry = await h.runtime.call('notes.append', ARGS, { principal: REQUESTER });
    expect(afterExpiry.status === 'pending_approval' && afterExpiry.approval.id).not.toBe(after.status === 'pending_approval' && after.approval.id);
  });

  it('library calls without a principal are not deduplicated (as before)', async () => {
    const h = await harness(TOOLS);
    await h.runtime.call('notes.append', ARGS, { persona: 'atlas' });
    await h.runtime.call('notes.append', ARGS, { persona: 'atlas' });
    expect(await h.runtime.listApprovals({ status: 'pending' })).toHaveLength(2);
  });

  it('lists approvals by requesting principal', async () => {
    const { h, id } = await pending();
    await h.runtime.call('notes.append', ARGS, { principal: ADMIN });
    expect((await h.runtime.listApprovals({ requestedBy: 'ci-bot' })).map((a) => a.id)).toEqual([id]);
    expect(await h.runtime.listApprovals({ requestedBy: 'nobody' })).toEqual([]);
  });
});

describe('the outcome of an approved call', () => {
  it('is kept with the approval and returned by getApproval', async () => {
    const { h, id } = await pending();
    h.fakes.on('p1', async (args) => ({ appended: args['line'] }));
    await h.runtime.approve(id, { principal: ADMIN, channel: 'http' });
    const read = await h.another().getApproval(id);
    expect(read).toMatchObject({ status: 'executed', outcome: { status: 'ok', result: { appended: 'hello' }, provider: 'p1', attempts: 1 } });
    expect(read.outcome?.status === 'ok' && typeof read.outcome.durationMs).toBe('number');
  });

  it('keeps the error of a call that failed', async () => {
    const { h, id } = await pending();
    h.fakes.on('p1', async () => {
      throw new ProviderError('PROVIDER_ERROR', 'disk full', false, { status: 507 });
    });
    const out = await h.runtime.approve(id, { principal: ADMIN });
    expect(out.error?.code).toBe('PROVIDER_ERROR');
    expect(await h.runtime.getApproval(id)).toMatchObject({ status: 'failed', outcome: { status: 'error', code: 'PROVIDER_ERROR', message: expect.stringMatching(/disk full/) } });
  });

  it('keeps a result over 1 MiB as its size only', async () => {
    const { h, id } = await pending();
    const big = 'x'.repeat(1024 * 1024 + 10);
    h.fakes.on('p1', async () => big);
    const out = await h.runtime.approve(id, { principal: ADMIN });
    expect(out.call?.status === 'ok' && out.call.result).toBe(big);
    expect((await h.runtime.getApproval(id)).outcome).toMatchObject({ status: 'ok', result: { truncated: true, bytes: big.length + 2 } });
  });
});

describe('waitForApproval', () => {
  it('resolves once the approval is decided and run in this process', async () => {
    const { h, id } = await pending();
    h.fakes.on('p1', async () => 'done');
    const waiting = h.runtime.waitForApproval(id, 10_000);
    await h.runtime.approve(id, { principal: ADMIN });
    expect(await waiting).toMatchObject({ id, status: 'executed', outcome: { status: 'ok', result: 'done' } });
  });

  it('resolves on a denial', async () => {
    const { h, id } = await pending();
    const waiting = h.runtime.waitForApproval(id, 10_000);
    await h.runtime.deny(id, { principal: ADMIN });
    expect(await waiting).toMatchObject({ status: 'denied', decidedByPrincipal: 'root' });
  });

  it('sees a decision made by another instance on the same store (by polling)', async () => {
    const { h, id } = await pending();
    const waiting = h.runtime.waitForApproval(id, 10_000);
    const started = Date.now();
    await h.another().approve(id, { principal: ADMIN });
    expect(await waiting).toMatchObject({ status: 'executed' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('resolves with the approval as it stands when the timeout passes, or the signal aborts', async () => {
    const { h, id } = await pending();
    expect(await h.runtime.waitForApproval(id, 30)).toMatchObject({ id, status: 'pending' });
    const controller = new AbortController();
    const waiting = h.runtime.waitForApproval(id, 10_000, controller.signal);
    controller.abort();
    expect(await waiting).toMatchObject({ status: 'pending' });
  });

  it('answers at once for a settled approval, and APPROVAL_NOT_FOUND for an unknown one', async () => {
    const { h, id } = await pending();
    await h.runtime.deny(id, { principal: ADMIN });
    expect(await h.runtime.waitForApproval(id, 60_000)).toMatchObject({ status: 'denied' });
    await expectCode(h.runtime.waitForApproval('apr_missing', 10), 'APPROVAL_NOT_FOUND');
  });
});
