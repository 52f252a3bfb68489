import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TRACE_VALUE } from '../../src/runtime/telemetry.js';
import { closeAll, expectCode, fail, fakeProviders, fakeTool, harness, ignoreSignal } from './helpers.js';

const providers: BasicTracerProvider[] = [];
afterEach(async () => {
  await closeAll();
  for (const p of providers.splice(0)) await p.shutdown();
});

function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  providers.push(provider);
  return { exporter, tracer: provider.getTracer('test') };
}

const noted = fakeTool('notes.append', {
  description: 'Append a line to the notes',
  inputSchema: { type: 'object' },
  effects: { mode: 'write', sideEffects: 'filesystem', risk: 'medium', reversible: 'partial', rollbackHint: 'Delete the appended line' },
  approval: { required: false },
  execution: { timeoutSec: 7, retryClass: 'safe', idempotent: true, allowParallel: true },
  observability: { traceAttrs: ['line', 'long', 'obj', 'absent'] },
  providers: fakeProviders(['p0', 0], ['p1', 1]),
});

const only = (spans: ReadableSpan[]) => {
  expect(spans).toHaveLength(1);
  return spans[0]!;
};

describe('call spans', () => {
  it('a successful call: GenAI conventions, manifest attributes, outcome, traced arguments only', async () => {
    const { exporter, tracer } = memoryTracer();
    const h = await harness([noted], { tracer });
    h.fakes.ready('p0', { healthy: false, reason: 'NOTES_TOKEN is not set' });
    const args = { line: 'hello', long: 'x'.repeat(300), obj: { a: [1, 2] }, secret: 's3cret-value', count: 3 };
    const r = await h.runtime.call('notes.append', args, { persona: 'ops' });
    if (r.status !== 'ok') throw new Error('expected ok');

    const span = only(exporter.getFinishedSpans());
    expect(span.name).toBe('execute_tool notes.append');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.status.code).toBe(SpanStatusCode.OK);
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'notes.append',
      'gen_ai.tool.call.id': r.callId,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Append a line to the notes',
      'toolcap.tool.version': '1.0.0',
      'toolcap.tool.mode': 'write',
      'toolcap.tool.side_effects': 'filesystem',
      'toolcap.tool.risk': 'medium',
      'toolcap.tool.reversible': 'partial',
      'toolcap.tool.approval_required': false,
      'toolcap.tool.retry_class': 'safe',
      'toolcap.tool.rollback_hint': 'Delete the appended line',
      'toolcap.tool.timeout_sec': 7,
      'toolcap.persona': 'ops',
      'toolcap.provider': 'p1',
      'toolcap.providers.skipped': ['p0: NOTES_TOKEN is not set'],
      'toolcap.attempts': 1,
      'toolcap.arg.line': 'hello',
      'toolcap.arg.long': `${'x'.repeat(MAX_TRACE_VALUE)}…`,
      'toolcap.arg.obj': '{"a":[1,2]}',
    });
    // arguments not named in traceAttrs never reach the span
    expect(Object.keys(span.attributes).filter((k) => k.startsWith('toolcap.arg.')).sort()).toEqual(['toolcap.arg.line', 'toolcap.arg.long', 'toolcap.arg.obj']);
    expect(Object.values(span.attributes)).not.toContain('s3cret-value');
    expect(JSON.stringify(span.attributes)).not.toContain('s3cret');
    expect(span.attributes).not.toHaveProperty('error.type');
  });

  it.each([
    ['a provider failure', 'PROVIDER_ERROR', 'p1'],
    ['a timeout', 'TIMEOUT', 'p1'],
    ['no healthy provider', 'NO_HEALTHY_PROVIDER', undefined],
  ] as const)('%s ends the span with status ERROR and error.type', async (_label, code, provider) => {
    const { exporter, tracer } = memoryTracer();
    const h = await harness([fakeTool('svc', { execution: { timeoutSec: 0.05, retryClass: 'never', allowParallel: true } })], { tracer });
    if (code === 'PROVIDER_ERROR') h.fakes.on('p1', fail('PROVIDER_ERROR', 'boom', false));
    if (code === 'TIMEOUT') h.fakes.on('p1', ignoreSignal);
    if (code === 'NO_HEALTHY_PROVIDER') h.fakes.ready('p1', { healthy: false, reason: 'down for maintenance' });
    const e = await expectCode(h.runtime.call('svc', {}), code);
    const span = only(exporter.getFinishedSpans());
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.status.message).toBe(e.message);
    expect(span.attributes['error.type']).toBe(code);
    expect(span.attributes['gen_ai.tool.call.id']).toBe(e.extra.callId);
    expect(span.attributes['toolcap.provider']).toBe(provider);
    if (code === 'NO_HEALTHY_PROVIDER') expect(span.attributes['toolcap.providers.skipped']).toEqual(['p1: down for maintenance']);
  }, 10_000);

  it('a call that only asks for approval starts no span; the approved run has one with approval_required', async () => {
    const { exporter, tracer } = memoryTracer();
    const h = await harness([fakeTool('gated', { approval: { required: true } })], { tracer });
    const r = await h.runtime.call('gated', { x: 1 });
    if (r.status !== 'pending_approval') throw new Error('expected pending');
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    const out = await h.runtime.approve(r.approval.id);
    const span = only(exporter.getFinishedSpans());
    expect(span.attributes['toolcap.tool.approval_required']).toBe(true);
    expect(span.attributes['gen_ai.tool.call.id']).toBe(out.call?.callId);
  });

  it('a retried call reports its attempts', async () => {
    const { exporter, tracer } = memoryTracer();
    const h = await harness([fakeTool('svc', { providers: fakeProviders(['p1', 0], ['p2', 1]) })], { tracer });
    h.fakes.on('p1', fail('PROVIDER_UNAVAILABLE', 'refused', true));
    await h.runtime.call('svc', {});
    const span = only(exporter.getFinishedSpans());
    expect(span.attributes).toMatchObject({ 'toolcap.provider': 'p2', 'toolcap.attempts': 2, 'toolcap.providers.skipped': [] });
  });
});

describe('metrics', () => {
  it('counts calls, attempts and approvals with the tool label', async () => {
    const h = await harness([fakeTool('svc.ok'), fakeTool('svc.bad'), fakeTool('svc.gated', { approval: { required: true } })]);
    h.fakes.on('svc.bad/p1', fail('PROVIDER_ERROR', 'boom', false));
    await h.runtime.call('svc.ok', {});
    await h.runtime.call('svc.ok', {});
    await expectCode(h.runtime.call('svc.bad', {}), 'PROVIDER_ERROR');
    await h.runtime.call('svc.gated', {});
    const text = await h.runtime.metrics.text();
    expect(text).toContain('toolcap_tool_calls_total{tool="svc.ok",outcome="ok"} 2');
    expect(text).toContain('toolcap_tool_calls_total{tool="svc.bad",outcome="PROVIDER_ERROR"} 1');
    // a call waiting for approval is an outcome too
    expect(text).toContain('toolcap_tool_calls_total{tool="svc.gated",outcome="pending_approval"} 1');
    expect(text).toContain('toolcap_provider_attempts_total{tool="svc.ok",provider="p1",outcome="ok"} 2');
    expect(text).toContain('toolcap_approvals_total{event="requested",tool="svc.gated"} 1');
    expect(text).toContain('toolcap_tool_call_duration_seconds_count{tool="svc.ok"} 2');
  });

  it('two runtimes keep separate metrics', async () => {
    const h = await harness([fakeTool('svc')]);
    const other = h.another();
    await h.runtime.call('svc', {});
    expect(await h.runtime.metrics.text()).toContain('toolcap_tool_calls_total{tool="svc",outcome="ok"} 1');
    expect(await other.metrics.text()).not.toContain('toolcap_tool_calls_total{tool="svc"');
  });
});
