/** A caller's abort gives back a half-open probe slot only when its attempt held it. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAll, expectCode, fail, fakeTool, hang, harness } from './helpers.js';

afterEach(closeAll);

describe('a caller that gives up during another call\'s probe', () => {
  it('does not free the probe slot it never held', async () => {
    const h = await harness([fakeTool('one', { execution: { timeoutSec: 30, retryClass: 'never', allowParallel: true } })]);
    // X starts while the circuit is closed, and hangs
    h.fakes.on('p1', hang);
    const controller = new AbortController();
    const x = h.runtime.call('one', {}, { signal: controller.signal }).catch((e: unknown) => e);
    await vi.waitFor(() => expect(h.fakes.count()).toBe(1));
    // W fails: the circuit opens; when its backoff ends Y is the one probe
    h.fakes.on('p1', fail('PROVIDER_ERROR', 'down', false));
    await expectCode(h.runtime.call('one', {}), 'PROVIDER_ERROR');
    h.clock.tick(1000);
    h.fakes.on('p1', hang);
    void h.runtime.call('one', {}).catch(() => undefined);
    await vi.waitFor(() => expect(h.fakes.count()).toBe(3));
    expect(h.runtime.health.circuit('one', 'p1').probing).toBe(true);
    // X's client hangs up
    controller.abort(new Error('client went away'));
    await x;
    expect(h.runtime.health.circuit('one', 'p1').probing).toBe(true);
    const z = await expectCode(h.runtime.call('one', {}), 'NO_HEALTHY_PROVIDER');
    expect(z.message).toContain('a probe call is already testing it');
  });
});
