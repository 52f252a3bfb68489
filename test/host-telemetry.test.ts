/**
 * createToolcap with the config's telemetry section and the OTEL_*
 * variables: a call's span reaches a real OTLP/HTTP receiver (decoded
 * protobuf) and the JSON-lines file alike; OTEL_TRACES_EXPORTER=none
 * writes neither; a bad telemetry section is a located diagnostic.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { createToolcap, type Toolcap } from '../src/host.js';
import { startOtlpReceiver } from './helpers/otlp-receiver.js';

const folders: string[] = [];
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  for (const d of folders.splice(0)) rmSync(d, { recursive: true, force: true });
});

function project(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-telemetry-'));
  folders.push(dir);
  cpSync('examples/manifests', join(dir, 'manifests'), { recursive: true });
  const file = join(dir, 'toolcap.config.yaml');
  writeFileSync(file, config);
  return file;
}

async function open(file: string, env: Record<string, string>): Promise<{ toolcap: Toolcap; warnings: string[] }> {
  const warnings: string[] = [];
  const toolcap = await createToolcap(file, { env, warn: (m) => warnings.push(m), mcp: false });
  cleanup.push(() => toolcap.close());
  return { toolcap, warnings };
}

describe('telemetry through createToolcap', () => {
  it('config endpoint + OTEL_SERVICE_NAME: the span goes to OTLP and to the file', async () => {
    const receiver = await startOtlpReceiver();
    cleanup.push(receiver.close);
    const file = project(`sources: [manifests/]\ntelemetry:\n  serviceName: from-config\n  traces:\n    otlp: { endpoint: '${receiver.url}', protocol: http/protobuf }\n`);
    const { toolcap } = await open(file, { OTEL_SERVICE_NAME: 'from-env' });
    expect(toolcap.tracing.otlpUrl).toBe(`${receiver.url}/v1/traces`);
    expect(toolcap.traceFile).toMatch(/traces\.jsonl$/);
    const r = await toolcap.runtime.call('text.reverse', { text: 'abc' }, { caller: 'test' });
    expect(r.status).toBe('ok');
    await toolcap.tracing.flush();
    const span = receiver.spans().find((s) => s.name === 'execute_tool text.reverse');
    expect(span?.attributes).toMatchObject({ 'gen_ai.tool.name': 'text.reverse', 'toolcap.arg.text': 'abc', 'toolcap.tool.mode': 'read' });
    expect(span?.resource['service.name']).toBe('from-env');
    const lines = readFileSync(toolcap.traceFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { name: string; traceId: string });
    expect(lines.map((l) => l.name)).toContain('execute_tool text.reverse');
    // the same span in both places
    expect(lines.find((l) => l.name === 'execute_tool text.reverse')?.traceId).toBe(span?.traceId);
  });

  it('OTEL_TRACES_EXPORTER=none: no file, nothing sent', async () => {
    const receiver = await startOtlpReceiver();
    cleanup.push(receiver.close);
    const file = project(`sources: [manifests/]\ntelemetry: { traces: { otlp: { endpoint: '${receiver.url}' } } }\n`);
    const { toolcap } = await open(file, { OTEL_TRACES_EXPORTER: 'none' });
    expect(toolcap.traceFile).toBeUndefined();
    expect(toolcap.tracing.otlpUrl).toBeUndefined();
    await toolcap.runtime.call('text.reverse', { text: 'abc' });
    await toolcap.tracing.flush();
    await toolcap.close();
    expect(receiver.exports).toEqual([]);
    expect(existsSync(join(file, '..', '.toolcap', 'traces.jsonl'))).toBe(false);
  });

  it('an unusable variable is a warning at open, the file still written', async () => {
    const file = project('sources: [manifests/]\n');
    const { toolcap, warnings } = await open(file, { OTEL_TRACES_EXPORTER: 'zipkin,jsonl' });
    expect(toolcap.traceFile).toBeDefined();
    expect(warnings.join('\n')).toMatch(/telemetry: OTEL_TRACES_EXPORTER: the exporter "zipkin" is not supported/);
  });

  it.each([
    ['telemetry:\n  traces: { exporters: [zipkin] }\n', 'UNKNOWN_ENUM_VALUE', '/telemetry/traces/exporters/0'],
    ['telemetry:\n  traces: { otlp: { endpoint: collector:4318 } }\n', 'INVALID_VALUE', '/telemetry/traces/otlp/endpoint'],
    ['telemetry:\n  traces: { otlp: { protocol: grpc } }\n', 'UNKNOWN_ENUM_VALUE', '/telemetry/traces/otlp/protocol'],
  ])('a bad telemetry section is located: %s', (section, code, pointer) => {
    const file = project(`sources: [manifests/]\n${section}`);
    const { config, diagnostics } = loadConfig(file);
    expect(config).toBeUndefined();
    expect(diagnostics).toContainEqual(expect.objectContaining({ code, pointer }));
  });
});
