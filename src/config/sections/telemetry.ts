/**
 * The `telemetry` section: where spans go (the JSON-lines file, OTLP) and
 * the resource they carry. The standard `OTEL_*` environment variables win
 * over it field by field (runtime/trace-settings.ts); OTLP headers (API
 * keys) come only from `OTEL_EXPORTER_OTLP_HEADERS`, never from a file.
 * @module
 */
import { Type } from '@sinclair/typebox';
import { OTLP_PROTOCOLS, TRACE_EXPORTERS, type TelemetryConfig } from '../../runtime/trace-settings.js';
import type { ConfigReading } from '../reading.js';

export type { TelemetryConfig };

const URL_PATTERN = '^https?://\\S+$';

/** `telemetry`: exporters, OTLP endpoint and protocol, service name and resource attributes. */
export const TelemetrySchema = Type.Object(
  {
    disabled: Type.Optional(Type.Boolean({ description: 'Export no spans at all (as OTEL_SDK_DISABLED=true).' })),
    serviceName: Type.Optional(Type.String({ minLength: 1, description: 'service.name of the resource (OTEL_SERVICE_NAME wins). Default: toolcap.' })),
    resourceAttributes: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'More resource attributes (OTEL_RESOURCE_ATTRIBUTES adds to them).' })),
    traces: Type.Optional(
      Type.Object(
        {
          exporters: Type.Optional(Type.Array(Type.Union(TRACE_EXPORTERS.map((e) => Type.Literal(e))), { description: 'jsonl, otlp, or [none] (OTEL_TRACES_EXPORTER wins). Default: jsonl, plus otlp when an endpoint is set.' })),
          otlp: Type.Optional(
            Type.Object(
              {
                endpoint: Type.Optional(Type.String({ pattern: URL_PATTERN, description: 'Base URL; /v1/traces is appended (OTEL_EXPORTER_OTLP_ENDPOINT wins).' })),
                tracesEndpoint: Type.Optional(Type.String({ pattern: URL_PATTERN, description: 'Full traces URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT wins).' })),
                protocol: Type.Optional(Type.Union(OTLP_PROTOCOLS.map((p) => Type.Literal(p)), { description: 'Default: http/protobuf (OTEL_EXPORTER_OTLP_PROTOCOL wins).' })),
                timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000, description: 'Per export. Default: 10000.' })),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'Traces: docs/observability.md.' },
);

const isUrl = (v: string) => new RegExp(URL_PATTERN).test(v);

/** Read `telemetry` (optional). @default {} */
export function readTelemetry(reading: ConfigReading): TelemetryConfig {
  const out: TelemetryConfig = {};
  const t = reading.top.object('telemetry');
  if (!t) return out;
  const disabled = t.boolean('disabled');
  if (disabled !== undefined) out.disabled = disabled;
  const serviceName = t.string('serviceName');
  if (serviceName !== undefined && serviceName.trim() !== '') out.serviceName = serviceName;
  const attributes = t.object('resourceAttributes');
  if (attributes) {
    const attrs: Record<string, string> = {};
    for (const key of Object.keys(attributes.value)) {
      const v = attributes.string(key);
      if (v !== undefined) attrs[key] = v;
    }
    out.resourceAttributes = attrs;
  }
  const traces = t.object('traces');
  if (traces) {
    out.traces = {};
    const exporters = traces.enumValues('exporters', TRACE_EXPORTERS);
    if (exporters !== undefined) out.traces.exporters = exporters;
    const otlp = traces.object('otlp');
    if (otlp) {
      const o: NonNullable<NonNullable<TelemetryConfig['traces']>['otlp']> = {};
      for (const key of ['endpoint', 'tracesEndpoint'] as const) {
        const v = otlp.string(key);
        if (v === undefined) continue;
        if (isUrl(v)) o[key] = v;
        else reading.report('INVALID_VALUE', `"${key}" is not an http(s) URL.`, otlp.at(key), { hint: 'Write it as http://collector:4318.' });
      }
      const protocol = otlp.enumValue('protocol', OTLP_PROTOCOLS);
      if (protocol !== undefined) o.protocol = protocol;
      const timeoutMs = otlp.number('timeoutMs', { integer: true, min: 1, max: 600_000 });
      if (timeoutMs !== undefined) o.timeoutMs = timeoutMs;
      otlp.rest({ where: 'telemetry.traces.otlp (known: endpoint, tracesEndpoint, protocol, timeoutMs)' });
      out.traces.otlp = o;
    }
    traces.rest({ where: 'telemetry.traces (known: exporters, otlp)' });
  }
  t.rest({ where: 'telemetry (known: disabled, serviceName, resourceAttributes, traces)' });
  return out;
}
