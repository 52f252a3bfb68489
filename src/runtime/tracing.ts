/**
 * The tracer provider toolcap makes for itself from {@link TraceSettings}:
 * one OpenTelemetry SDK provider with a batch processor per exporter, the
 * JSON-lines file (trace-file.ts) and the official OTLP/HTTP exporters
 * (`@opentelemetry/exporter-trace-otlp-proto` for `http/protobuf`,
 * `-http` for `http/json`). The resource carries `service.name`,
 * `service.version` and the configured attributes.
 *
 * Every exporter sees spans through the redactor: the file redacts each
 * line; OTLP gets a redacted view of each span (attributes, status message,
 * event names and attributes), so a secret that reached an attribute never
 * leaves the process.
 * @module
 */
import type { Attributes, Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createRedactor, type Redactor } from './containment/redact.js';
import { JsonLinesSpanExporter } from './trace-file.js';
import type { TraceSettings } from './trace-settings.js';

/** The tracing of one toolcap, and how to flush and stop it. */
export interface Tracing {
  /** undefined when no exporter runs (spans would go nowhere). */
  tracer: Tracer | undefined;
  /** The trace file written, when `jsonl` runs. */
  file: string | undefined;
  /** The OTLP traces URL, when `otlp` runs. */
  otlpUrl: string | undefined;
  /** Export what is queued now. */
  flush(): Promise<void>;
  /** Flush and stop every exporter. Safe to call twice. */
  shutdown(): Promise<void>;
}

type ExportResult = Parameters<SpanExporter['export']>[1] extends (r: infer R) => void ? R : never;

/** A span exporter that hands another one redacted views of the spans. */
export class RedactingSpanExporter implements SpanExporter {
  constructor(
    readonly inner: SpanExporter,
    readonly redactor: Redactor,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map((s) => redactedSpan(s, this.redactor)), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The span, read through the redactor: what it says is redacted, its identity and timing are its own. */
export function redactedSpan(span: ReadableSpan, redactor: Redactor): ReadableSpan {
  const status = span.status.message === undefined ? span.status : { ...span.status, message: redactor.redactText(span.status.message) };
  const events = span.events.map((e) => ({ ...e, name: redactor.redactText(e.name), ...(e.attributes ? { attributes: redactor.redact(e.attributes) as Attributes } : {}) }));
  // a view over the span (its getters read through the prototype), with the redacted fields on top
  return Object.create(span, {
    attributes: { value: redactor.redact(span.attributes) as Attributes, enumerable: true },
    status: { value: status, enumerable: true },
    events: { value: events, enumerable: true },
  }) as ReadableSpan;
}

/** The OTLP exporter of the settings' protocol. */
function otlpExporter(otlp: NonNullable<TraceSettings['otlp']>): SpanExporter {
  const options = { url: otlp.url, headers: otlp.headers, timeoutMillis: otlp.timeoutMs };
  return otlp.protocol === 'http/json' ? new OtlpJsonExporter(options) : new OtlpProtoExporter(options);
}

/**
 * Make the tracing: a provider with the settings' exporters, or none.
 * `file` is where `jsonl` writes (undefined: `jsonl` is not run).
 * @example
 * const tracing = createTracing(traceSettings(process.env, config.telemetry, version), { file: '.toolcap/traces.jsonl' });
 * const runtime = new Runtime({ ...options, ...(tracing.tracer ? { tracer: tracing.tracer } : {}) });
 * await tracing.shutdown();
 */
export function createTracing(settings: TraceSettings, options: { file?: string | undefined; redactor?: Redactor; scheduledDelayMillis?: number } = {}): Tracing {
  const redactor = options.redactor ?? createRedactor();
  const delay = { scheduledDelayMillis: options.scheduledDelayMillis ?? 500 };
  const processors: SpanProcessor[] = [];
  const file = settings.exporters.includes('jsonl') ? options.file : undefined;
  if (file !== undefined) processors.push(new BatchSpanProcessor(new JsonLinesSpanExporter(file, redactor), delay));
  const otlp = settings.exporters.includes('otlp') ? settings.otlp : undefined;
  if (otlp !== undefined) processors.push(new BatchSpanProcessor(new RedactingSpanExporter(otlpExporter(otlp), redactor), delay));
  if (processors.length === 0) return { tracer: undefined, file: undefined, otlpUrl: undefined, flush: async () => {}, shutdown: async () => {} };
  const resource = defaultResource().merge(resourceFromAttributes(settings.resource));
  const provider = new BasicTracerProvider({ resource, spanProcessors: processors });
  let stopping: Promise<void> | undefined;
  return {
    tracer: provider.getTracer('toolcap'),
    file,
    otlpUrl: otlp?.url,
    flush: () => provider.forceFlush(),
    shutdown: () => (stopping ??= provider.shutdown()),
  };
}
