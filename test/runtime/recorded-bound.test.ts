/**
 * A `traceAttrs` argument copied into an audit row is the caller's: it may be
 * megabytes. Span attributes cut it at 256 characters; the `call.started`
 * row kept it whole, so one call wrote megabytes into the append-only log
 * (and every /audit page and export carries them). Its values are now
 * redacted, then cut to the same bound; a secret on the cut is redacted,
 * never left with its start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { boundedRecorded, MAX_RECORDED_VALUE } from '../../src/runtime/containment/recorded-arguments.js';
import { closeAll, fakeTool, harness } from './helpers.js';

afterEach(closeAll);

const WRITE = { mode: 'write', sideEffects: 'write', risk: 'medium', reversible: 'none' };
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const tool = () =>
  fakeTool('notes.add', {
    effects: WRITE,
    inputSchema: { type: 'object', properties: { body: { type: 'string' }, meta: { type: 'object' }, n: { type: 'number' }, short: { type: 'object' } } },
    observability: { traceAttrs: ['body', 'meta', 'n', 'short'] },
  });

describe('traceAttrs values in audit rows', () => {
  it('a megabyte argument is cut to the bound in call.started, redacted before the cut', async () => {
    const h = await harness([tool()]);
    // the token starts 10 characters before the bound: cut first, its start would survive any later redaction
    const body = `${'x'.repeat(245)} ${TOKEN} ${'y'.repeat(1_000_000)}`;
    const meta = { blob: 'z'.repeat(1_000_000) };
    await h.runtime.call('notes.add', { body, meta, n: 7, short: { a: 1 } });
    await h.flush();
    const started = (await h.store.inner.listAudit()).find((a) => a.kind === 'call.started')!;
    const args = (started.detail as { arguments: Record<string, unknown> }).arguments;
    expect(JSON.stringify(started.detail).length).toBeLessThan(2_000);
    expect(String(args['body']).length).toBeLessThanOrEqual(257);
    expect(String(args['body'])).not.toContain(TOKEN.slice(0, 8));
    expect(String(args['body'])).toContain('[REDACTED]');
    expect(String(args['meta'])).toBe(`${JSON.stringify(meta).slice(0, 256)}…`);
    // small values keep their shape
    expect(args['n']).toBe(7);
    expect(args['short']).toEqual({ a: 1 });
  });

  it('boundedRecorded: strings and large values cut, the rest as it is', () => {
    expect(MAX_RECORDED_VALUE).toBe(256);
    expect(boundedRecorded({ s: 'a'.repeat(300), o: { k: 'b'.repeat(300) }, b: true, z: null })).toEqual({
      s: `${'a'.repeat(256)}…`,
      o: `${JSON.stringify({ k: 'b'.repeat(300) }).slice(0, 256)}…`,
      b: true,
      z: null,
    });
  });
});
