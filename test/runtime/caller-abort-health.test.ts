/**
 * A caller's abort (an MCP client that hangs up or sends notifications/cancelled) says nothing of the tool: it must not
 * count against the tool's success rate (`min_success_rate` hides tools below it from every caller's search), nor be
 * recorded as the provider's error.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeAll, fakeTool, hang, harness, ok } from './helpers.js';

afterEach(closeAll);

describe('a caller that gives up', () => {
  it('leaves the tool success rate as it was', async () => {
    const h = await harness([fakeTool('slow', { execution: { timeoutSec: 30, retryClass: 'never', allowParallel: true } })]);
    h.fakes.on('p1', ok('fine'));
    await h.runtime.call('slow', {});
    expect(h.runtime.health.lookup('slow')).toMatchObject({ successRate: 1 });
    h.fakes.on('p1', hang);
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const call = h.runtime.call('slow', {}, { signal: controller.signal }).catch((e: unknown) => e as Error);
      await vi.waitFor(() => expect(h.fakes.count()).toBe(2 + i));
      controller.abort(new Error('client went away'));
      expect(await call).toMatchObject({ code: 'CANCELLED', message: expect.stringContaining('caller aborted') });
    }
    expect(h.runtime.health.lookup('slow')).toMatchObject({ successRate: 1 });
    await h.runtime.flush();
    const calls = await h.runtime.store.listCalls({ tool: 'slow' });
    expect(calls.map((c) => c.errorCode)).toEqual([...Array(5).fill('CANCELLED'), null]);
  });

  it('is not a caller whose own deadline passed: that is a TIMEOUT, counted in the tool success rate (a probe\'s deadline)', async () => {
    const h = await harness([fakeTool('slow', { execution: { timeoutSec: 30, retryClass: 'never', allowParallel: true } })]);
    h.fakes.on('p1', hang);
    // a client's cancel whose reason it chose (a string, even this one) stays a cancel
    const controller = new AbortController();
    const call = h.runtime.call('slow', {}, { signal: controller.signal }).catch((e: unknown) => e as Error);
    await vi.waitFor(() => expect(h.fakes.count()).toBe(1));
    controller.abort('TimeoutError');
    expect(await call).toMatchObject({ code: 'CANCELLED' });
    expect(h.runtime.health.lookup('slow')).toBeUndefined();
    const failed = await h.runtime.call('slow', {}, { signal: AbortSignal.timeout(50) }).catch((e: unknown) => e as Error);
    expect(failed).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining("the caller's deadline") });
    expect(h.runtime.health.lookup('slow')).toMatchObject({ calls: 1, successRate: 0 });
  });
});
