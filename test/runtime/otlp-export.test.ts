/**
 * OTLP export: the trace settings the OTEL_* variables and the config give
 * (table), and spans received by a real OTLP/HTTP receiver that decodes the
 * payload the official exporters send (protobuf and JSON), with the
 * manifest's cost, the resource from the environment, the headers, and
 * the redactor as the last gate.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/runtime/containment/redact.js';
import { traceSettings, type TelemetryConfig } from '../../src/runtime/trace-settings.js';
import { createTracing, type Tracing } from '../../src/runtime/tracing.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { closeAll, fakeProviders, fakeTool, harness } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await closeAll();
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('trace settings', () => {
  const cases: Array<[string, Record<string, string>, TelemetryConfig, Partial<ReturnType<typeof traceSettings>>]> = [
    ['nothing set: the file only', {}, {}, { exporters: ['jsonl'] }],
    ['a base endpoint: file and OTLP at /v1/traces', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, {}, { exporters: ['jsonl', 'otlp'], otlp: { url: 'http://c:4318/v1/traces', protocol: 'http/protobuf', headers: {}, timeoutMs: 10_000 } }],
    ['the traces endpoint is used as written and wins', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/x' }, {}, { otlp: { url: 'http://t:9/x', protocol: 'http/protobuf', headers: {}, timeoutMs: 10_000 } }],
    ['the config endpoint', {}, { traces: { otlp: { endpoint: 'http://cfg:4318', protocol: 'http/json' } } }, { exporters: ['jsonl', 'otlp'], otlp: { url: 'http://cfg:4318/v1/traces', protocol: 'http/json', headers: {}, timeoutMs: 10_000 } }],
    ['the environment wins over the config', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, { traces: { otlp: { endpoint: 'http://cfg:4318', protocol: 'http/json' } } }, { otlp: { url: 'http://env:4318/v1/traces', protocol: 'http/protobuf', headers: {}, timeoutMs: 10_000 } }],
    ['OTEL_TRACES_EXPORTER=otlp alone: the spec default endpoint, no file', { OTEL_TRACES_EXPORTER: 'otlp' }, {}, { exporters: ['otlp'], otlp: { url: 'http://localhost:4318/v1/traces', protocol: 'http/protobuf', headers: {}, timeoutMs: 10_000 } }],
    ['OTEL_TRACES_EXPORTER=none: nothing', { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, {}, { exporters: [] }],
    ['config exporters [none]', {}, { traces: { exporters: ['none'] } }, { exporters: [] }],
    ['OTEL_SDK_DISABLED=true: nothing', { OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, {}, { exporters: [] }],
    ['config disabled', {}, { disabled: true }, { exporters: [] }],
    ['OTEL_SDK_DISABLED=false overrides config disabled', { OTEL_SDK_DISABLED: 'false' }, { disabled: true }, { exporters: ['jsonl'] }],
    ['headers: percent-decoded, traces headers win', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20a,x-team=t', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20b' }, {}, { otlp: { url: 'http://localhost:4318/v1/traces', protocol: 'http/protobuf', headers: { authorization: 'Bearer b', 'x-team': 't' }, timeoutMs: 10_000 } }],
    ['timeout from the environment', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TIMEOUT: '2500' }, {}, { otlp: { url: 'http://localhost:4318/v1/traces', protocol: 'http/protobuf', headers: {}, timeoutMs: 2500 } }],
  ];
  it.each(cases)('%s', (_what, env, config, expected) => {
    const settings = traceSettings(env, config);
    expect(settings).toMatchObject(expected);
    if (!('otlp' in expected)) expect(settings.otlp).toBeUndefined();
    expect(settings.warnings).toEqual([]);
  });

  it.each([
    ['an unknown exporter is ignored', { OTEL_TRACES_EXPORTER: 'zipkin,jsonl' }, ['jsonl'], /zipkin/],
    ['grpc falls back to http/protobuf', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, ['jsonl', 'otlp'], /grpc/],
    ['a bad URL turns OTLP off, without echoing it', { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:pw@c' }, ['jsonl'], /not an http\(s\) URL/],
    ['a header that is not key=value', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: 'tok-secret-1' }, ['otlp'], /not key=value/],
  ])('%s, with a warning', (_what, env, exporters, warning) => {
    const settings = traceSettings(env, {});
    expect(settings.exporters).toEqual(exporters);
    expect(settings.warnings.join('\n')).toMatch(warning);
    expect(settings.warnings.join('\n')).not.toMatch(/pw@|tok-secret/);
  });

  it('the resource: OTEL_SERVICE_NAME over OTEL_RESOURCE_ATTRIBUTES over the config, attributes merged', () => {
    expect(traceSettings({}, {}, '1.2.3').resource).toEqual({ 'service.name': 'toolcap', 'service.version': '1.2.3' });
    expect(traceSettings({}, { serviceName: 'cfg', resourceAttributes: { team: 'a' } }).resource).toEqual({ 'service.name': 'cfg', team: 'a' });
    expect(traceSettings({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=attr,env=prod%2Feu' }, { serviceName: 'cfg', resourceAttributes: { team: 'a' } }).resource).toEqual({ 'service.name': 'attr', team: 'a', env: 'prod/eu' });
    expect(traceSettings({ OTEL_SERVICE_NAME: 'svc', OTEL_RESOURCE_ATTRIBUTES: 'service.name=attr' }, {}).resource['service.name']).toBe('svc');
  });
});

const SECRET = 'plain-words-zebra-umbrella-42';

const charged = fakeTool('notes.lookup', {
  description: 'Look a line up in the notes',
  inputSchema: { type: 'object' },
  effects: { mode: 'read', sideEffects: 'compute', risk: 'low', reversible: 'full' },
  approval: { required: false },
  cost: { lane: 'medium', estimatedDollars: 0.02 },
  observability: { traceAttrs: ['line'] },
  providers: fakeProviders(['p0', 0]),
});

describe.each(['http/protobuf', 'http/json'] as const)('OTLP export over %s to a real receiver', (protocol) => {
  it('the call span arrives decoded: name, GenAI and cost attributes, resource, headers; a secret is redacted at the exporter', async () => {
    const receiver = await startOtlpReceiver();
    cleanup.push(receiver.close);
    const settings = traceSettings(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20otlp-token-1',
        OTEL_SERVICE_NAME: 'gateway-a',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
      },
      {},
      '9.9.9',
    );
    // the exporter's redactor knows the secret; the runtime's (token shapes only) does not: the exporter is the last gate
    const tracing: Tracing = createTracing(settings, { redactor: createRedactor({ secrets: [SECRET] }) });
    cleanup.push(tracing.shutdown);
    expect(tracing.otlpUrl).toBe(`${receiver.url}/v1/traces`);
    expect(tracing.file).toBeUndefined();
    const h = await harness([charged], { tracer: tracing.tracer!, redactor: createRedactor() });
    const r = await h.runtime.call('notes.lookup', { line: `note ${SECRET} here` });
    expect(r.status).toBe('ok');
    await tracing.flush();

    expect(receiver.exports.length).toBeGreaterThan(0);
    const received = receiver.exports[0]!;
    expect(received.path).toBe('/v1/traces');
    expect(received.contentType).toMatch(protocol === 'http/json' ? /^application\/json/ : /^application\/x-protobuf/);
    expect(received.headers['authorization']).toBe('Bearer otlp-token-1');
    const spans = receiver.spans();
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    expect(span.name).toBe('execute_tool notes.lookup');
    expect(span.scope).toBe('toolcap');
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'notes.lookup',
      'gen_ai.tool.call.id': r.callId,
      'toolcap.tool.cost.lane': 'medium',
      'toolcap.tool.cost.estimated_dollars': 0.02,
      'toolcap.provider': 'p0',
      'toolcap.attempts': 1,
      'toolcap.arg.line': 'note [REDACTED] here',
    });
    expect(span.resource).toMatchObject({ 'service.name': 'gateway-a', 'service.version': '9.9.9', 'deployment.environment': 'test', 'telemetry.sdk.name': 'opentelemetry' });
    expect(JSON.stringify(receiver.exports.map((e) => e.spans))).not.toContain(SECRET);
  });
});
