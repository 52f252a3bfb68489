import { afterEach, describe, expect, it, vi } from 'vitest';
import { HealthBook } from '../../src/runtime/health.js';
import { closeAll, deferred, expectCode, fail, fakeProviders, fakeTool, hang, harness, ignoreSignal, ok } from './helpers.js';

afterEach(closeAll);

type RetryClass = 'never' | 'guarded' | 'safe';

/** Execution block for a retry class (safe needs an idempotent tool, guarded takes a key). */
const execution = (retryClass: RetryClass, extra: Record<string, unknown> = {}) => ({
  timeoutSec: 5,
  retryClass,
  allowParallel: true,
  ...(retryClass === 'safe' ? { idempotent: true } : {}),
  ...(retryClass === 'guarded' ? { idempotencyKey: true } : {}),
  ...extra,
});

/** A HealthBook that never opens a circuit, to see retries in isolation. */
const noBackoff = () => new HealthBook({ backoff: { threshold: 1_000 }, random: () => 0.5 });

describe('provider selection', () => {
  it('tries providers in ascending priority, ties in manifest order', async () => {
    const h = await harness([fakeTool('multi', { execution: execution('never'), providers: fakeProviders(['c', 10], ['a', -1], ['b1', 0], ['b2', 0]) })]);
    for (const p of ['a', 'b1', 'b2']) h.fakes.on(p, fail('PROVIDER_UNAVAILABLE', `${p} refused the connection`, true));
    const r = await h.runtime.call('multi', {});
    expect(r).toMatchObject({ status: 'ok', provider: 'c', attempts: 4, skipped: [] });
    expect(h.fakes.order()).toEqual(['a', 'b1', 'b2', 'c']);
  });

  it('the first healthy provider serves and the others are not called', async () => {
    const h = await harness([fakeTool('multi', { providers: fakeProviders(['late', 5], ['early', 1]) })]);
    await expect(h.runtime.call('multi', {})).resolves.toMatchObject({ provider: 'early', attempts: 1 });
    expect(h.fakes.order()).toEqual(['early']);
  });

  it('skips unready providers, saying why', async () => {
    const h = await harness([fakeTool('multi', { providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.ready('p1', { healthy: false, reason: 'API_KEY is not set' });
    const r = await h.runtime.call('multi', {});
    expect(r).toMatchObject({ status: 'ok', provider: 'p2', skipped: ['p1: API_KEY is not set'] });
    expect(h.fakes.order()).toEqual(['p2']);
  });

  it('skips providers that cannot be made (unknown type), saying why', async () => {
    const h = await harness([fakeTool('multi', { providers: [{ name: 'grpc', priority: 0, config: { type: 'grpc' } }, ...fakeProviders(['p2', 1])] })]);
    const r = await h.runtime.call('multi', {});
    expect(r).toMatchObject({ status: 'ok', provider: 'p2' });
    if (r.status === 'ok') expect(r.skipped[0]).toMatch(/^grpc: unknown provider type "grpc"/);
  });

  it.each([
    ['every provider unready', [{ healthy: false, reason: 'no key' }, { healthy: false }], /p1: no key; p2: not ready/],
  ])('NO_HEALTHY_PROVIDER without retryAfterMs when %s', async (_label, readiness, message) => {
    const h = await harness([fakeTool('multi', { providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.ready('p1', readiness[0]!).ready('p2', readiness[1]!);
    const e = await expectCode(h.runtime.call('multi', {}), 'NO_HEALTHY_PROVIDER');
    expect(e.status).toBe(503);
    expect(e.message).toMatch(message);
    expect(e.extra.retryAfterMs).toBeUndefined();
    expect(e.extra.providers?.map((p) => p.provider)).toEqual(['p1', 'p2']);
    expect(h.fakes.count()).toBe(0);
  });

  it('a tool without providers is NO_HEALTHY_PROVIDER ("it lists none")', async () => {
    const h = await harness([fakeTool('bare', { providers: [] })]);
    const e = await expectCode(h.runtime.call('bare', {}), 'NO_HEALTHY_PROVIDER');
    expect(e.message).toContain('it lists none');
  });
});

describe('retries by retry class', () => {
  it.each(['never', 'guarded', 'safe'] as const)('%s: a failure before any effect fails over to the next provider', async (retryClass) => {
    const h = await harness([fakeTool('multi', { execution: execution(retryClass), providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.on('p1', fail('PROVIDER_UNAVAILABLE', 'connection refused', true)).on('p2', ok('from p2'));
    const r = await h.runtime.call('multi', {});
    expect(r).toMatchObject({ status: 'ok', provider: 'p2', attempts: 2, result: 'from p2' });
    expect(h.fakes.order()).toEqual(['p1', 'p2']);
    expect(h.fakes.calls.map((c) => c.ctx.attempt)).toEqual([1, 2]);
    expect(new Set(h.fakes.calls.map((c) => c.ctx.callId))).toEqual(new Set([r.callId]));
  });

  type Case = [label: string, retryClass: RetryClass, key: string | undefined, retried: boolean, message: RegExp | undefined];
  const cases: Case[] = [
    ['never: no retry', 'never', undefined, false, /Not retried: retry class "never"/],
    ['never: no retry even with a key', 'never', 'key-1', false, /retry class "never"/],
    ['guarded without a key: no retry', 'guarded', undefined, false, /retry class "guarded" without an idempotency key/],
    ['guarded with a caller key: fails over', 'guarded', 'key-1', true, undefined],
    ['safe: fails over', 'safe', undefined, true, undefined],
  ];

  it.each(cases)('after a failure that may have had effects, %s', async (_label, retryClass, key, retried, message) => {
    const h = await harness([fakeTool('multi', { execution: execution(retryClass), providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'HTTP 500 mid-write', false));
    const call = h.runtime.call('multi', {}, key === undefined ? {} : { idempotencyKey: key });
    if (retried) {
      await expect(call).resolves.toMatchObject({ status: 'ok', provider: 'p2', attempts: 2 });
      expect(h.fakes.order()).toEqual(['p1', 'p2']);
    } else {
      const e = await expectCode(call, 'PROVIDER_ERROR');
      expect(e.status).toBe(502);
      expect(e.message).toContain('HTTP 500 mid-write');
      expect(e.message).toMatch(message!);
      expect(e.extra.providers).toEqual([{ provider: 'p1', outcome: 'PROVIDER_ERROR: HTTP 500 mid-write' }]);
      expect(h.fakes.order()).toEqual(['p1']);
    }
  });

  it('the idempotency key reaches every attempt: the caller\'s, else one made up from the call id', async () => {
    const h = await harness([fakeTool('keyed', { execution: execution('guarded'), providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'maybe wrote', false));
    await h.runtime.call('keyed', {}, { idempotencyKey: 'caller-key' });
    expect(h.fakes.calls.map((c) => c.ctx.idempotencyKey)).toEqual(['caller-key', 'caller-key']);
    h.clock.tick(10 * 60_000); // past p1's backoff
    h.fakes.on('p1', ok('fine'));
    const r = await h.runtime.call('keyed', {});
    expect(h.fakes.calls.at(-1)?.ctx.idempotencyKey).toBe(r.callId);
  });

  it.each([
    ['safe', undefined, 3],
    ['safe', undefined, 1],
    ['guarded', 'key-9', 3],
    ['guarded', 'key-9', 5],
  ] as const)('%s (key %s): one provider that keeps failing is tried maxAttempts=%i times (no circuit in the way)', async (retryClass, key, maxAttempts) => {
    const h = await harness([fakeTool('flaky', { execution: execution(retryClass) })], { maxAttempts, health: noBackoff() });
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'flaky', false));
    const e = await expectCode(h.runtime.call('flaky', {}, key === undefined ? {} : { idempotencyKey: key }), 'PROVIDER_ERROR');
    expect(h.fakes.count()).toBe(maxAttempts);
    expect(h.fakes.calls.map((c) => c.ctx.attempt)).toEqual(Array.from({ length: maxAttempts }, (_, i) => i + 1));
    expect(e.extra.providers).toHaveLength(maxAttempts);
  });

  it('safe: a provider that fails once then succeeds is retried to success (no circuit in the way)', async () => {
    const h = await harness([fakeTool('flaky', { execution: execution('safe') })], { health: noBackoff() });
    let n = 0;
    h.fakes.on('p1', async () => {
      if (++n === 1) throw new Error('transient');
      return 'second time lucky';
    });
    await expect(h.runtime.call('flaky', {})).resolves.toMatchObject({ status: 'ok', attempts: 2, result: 'second time lucky' });
  });

  // BUG: with the default HealthBook the first failure opens the provider's circuit for ~1 s, longer than the
  // documented retry pause (100 ms x 2^n), so "then the same providers again after a pause" never happens.
  it('safe, default health book: one failing provider is still retried up to maxAttempts (docs/runtime.md, retries)', async () => {
    const h = await harness([fakeTool('flaky', { execution: execution('safe') })], { maxAttempts: 3, retryBaseMs: 100 });
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'flaky', false));
    await expectCode(h.runtime.call('flaky', {}), 'PROVIDER_ERROR');
    expect(h.fakes.count()).toBe(3);
  });

  it.each([
    ['RESPONSE_TOO_LARGE', false],
    ['EGRESS_DENIED', true],
  ] as const)('safe: %s is not retried on the same provider, only failed over', async (code, beforeEffect) => {
    // a retry would meet the same refusal (the egress policy, the size limit): three downloads of an answer too large
    const one = await harness([fakeTool('big', { execution: execution('safe') })], { maxAttempts: 3, health: noBackoff() });
    one.fakes.on('p1', fail(code, 'refused', beforeEffect));
    const e = await expectCode(one.runtime.call('big', {}), 'PROVIDER_ERROR');
    expect(one.fakes.count()).toBe(1);
    expect(e.message).toContain('Not retried: every provider left would meet the same refusal again');
    const two = await harness([fakeTool('big', { execution: execution('safe'), providers: fakeProviders(['p1', 0], ['p2', 1]) })], { maxAttempts: 3, health: noBackoff() });
    let n = 0;
    two.fakes.on('p1', fail(code, 'refused', beforeEffect)).on('p2', async () => {
      if (++n === 1) throw new Error('transient');
      return 'from p2';
    });
    await expect(two.runtime.call('big', {})).resolves.toMatchObject({ status: 'ok', provider: 'p2', attempts: 3 });
    // p2's ordinary failure is retried after the pause; p1 is never asked again
    expect(two.fakes.order()).toEqual(['p1', 'p2', 'p2']);
  });

  it('failures before any effect get one extra attempt per provider on top of maxAttempts', async () => {
    const h = await harness([fakeTool('multi', { execution: execution('never'), providers: fakeProviders(['p1', 0], ['p2', 1]) })], { maxAttempts: 1, health: noBackoff() });
    h.fakes.on('p1', fail('PROVIDER_UNAVAILABLE', 'refused', true)).on('p2', fail('PROVIDER_UNAVAILABLE', 'refused', true));
    const e = await expectCode(h.runtime.call('multi', {}), 'PROVIDER_ERROR');
    expect(h.fakes.count()).toBe(3); // maxAttempts (1) + one per provider (2)
    expect(e.extra.providers?.[0]?.outcome).toContain('(before any effect)');
  });
});

describe('timeouts and aborts', () => {
  it.each([
    ['a provider that honours its signal', hang],
    ['a provider that ignores its signal', ignoreSignal],
  ])('%s times out as TIMEOUT and is not retried (retry class never)', async (_label, behaviour) => {
    const h = await harness([fakeTool('slow', { execution: { timeoutSec: 0.05, retryClass: 'never', allowParallel: true } })]);
    h.fakes.on('p1', behaviour);
    const e = await expectCode(h.runtime.call('slow', {}), 'TIMEOUT');
    expect(e.status).toBe(504);
    expect(e.message).toContain('did not finish within 0.05 s');
    expect(h.fakes.count()).toBe(1);
    expect(h.fakes.calls[0]?.ctx.signal.aborted).toBe(true);
    const [record] = await h.sqlite.listCalls({ tool: 'slow' });
    expect(record).toMatchObject({ outcome: 'timeout', errorCode: 'TIMEOUT', provider: 'p1' });
  }, 10_000);

  it('a timed-out safe call fails over to the next provider', async () => {
    const h = await harness([fakeTool('slow', { execution: execution('safe', { timeoutSec: 0.05 }), providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.on('p1', ignoreSignal).on('p2', ok('fast'));
    await expect(h.runtime.call('slow', {})).resolves.toMatchObject({ provider: 'p2', result: 'fast' });
  }, 10_000);

  it('the caller aborting ends the call and is not retried, even when safe', async () => {
    const h = await harness([fakeTool('slow', { execution: execution('safe', { timeoutSec: 30 }), providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.on('p1', hang);
    const controller = new AbortController();
    const call = h.runtime.call('slow', {}, { signal: controller.signal });
    await vi.waitFor(() => expect(h.fakes.count()).toBe(1));
    controller.abort(new Error('user went away'));
    const e = await callErrorOf(call);
    expect(e.message).toContain('caller aborted');
    expect(h.fakes.order()).toEqual(['p1']);
  });

  it('the caller aborting is no failure of the provider: its circuit stays closed and the next call runs on it', async () => {
    const h = await harness([fakeTool('slow', { execution: execution('never', { timeoutSec: 30 }) })]);
    h.fakes.on('p1', hang);
    const controller = new AbortController();
    const call = h.runtime.call('slow', {}, { signal: controller.signal });
    await vi.waitFor(() => expect(h.fakes.count()).toBe(1));
    controller.abort(new Error('user went away'));
    expect((await callErrorOf(call)).message).toContain('caller aborted');
    h.fakes.on('p1', ok('next'));
    await expect(h.runtime.call('slow', {})).resolves.toMatchObject({ provider: 'p1', result: 'next' });
  });

  it('an attempt that has ended lets go of its signal: the caller aborting later no longer reaches the provider’s signal', async () => {
    const h = await harness([fakeTool('quick', { execution: execution('never', { timeoutSec: 30 }) })]);
    h.fakes.on('p1', ok('done'));
    const controller = new AbortController();
    await expect(h.runtime.call('quick', {}, { signal: controller.signal })).resolves.toMatchObject({ result: 'done' });
    controller.abort(new Error('much later'));
    expect(h.fakes.calls[0]?.ctx.signal.aborted).toBe(false);
  });
});

async function callErrorOf(p: Promise<unknown>) {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof Error)) throw new Error('expected a rejection');
  return e;
}

describe('backoff and half-open probes', () => {
  it('after a failure the provider is skipped with retryAfterMs until its backoff ends', async () => {
    const h = await harness([fakeTool('one')]);
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'down', false));
    await expectCode(h.runtime.call('one', {}), 'PROVIDER_ERROR');
    const circuit = h.runtime.health.circuit('one', 'p1');
    expect(circuit).toMatchObject({ consecutiveFailures: 1, backoffUntil: h.clock.now + 1000, probing: false });

    const e = await expectCode(h.runtime.call('one', {}), 'NO_HEALTHY_PROVIDER');
    expect(e.extra.retryAfterMs).toBe(1000);
    expect(e.message).toContain('backing off after 1 consecutive failure');
    expect(e.message).toContain('Retry in 1 s');
    h.clock.tick(400);
    expect((await expectCode(h.runtime.call('one', {}), 'NO_HEALTHY_PROVIDER')).extra.retryAfterMs).toBe(600);
    expect(h.fakes.count()).toBe(1);
    expect(await h.runtime.metrics.text()).toMatch(/toolcap_provider_backoff\{tool="one",provider="p1"\} 1/);
  });

  it('a backing-off provider is skipped in favour of the next one', async () => {
    const h = await harness([fakeTool('two', { providers: fakeProviders(['p1', 0], ['p2', 1]) })]);
    h.fakes.on('p1', fail('PROVIDER_UNAVAILABLE', 'refused', true));
    await h.runtime.call('two', {});
    const r = await h.runtime.call('two', {});
    expect(r).toMatchObject({ provider: 'p2', attempts: 1, skipped: ['p1: backing off after 1 consecutive failure'] });
    expect(h.fakes.order()).toEqual(['p1', 'p2', 'p2']);
  });

  it('when the backoff ends exactly one probe is admitted; its success closes the circuit', async () => {
    const h = await harness([fakeTool('one')]);
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'down', false));
    await expectCode(h.runtime.call('one', {}), 'PROVIDER_ERROR');
    h.clock.tick(1000);
    const gate = deferred();
    h.fakes.on('p1', () => gate.promise);
    const probe = h.runtime.call('one', {});
    await vi.waitFor(() => expect(h.fakes.count()).toBe(2));
    expect(h.runtime.health.circuit('one', 'p1').probing).toBe(true);
    const second = await expectCode(h.runtime.call('one', {}), 'NO_HEALTHY_PROVIDER');
    expect(second.message).toContain('a probe call is already testing it');
    expect(h.fakes.count()).toBe(2);
    gate.resolve('recovered');
    await expect(probe).resolves.toMatchObject({ status: 'ok', result: 'recovered' });
    expect(h.runtime.health.circuit('one', 'p1')).toMatchObject({ consecutiveFailures: 0, backoffUntil: 0, probing: false });
    h.fakes.on('p1', ok('normal'));
    await expect(Promise.all([h.runtime.call('one', {}), h.runtime.call('one', {})])).resolves.toHaveLength(2);
    expect(h.fakes.count()).toBe(4);
  });

  it('a failed probe reopens the circuit for longer', async () => {
    const h = await harness([fakeTool('one')]);
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'down', false));
    await expectCode(h.runtime.call('one', {}), 'PROVIDER_ERROR');
    h.clock.tick(1000);
    await expectCode(h.runtime.call('one', {}), 'PROVIDER_ERROR');
    expect(h.runtime.health.circuit('one', 'p1')).toMatchObject({ consecutiveFailures: 2, backoffUntil: h.clock.now + 2000, probing: false });
    const [ph] = h.runtime.health.providers('one');
    expect(ph).toMatchObject({ provider: 'p1', calls: 2, successRate: 0, consecutiveFailures: 2 });
  });
});

describe('HealthBook.backoffMs', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [5, 16_000],
    [9, 256_000],
    [10, 300_000],
    [30, 300_000],
  ])('default policy, no jitter: %i failures -> %i ms', (failures, ms) => {
    expect(new HealthBook({ random: () => 0.5 }).backoffMs(failures)).toBe(ms);
  });

  it.each([
    [1, 100],
    [2, 100],
    [3, 300],
    [4, 900],
    [5, 1000],
  ])('custom policy (base 100, factor 3, cap 1000, threshold 2): %i failures -> %i ms', (failures, ms) => {
    const book = new HealthBook({ backoff: { baseMs: 100, factor: 3, capMs: 1000, threshold: 2 }, random: () => 0.5 });
    expect(book.backoffMs(failures)).toBe(ms);
  });

  it.each([
    [0, 1, 800],
    [0.999999, 1, 1200],
    [0, 20, 240_000],
    [0.999999, 20, 300_000],
  ])('jitter ±20%% (random %f, %i failures) -> %i ms, never above the cap', (r, failures, ms) => {
    expect(new HealthBook({ random: () => r }).backoffMs(failures)).toBe(ms);
  });

  it('below the threshold a failure does not open the circuit', () => {
    const book = new HealthBook({ backoff: { threshold: 2 }, random: () => 0.5 });
    const outcome = { ok: false, durationMs: 1, at: 10_000, provider: 'p', errorCode: 'PROVIDER_ERROR' };
    book.recordAttempt('t', 'p', outcome);
    expect(book.admit('t', 'p', 10_000)).toEqual({ ok: true, probe: false });
    book.recordAttempt('t', 'p', outcome);
    expect(book.admit('t', 'p', 10_000)).toMatchObject({ ok: false, until: 11_000 });
  });
});

describe('what a provider said reaches the caller', () => {
  it.each(['RESPONSE_TOO_LARGE', 'BAD_RESPONSE', 'PROVIDER_ERROR'] as const)('a %s failure names its code in the call error', async (code) => {
    const h = await harness([fakeTool('one', { execution: execution('never'), providers: fakeProviders(['p1', 0]) })]);
    h.fakes.on('p1', fail(code, 'what the provider said', false));
    const e = await expectCode(h.runtime.call('one', {}), 'PROVIDER_ERROR');
    expect(e.message).toContain(`failed (${code}): what the provider said`);
  });
});
