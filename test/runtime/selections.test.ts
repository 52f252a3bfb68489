/**
 * Selections: bounded (LRU, TTL), bound to the principal answered, and what
 * a call records of them: `toolcap.selected_over` on its span (scores,
 * penalties), the same in its audit lines, redacted; an id given to another
 * principal is recorded as not found.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { MAX_SELECTION_CANDIDATES, SELECTION_ID, Selections, type SelectionCandidate } from '../../src/runtime/selections.js';
import { closeAll, fakeProviders, fakeTool, harness, ManualClock } from './helpers.js';

afterEach(closeAll);

const cand = (name: string, rank: number, penalties: SelectionCandidate['penalties'] = []): SelectionCandidate => ({ name, rank, score: 100 - rank * 10, fit: 1 - rank / 10, penalties });
const RANKED = [cand('a', 1), cand('b', 2, [{ code: 'RISK', points: 12, reason: 'risk high' }]), cand('c', 3), cand('d', 4)];

describe('Selections', () => {
  it('ids are unguessable and of one shape', () => {
    const s = new Selections();
    const ids = new Set([1, 2, 3].map(() => s.record('', 'q', RANKED)));
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(SELECTION_ID);
  });

  it.each([
    ['the top candidate: everything below it', 'a', 1, ['b', 'c', 'd'], []],
    ['a middle one: below it selected over, above it passed over', 'c', 3, ['d'], ['a', 'b']],
    ['the last one', 'd', 4, [], ['a', 'b', 'c']],
    ['a tool the answer did not hold: every candidate', 'zz', null, ['a', 'b', 'c', 'd'], []],
  ])('%s', (_what, tool, rank, over, above) => {
    const s = new Selections();
    const id = s.record('p1', 'open an issue', RANKED);
    const r = s.resolve(id, 'p1', tool);
    expect(r?.rank).toBe(rank);
    expect(r?.selectedOver.map((c) => c.name)).toEqual(over);
    expect(r?.rankedAbove.map((c) => c.name)).toEqual(above);
    expect(r?.query).toBe('open an issue');
  });

  it('the penalties travel with the candidate', () => {
    const s = new Selections();
    const id = s.record('', 'q', RANKED);
    expect(s.resolve(id, '', 'a')?.selectedOver[0]).toEqual({ name: 'b', rank: 2, score: 80, fit: 0.8, penalties: [{ code: 'RISK', points: 12, reason: 'risk high' }] });
  });

  it('bound to the owner: another principal, or a trusted caller, gets nothing', () => {
    const s = new Selections();
    const id = s.record('alice', 'q', RANKED);
    expect(s.resolve(id, 'bob', 'a')).toBeUndefined();
    expect(s.resolve(id, '', 'a')).toBeUndefined();
    expect(s.resolve(id, 'alice', 'a')).toBeDefined();
  });

  it('forgotten after the TTL', () => {
    const clock = new ManualClock();
    const s = new Selections({ ttlMs: 1000, clock: clock.fn });
    const id = s.record('', 'q', RANKED);
    clock.tick(1000);
    expect(s.resolve(id, '', 'a')).toBeDefined();
    clock.tick(1);
    expect(s.resolve(id, '', 'a')).toBeUndefined();
    expect(s.size).toBe(0);
  });

  it('bounded: the least recently used goes first; a resolve counts as a use', () => {
    const s = new Selections({ capacity: 3 });
    const [first, second, third] = [s.record('', '1', RANKED), s.record('', '2', RANKED), s.record('', '3', RANKED)];
    expect(s.resolve(first!, '', 'a')).toBeDefined();
    s.record('', '4', RANKED);
    expect(s.size).toBe(3);
    expect(s.resolve(second!, '', 'a')).toBeUndefined();
    expect(s.resolve(first!, '', 'a')).toBeDefined();
    expect(s.resolve(third!, '', 'a')).toBeDefined();
  });

  it("one owner's flood of searches pushes out only its own selections", () => {
    // searches are not rate-limited: 1,000 searches of one caller pushed every other principal's selections out
    const s = new Selections();
    const alice = s.record('alice', 'mine', RANKED);
    const flood = Array.from({ length: 1000 }, (_, i) => s.record('mallory', `q${i}`, RANKED));
    expect(s.resolve(alice, 'alice', 'a')?.query).toBe('mine');
    expect(s.resolve(flood.at(-1)!, 'mallory', 'a')).toBeDefined();
    expect(s.resolve(flood[0]!, 'mallory', 'a')).toBeUndefined();
    expect(s.size).toBeLessThanOrEqual(101);
    // perOwner: the owner's least recently used goes first
    const small = new Selections({ capacity: 10, perOwner: 2 });
    const [one, two] = [small.record('x', '1', RANKED), small.record('x', '2', RANKED)];
    expect(small.resolve(one, 'x', 'a')).toBeDefined();
    const three = small.record('x', '3', RANKED);
    expect([one, two, three].map((id) => small.resolve(id, 'x', 'a') !== undefined)).toEqual([true, false, true]);
    expect(small.size).toBe(2);
  });

  it(`keeps at most ${MAX_SELECTION_CANDIDATES} candidates`, () => {
    const s = new Selections();
    const many = Array.from({ length: 50 }, (_, i) => cand(`t${i}`, i + 1));
    expect(s.resolve(s.record('', 'q', many), '', 'nope')?.selectedOver).toHaveLength(MAX_SELECTION_CANDIDATES);
  });
});

describe('a call that names its selection', () => {
  const SECRET = 'zebra-umbrella-secret-77';
  const tools = [
    fakeTool('notes.read', { effects: { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' }, providers: fakeProviders(['p0', 0]) }),
    fakeTool('notes.write', { effects: { mode: 'write', sideEffects: 'filesystem', risk: 'medium', reversible: 'partial' }, approval: { required: false }, providers: fakeProviders(['p0', 0]) }),
  ];

  async function setup() {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const { createRedactor } = await import('../../src/runtime/containment/redact.js');
    const h = await harness(tools, { tracer: provider.getTracer('test'), redactor: createRedactor({ secrets: [SECRET] }) });
    return { h, exporter };
  }

  it('records selected_over on the span and in the audit lines (write: started and outcome), the query redacted', async () => {
    const { h, exporter } = await setup();
    const id = h.runtime.selections.record('', `change notes ${SECRET}`, [cand('notes.write', 1), cand('notes.read', 2, [{ code: 'INTENT', points: 30, reason: 'reads, the task writes' }])]);
    const r = await h.runtime.call('notes.write', {}, { selection: id });
    expect(r.status).toBe('ok');
    const span = exporter.getFinishedSpans()[0]!;
    expect(span.attributes['toolcap.selection.id']).toBe(id);
    expect(span.attributes['toolcap.selection.found']).toBe(true);
    expect(span.attributes['toolcap.selection.rank']).toBe(1);
    expect(span.attributes['toolcap.selection.query']).toBe('change notes [REDACTED]');
    const over = (span.attributes['toolcap.selected_over'] as string[]).map((t) => JSON.parse(t) as Record<string, unknown>);
    expect(over).toEqual([{ name: 'notes.read', rank: 2, score: 80, fit: 0.8, penalties: ['INTENT -30: reads, the task writes'] }]);
    await h.flush();
    const lines = await h.sqlite.listAudit({ callId: r.callId });
    expect(lines.map((l) => l.kind)).toEqual(['call.started', 'call.ok']);
    for (const line of lines) {
      expect(line.detail).toMatchObject({ selection: { id, found: true, rank: 1, selectedOver: [{ name: 'notes.read', penalties: [{ code: 'INTENT', points: 30 }] }] } });
      expect(JSON.stringify(line.detail)).not.toContain(SECRET);
    }
  });

  it("another principal's id is recorded as not found, nothing of it shown", async () => {
    const { h, exporter } = await setup();
    const id = h.runtime.selections.record('alice', 'private words of alice', [cand('notes.read', 1), cand('notes.write', 2)]);
    const bob: Principal = { id: 'bob', roles: ['caller'], personas: ['*'], via: 'api-key' };
    const r = await h.runtime.call('notes.read', {}, { selection: id, principal: bob });
    expect(r.status).toBe('ok');
    const span = exporter.getFinishedSpans()[0]!;
    expect(span.attributes).toMatchObject({ 'toolcap.selection.id': id, 'toolcap.selection.found': false });
    expect(span.attributes).not.toHaveProperty('toolcap.selected_over');
    expect(JSON.stringify(span.attributes)).not.toContain('alice');
    await h.flush();
    const [line] = await h.sqlite.listAudit({ callId: r.callId });
    expect(line?.detail).toMatchObject({ selection: { id, found: false } });
  });
});
