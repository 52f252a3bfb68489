import { afterEach, describe, expect, it } from 'vitest';
import { HealthBook, MAX_JOB_NAME, MAX_JOBS, STALE_MIN_CALLS, statusOf } from '../../src/runtime/health.js';
import { ProviderError } from '../../src/runtime/providers/types.js';
import { closeAll, expectCode, fail, fakeProviders, fakeTool, harness, type Harness } from './helpers.js';

afterEach(closeAll);

/** A HealthBook whose circuits never open, so failing calls keep reaching the provider. */
const noBackoff = () => new HealthBook({ backoff: { threshold: 1_000 }, random: () => 0.5 });

/** Make the provider take `ms` of injected clock time, then succeed or fail. */
function timed(h: Harness, outcomes: Array<{ ms: number; ok: boolean }>) {
  let i = 0;
  h.fakes.on('p1', async () => {
    const o = outcomes[i++]!;
    h.clock.tick(o.ms);
    if (!o.ok) throw new Error(`failed after ${o.ms} ms`);
    return o.ms;
  });
}

async function run(h: Harness, tool: string, n: number, context: { job?: string } = {}) {
  for (let i = 0; i < n; i++) await h.runtime.call(tool, {}, context).catch(() => undefined);
}

describe('observed health', () => {
  it('lookup gives calls, success rate, p50/p95 and status from clock-measured durations', async () => {
    const h = await harness([fakeTool('svc')], { health: noBackoff() });
    // durations 10, 20, ..., 100 ms; the 3rd and 7th fail
    timed(
      h,
      Array.from({ length: 10 }, (_, i) => ({ ms: (i + 1) * 10, ok: i !== 2 && i !== 6 })),
    );
    await run(h, 'svc', 10, { job: 'nightly' });
    const health = h.runtime.health.lookup('svc');
    expect(health).toEqual({ status: 'degraded', successRate: 0.8, calls: 10, p50Ms: 60, p95Ms: 100, lastSuccessfulProvider: { provider: 'p1', at: expect.any(String) } });
    expect(h.runtime.health.job('nightly')).toMatchObject({ calls: 10, successRate: 0.8, lastOutcome: { ok: true, durationMs: 100, provider: 'p1' } });
    expect(h.runtime.health.providers('svc')).toEqual([
      expect.objectContaining({ provider: 'p1', calls: 10, successRate: 0.8, lastOutcome: expect.objectContaining({ ok: true }) }),
    ]);
    expect(h.runtime.health.lookup('never.called')).toBeUndefined();
  });

  it.each([
    [1, 'ok'],
    [0.95, 'ok'],
    [0.94, 'degraded'],
    [0.5, 'degraded'],
    [0.49, 'down'],
    [0, 'down'],
  ] as const)('statusOf(%f) is %s', (rate, status) => {
    expect(statusOf(rate)).toBe(status);
  });

  it.each([
    ['19 slow calls: too few to judge', 19, 30, false],
    [`${STALE_MIN_CALLS} calls at exactly twice the declared p95`, 20, 20, false],
    [`${STALE_MIN_CALLS} calls above twice the declared p95`, 20, 21, true],
    ['40 calls well above', 40, 50, true],
    ['40 calls within the declaration', 40, 10, false],
  ])('stale manifest: %s', async (_label, calls, ms, stale) => {
    const h = await harness([fakeTool('svc', { latency: { p95Ms: 10 } })]);
    timed(h, Array.from({ length: calls }, () => ({ ms, ok: true })));
    await run(h, 'svc', calls);
    const health = h.runtime.health.lookup('svc') as Record<string, unknown> | undefined;
    expect(health?.['calls']).toBe(calls);
    expect(health?.['p95Ms']).toBe(ms);
    if (stale) expect(health?.['staleManifest']).toEqual({ declaredP95Ms: 10, observedP95Ms: ms });
    else expect(health).not.toHaveProperty('staleManifest');
  });

  it('a tool that declares no latency is never flagged stale', async () => {
    const h = await harness([fakeTool('svc')]);
    timed(h, Array.from({ length: 25 }, () => ({ ms: 5_000, ok: true })));
    await run(h, 'svc', 25);
    expect(h.runtime.health.lookup('svc')).not.toHaveProperty('staleManifest');
  });
});

describe('what the store keeps', () => {
  it('a call record and an audit line per call, with provider and attempts', async () => {
    const h = await harness([fakeTool('svc', { providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.on('p1', async () => {
      h.clock.tick(7);
      throw new ProviderError('PROVIDER_UNAVAILABLE', 'refused', true);
    });
    h.fakes.on('p2', async () => {
      h.clock.tick(5);
      return 'ok';
    });
    const r = await h.runtime.call('svc', { a: 1 }, { persona: 'ops', caller: 'agent-1', job: 'sync' });
    if (r.status !== 'ok') throw new Error('expected ok');
    expect(r.durationMs).toBe(12);

    const [record] = await h.sqlite.listCalls({ tool: 'svc' });
    expect(record).toEqual({
      callId: r.callId,
      tool: 'svc',
      provider: 'p2',
      job: 'sync',
      persona: 'ops',
      startedAt: new Date(h.clock.now - 12).toISOString(),
      durationMs: 12,
      outcome: 'ok',
      errorCode: null,
    });
    const audit = await h.sqlite.listAudit({ callId: r.callId });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      kind: 'call.ok',
      tool: 'svc',
      persona: 'ops',
      actor: 'agent-1',
      detail: {
        provider: 'p2',
        attempts: [
          { provider: 'p1', outcome: 'PROVIDER_ERROR (before any effect): refused' },
          { provider: 'p2', outcome: 'ok' },
        ],
        skipped: [],
        durationMs: 12,
      },
    });
  });

  it.each([
    ['a provider failure', 'PROVIDER_ERROR', 'error', 'p1'],
    ['no healthy provider', 'NO_HEALTHY_PROVIDER', 'rejected', null],
  ] as const)('%s is recorded as call.error (%s)', async (_label, code, outcome, provider) => {
    const h = await harness([fakeTool('svc')]);
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'boom', false));
    if (code === 'NO_HEALTHY_PROVIDER') h.fakes.ready('p1', { healthy: false, reason: 'no key' });
    const e = await expectCode(h.runtime.call('svc', {}), code);
    const callId = e.extra.callId!;
    expect(callId).toBeTruthy();
    const [record] = await h.sqlite.listCalls({ tool: 'svc' });
    expect(record).toMatchObject({ callId, outcome, errorCode: code, provider });
    const [line] = await h.sqlite.listAudit({ callId });
    expect(line).toMatchObject({ kind: 'call.error', detail: { error: code, provider } });
  });
});

describe('loadHealth', () => {
  it('seeds a fresh runtime from the calls in the store', async () => {
    const h = await harness([fakeTool('svc')], { health: noBackoff() });
    timed(h, [10, 20, 30, 40, 50, 60].map((ms, i) => ({ ms, ok: i !== 0 })));
    await run(h, 'svc', 6, { job: 'etl' });
    const before = h.runtime.health.lookup('svc');
    await h.flush(); // as closing the first runtime would

    const restarted = h.another({ health: new HealthBook() });
    expect(restarted.health.lookup('svc')).toBeUndefined();
    expect(await restarted.loadHealth()).toBe(6);
    expect(restarted.health.lookup('svc')).toEqual(before);
    expect(restarted.health.job('etl')).toMatchObject({ calls: 6, lastOutcome: { ok: true, durationMs: 60 } });
  });

  it('only the window asked for (default: the last day) is loaded', async () => {
    const h = await harness([fakeTool('svc')]);
    await run(h, 'svc', 2);
    h.clock.tick(12 * 3600_000);
    await run(h, 'svc', 3);
    h.clock.tick(13 * 3600_000); // the first two are now 25 h old
    await h.flush(); // as closing the first runtime would
    const restarted = h.another({ health: new HealthBook() });
    expect(await restarted.loadHealth()).toBe(3);
    expect(restarted.health.lookup('svc')?.calls).toBe(3);
    const wide = h.another({ health: new HealthBook() });
    expect(await wide.loadHealth(48 * 3600_000)).toBe(5);
  });
});

describe('job health is bounded (a call names its job; the caller is not trusted)', () => {
  const outcome = { ok: true, durationMs: 1, at: 0, provider: 'p1', errorCode: null };

  it(`at most ${MAX_JOBS} jobs are kept: a flood of new names drops the least recently recorded, not every job`, () => {
    const book = new HealthBook();
    book.record('svc', outcome, 'nightly');
    for (let i = 0; i < MAX_JOBS - 1; i++) book.record('svc', outcome, `flood-${i}`);
    // recorded again: the most recent now, so the next new names push out the flood's first ones instead
    book.record('svc', outcome, 'nightly');
    for (let i = MAX_JOBS; i < MAX_JOBS + 10; i++) book.record('svc', outcome, `flood-${i}`);
    expect(book.job('nightly')?.calls).toBe(2);
    expect(book.job('flood-0')).toBeUndefined();
    expect(book.job(`flood-${MAX_JOBS + 9}`)?.calls).toBe(1);
    let kept = 0;
    for (let i = 0; i < MAX_JOBS + 10; i++) if (book.job(`flood-${i}`)) kept++;
    expect(kept + 1).toBe(MAX_JOBS);
  });

  it(`a job name longer than ${MAX_JOB_NAME} characters is not kept (the tool's own health still is)`, () => {
    const book = new HealthBook();
    const long = 'j'.repeat(MAX_JOB_NAME + 1);
    book.record('svc', outcome, long);
    book.record('svc', outcome, 'j'.repeat(MAX_JOB_NAME));
    expect(book.job(long)).toBeUndefined();
    expect(book.job('j'.repeat(MAX_JOB_NAME))?.calls).toBe(1);
    expect(book.lookup('svc')?.calls).toBe(2);
  });
});
