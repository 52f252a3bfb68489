import { describe, expect, it, vi } from 'vitest';
import type { Tool } from '../../src/model/schema.js';
import type { Snapshot } from '../../src/registry/snapshot.js';
import { HealthBook } from '../../src/runtime/health.js';
import { HealthChecks, MIN_CHECK_INTERVAL_MS } from '../../src/runtime/health-checks.js';
import { ProviderSlots } from '../../src/runtime/provider-slots.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import type { ProviderInstance } from '../../src/runtime/providers/types.js';

/** Instances that record what happened to them. */
function recordingTypes(log: string[]): ProviderTypes {
  return new ProviderTypes({ empty: true }).register({
    type: 'rec',
    create: (_entry, tool): ProviderInstance => ({
      name: 'rec',
      type: 'rec',
      call: async () => null,
      ...(tool.name.startsWith('retiring') ? { retire: () => void log.push(`retire ${tool.name}`) } : {}),
      close: async () => void log.push(`close ${tool.name}`),
    }),
  });
}

const tool = (name: string): Tool => Object.freeze({ name, providers: [{ name: 'rec' }] });
/** The parts of a snapshot the slots read. */
const snapshot = (version: number, tools: Tool[]) => ({ version, tools, provenance: () => undefined }) as unknown as Snapshot;

describe('provider slots: instances follow the serving snapshot', () => {
  it('a newer snapshot retires the instances of tools it dropped (close() when there is no retire()); unchanged tools keep theirs', () => {
    const log: string[] = [];
    const health = new HealthBook();
    const slots = new ProviderSlots(recordingTypes(log), { env: {}, baseDir: '.' }, health, new HealthChecks(health, Date.now));
    const kept = tool('kept');
    const [a, b] = [tool('retiring.a'), tool('closing.b')];
    const v1 = snapshot(1, [kept, a, b]);
    const first = slots.of(v1, kept);
    slots.of(v1, a);
    slots.of(v1, b);
    expect(log).toEqual([]);
    const v2 = snapshot(2, [kept]);
    expect(slots.of(v2, kept)).toBe(first);
    expect(log.sort()).toEqual(['close closing.b', 'retire retiring.a']);
  });

  it('close() closes every instance made', async () => {
    const log: string[] = [];
    const health = new HealthBook();
    const slots = new ProviderSlots(recordingTypes(log), { env: {}, baseDir: '.' }, health, new HealthChecks(health, Date.now));
    const v1 = snapshot(1, [tool('x'), tool('retiring.y')]);
    for (const t of v1.tools) slots.of(v1, t);
    await slots.close();
    expect(log.sort()).toEqual(['close retiring.y', 'close x']);
  });
});

describe('scheduled health checks', () => {
  it('run at most once a second whatever the interval, and never two at once for one provider', async () => {
    vi.useFakeTimers();
    try {
      const health = new HealthBook();
      const checks = new HealthChecks(health, Date.now);
      let started = 0;
      let release: (() => void) | undefined;
      const instance: ProviderInstance = {
        name: 'p',
        type: 'rec',
        call: async () => null,
        healthCheckIntervalSec: 0.001,
        // a check that ignores its abort and hangs until released
        check: () => {
          started++;
          return new Promise((resolve) => (release = () => resolve({ healthy: true })));
        },
      };
      checks.schedule(tool('t'), 'p', instance);
      expect(started).toBe(1);
      await vi.advanceTimersByTimeAsync(MIN_CHECK_INTERVAL_MS * 5);
      // still the first: the later ticks found it running
      expect(started).toBe(1);
      release?.();
      await vi.advanceTimersByTimeAsync(MIN_CHECK_INTERVAL_MS * 3 - 1);
      // once a second, not once a millisecond
      expect(started).toBeGreaterThanOrEqual(2);
      expect(started).toBeLessThanOrEqual(4);
      await checks.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
