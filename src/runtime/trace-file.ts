/**
 * Traces a newcomer can read without a collector: spans appended as JSON
 * lines to a file (`.toolcap/traces.jsonl` beside the store by default),
 * through the OpenTelemetry SDK's batch processor. An application with its
 * own tracer provider (OTLP to a collector) passes its tracer to the
 * runtime instead.
 *
 * Every line goes through a redactor before it is written (token shapes by
 * default; the runtime's redactor, with the known secret values, when
 * given): spans are redacted where they are made, this is the last gate.
 * @module
 */
import { appendFile, mkdir, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createRedactor, type Redactor } from './containment/redact.js';

/** The file is rotated to `<file>.1` past this size. @default 10 MiB */
export const MAX_TRACE_FILE_BYTES = 10 * 1024 * 1024;

const hrMs = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;

/** One span as a JSON line. */
function spanRecord(span: ReadableSpan): Record<string, unknown> {
  const ctx = span.spanContext();
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    kind: span.kind,
    start: new Date(hrMs(span.startTime)).toISOString(),
    durationMs: Math.round(hrMs(span.duration) * 1000) / 1000,
    status: span.status,
    attributes: span.attributes,
  };
}

/** A span exporter appending JSON lines to a file. */
export class JsonLinesSpanExporter implements SpanExporter {
  #writing: Promise<void> = Promise.resolve();
  readonly #redactor: Redactor;
  /** @param redactor applied to every line. @default token shapes only */
  constructor(
    readonly file: string,
    redactor: Redactor = createRedactor(),
  ) {
    this.#redactor = redactor;
  }

  export(spans: ReadableSpan[], done: (result: { code: number; error?: Error }) => void): void {
    const text = spans.map((s) => `${JSON.stringify(this.#redactor.redact(spanRecord(s)))}\n`).join('');
    this.#writing = this.#writing
      .then(async () => {
        await mkdir(dirname(this.file), { recursive: true });
        const size = await stat(this.file).then((s) => s.size, () => 0);
        if (size > MAX_TRACE_FILE_BYTES) await rename(this.file, `${this.file}.1`);
        await appendFile(this.file, text);
      })
      .then(
        () => done({ code: 0 }),
        (error: unknown) => done({ code: 1, error: error instanceof Error ? error : new Error(String(error)) }),
      );
  }

  async shutdown(): Promise<void> {
    await this.#writing;
  }

  async forceFlush(): Promise<void> {
    await this.#writing;
  }
}

/** A tracer writing to a JSON-lines file, and how to flush it. */
export function fileTracer(file: string, redactor?: Redactor): { tracer: Tracer; shutdown(): Promise<void> } {
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new JsonLinesSpanExporter(file, redactor), { scheduledDelayMillis: 500 })] });
  return { tracer: provider.getTracer('toolcap'), shutdown: () => provider.shutdown() };
}
