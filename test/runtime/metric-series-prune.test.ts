/**
 * Metric series follow the catalog. Every series labelled by tool (calls,
 * attempts, durations, approvals, backoff) stayed forever, so an MCP server
 * that renames its tools on every reload (untrusted: it lists what it likes)
 * grew /metrics without bound. On each snapshot swap the series of tools the
 * new snapshot no longer has are removed; those of tools it still has keep
 * their counts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CallMetrics } from '../../src/runtime/telemetry.js';
import { until } from '../server/helpers.js';
import { closeAll, fakeTool, harness, manifest } from './helpers.js';

afterEach(closeAll);

const series = (text: string, tool: string) => text.split('\n').filter((l) => !l.startsWith('#') && l.includes(`tool="${tool}"`));

describe('metric series of tools that left the catalog', () => {
  it('are removed when the new snapshot is swapped in; live tools keep their counts', async () => {
    const h = await harness([fakeTool('keep.me'), fakeTool('old.name')]);
    for (let i = 0; i < 3; i++) await h.runtime.call('keep.me', {});
    await h.runtime.call('old.name', {});
    const before = await h.runtime.metrics.text();
    expect(series(before, 'old.name').length).toBeGreaterThan(0);
    expect(before).toContain('toolcap_tool_calls_total{tool="keep.me",outcome="ok"} 3');

    await h.rewrite(manifest([fakeTool('keep.me'), fakeTool('new.name')]));
    const after = await until(async () => {
      const text = await h.runtime.metrics.text();
      return series(text, 'old.name').length === 0 ? text : undefined;
    }, 5_000, 'old.name series removed');
    expect(after).toContain('toolcap_tool_calls_total{tool="keep.me",outcome="ok"} 3');
    expect(after).toContain('toolcap_tool_call_duration_seconds_count{tool="keep.me"} 3');
    expect(series(after, 'keep.me').length).toBe(series(before, 'keep.me').length);
  });

  it('do not grow over many renames', async () => {
    const h = await harness([fakeTool('t.v0')]);
    for (let v = 1; v <= 5; v++) {
      await h.runtime.call(`t.v${v - 1}`, {});
      await h.rewrite(manifest([fakeTool(`t.v${v}`)]));
    }
    await h.runtime.call('t.v5', {});
    const text = await until(async () => {
      const t = await h.runtime.metrics.text();
      return series(t, 't.v4').length === 0 ? t : undefined;
    }, 5_000, 'series of renamed tools removed');
    for (let v = 0; v < 5; v++) expect(series(text, `t.v${v}`), `t.v${v}`).toEqual([]);
    expect(series(text, 't.v5').length).toBeGreaterThan(0);
  });

  it('retainTools keeps the (unknown) series and every label set of a live tool', async () => {
    const m = new CallMetrics();
    m.calls.inc({ tool: '(unknown)', outcome: 'TOOL_NOT_FOUND' });
    m.attempts.inc({ tool: 'a', provider: 'p', outcome: 'ok' });
    m.attempts.inc({ tool: 'b', provider: 'p', outcome: 'ok' });
    m.attempts.inc({ tool: 'b', provider: 'q', outcome: 'error' });
    m.duration.observe({ tool: 'b' }, 0.1);
    m.backoff.set({ tool: 'b', provider: 'p' }, 1);
    expect(await m.retainTools((name) => name === 'a')).toBe(4);
    const text = await m.registry.metrics();
    expect(series(text, 'b')).toEqual([]);
    expect(series(text, 'a').length).toBe(1);
    expect(series(text, '(unknown)').length).toBe(1);
  });
});
