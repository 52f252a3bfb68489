/**
 * Traces and metrics of calls.
 *
 * Traces: one OpenTelemetry span per call, named `execute_tool <tool>`,
 * following the GenAI semantic conventions (`gen_ai.operation.name =
 * execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`) plus the
 * manifest attributes a reviewer needs to judge the call (`toolcap.*`) and
 * the argument values the manifest names in `observability.traceAttrs`.
 * The span goes to whatever tracer provider the application registered
 * (`@opentelemetry/api`); without one it is a no-op.
 *
 * Metrics: Prometheus text at `GET /metrics`, from a private prom-client
 * registry (never the global one, so two runtimes in one process do not
 * collide). Every label set is bounded: tools by the catalog, outcomes by
 * the error codes, events by the approval states (docs/observability.md
 * lists every series). The process and Node.js defaults start at the
 * first scrape, so a runtime nobody scrapes (a CLI call) pays nothing.
 * @module
 */
import { SpanKind, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry as MetricsRegistry, type Metric } from 'prom-client';
import { toolcapVersion } from '../model/version.js';
import type { Tool } from '../model/schema.js';
import { cutRecorded, MAX_RECORDED_VALUE, recordedArguments } from './containment/recorded-arguments.js';
import { createRedactor, type Redactor } from './containment/redact.js';
import { CallError } from './errors.js';

/** Token shapes only, for callers that pass no redactor. */
const TOKEN_SHAPES = createRedactor();

/** The tracer toolcap uses (its instrumentation scope). */
export function toolcapTracer(): Tracer {
  return trace.getTracer('toolcap');
}

/** Largest attribute value copied from an argument, in characters: the bound audit rows keep too. */
export const MAX_TRACE_VALUE = MAX_RECORDED_VALUE;

function attributeValue(value: unknown): string | number | boolean {
  if (typeof value === 'string') return cutRecorded(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return cutRecorded(JSON.stringify(value) ?? 'null');
}

/** The attributes a call span starts with: GenAI conventions, the manifest, the recorded arguments (redacted). */
export function callAttributes(
  tool: Tool,
  callId: string,
  args: Record<string, unknown>,
  persona: string | undefined,
  approvalRequired: boolean,
  redactor: Redactor = TOKEN_SHAPES,
): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool.name,
    'gen_ai.tool.call.id': callId,
    'gen_ai.tool.type': 'function',
    'toolcap.tool.version': tool.version ?? '',
    'toolcap.tool.mode': tool.effects?.mode ?? 'write',
    'toolcap.tool.side_effects': tool.effects?.sideEffects ?? 'system',
    'toolcap.tool.risk': tool.effects?.risk ?? 'high',
    'toolcap.tool.reversible': tool.effects?.reversible ?? 'none',
    'toolcap.tool.approval_required': approvalRequired,
    'toolcap.tool.retry_class': tool.execution?.retryClass ?? 'never',
    'toolcap.tool.timeout_sec': tool.execution?.timeoutSec ?? 30,
  };
  if (tool.description !== undefined) attributes['gen_ai.tool.description'] = attributeValue(tool.description) as string;
  // what the manifest says a call costs: a postmortem weighs the call against it
  if (tool.cost?.lane !== undefined) attributes['toolcap.tool.cost.lane'] = tool.cost.lane;
  if (tool.cost?.estimatedDollars !== undefined) attributes['toolcap.tool.cost.estimated_dollars'] = tool.cost.estimatedDollars;
  if (tool.effects?.rollbackHint !== undefined) attributes['toolcap.tool.rollback_hint'] = tool.effects.rollbackHint;
  if (persona !== undefined) attributes['toolcap.persona'] = persona;
  for (const [name, value] of Object.entries(redactor.redact(recordedArguments(tool, args)))) attributes[`toolcap.arg.${name}`] = attributeValue(value);
  return attributes;
}

/** Start a call span (SpanKind INTERNAL: toolcap runs the tool on the caller's behalf). */
export function startCallSpan(tracer: Tracer, tool: Tool, attributes: Attributes): Span {
  return tracer.startSpan(`execute_tool ${tool.name}`, { kind: SpanKind.INTERNAL, attributes });
}

/** End a call span with its outcome; skipped reasons and the status message go through `redactor`. */
export function endCallSpan(
  span: Span,
  outcome: { ok: boolean; provider?: string | undefined; skipped: string[]; attempts: number; errorCode?: string; message?: string },
  redactor: Redactor = TOKEN_SHAPES,
): void {
  if (outcome.provider !== undefined) span.setAttribute('toolcap.provider', outcome.provider);
  span.setAttribute('toolcap.providers.skipped', outcome.skipped.map(redactor.redactText));
  span.setAttribute('toolcap.attempts', outcome.attempts);
  if (outcome.ok) span.setStatus({ code: SpanStatusCode.OK });
  else {
    span.setAttribute('error.type', outcome.errorCode ?? 'error');
    span.setStatus({ code: SpanStatusCode.ERROR, ...(outcome.message !== undefined ? { message: redactor.redactText(outcome.message) } : {}) });
  }
  span.end();
}

/** The tool label of a call refused before it ran: its name when the catalog has a tool of that name, else `(unknown)` (a caller's words never become a series). */
export function refusedToolLabel(name: string, known: (name: string) => boolean): string {
  return known(name) ? name : UNKNOWN_TOOL_LABEL;
}

/** The tool label of calls of no tool the catalog has. */
export const UNKNOWN_TOOL_LABEL = '(unknown)';

/** The outcome label of an error: its code for a call error, else `error`. */
export function outcomeLabel(error: unknown): string {
  return error instanceof CallError ? error.code : 'error';
}

/** The Prometheus metrics of one runtime. */
export class CallMetrics {
  readonly registry = new MetricsRegistry();
  readonly calls = new Counter({ name: 'toolcap_tool_calls_total', help: 'Tool calls by final outcome.', labelNames: ['tool', 'outcome'] as const, registers: [this.registry] });
  readonly attempts = new Counter({
    name: 'toolcap_provider_attempts_total',
    help: 'Provider attempts by outcome.',
    labelNames: ['tool', 'provider', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'toolcap_tool_call_duration_seconds',
    help: 'Tool call duration, including retries and failover.',
    labelNames: ['tool'] as const,
    buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 120],
    registers: [this.registry],
  });
  readonly approvals = new Counter({
    name: 'toolcap_approvals_total',
    help: 'Approval requests and decisions, by tool: requested, deduplicated, approved, denied, expired.',
    labelNames: ['event', 'tool'] as const,
    registers: [this.registry],
  });
  readonly buildInfo = new Gauge({ name: 'toolcap_build_info', help: 'Always 1; the labels say which toolcap runs on which Node.js.', labelNames: ['version', 'node_version'] as const, registers: [this.registry] });
  #defaults = false;

  constructor() {
    this.buildInfo.set({ version: toolcapVersion(), node_version: process.versions.node }, 1);
  }

  /**
   * The metric of this name on the registry, made by `make` the first time
   * (a second server or gateway over one runtime shares the series).
   */
  metric<T extends Metric>(name: string, make: (registers: MetricsRegistry[]) => T): T {
    return (this.registry.getSingleMetric(name) as T | undefined) ?? make([this.registry]);
  }
  readonly backoff = new Gauge({ name: 'toolcap_provider_backoff', help: '1 while a provider is backing off.', labelNames: ['tool', 'provider'] as const, registers: [this.registry] });
  readonly snapshotVersion = new Gauge({ name: 'toolcap_registry_version', help: 'Version of the serving catalog snapshot.', registers: [this.registry] });

  /**
   * Remove the series of tools the catalog no longer has (renamed or removed,
   * an MCP server's included), from every metric labelled by tool; the series
   * of tools it still has keep their counts. Called on each snapshot swap
   * (the runtime subscribes), so the label set follows the catalog instead of
   * growing with every name an untrusted server ever listed.
   * @returns how many series were removed
   */
  async retainTools(known: (name: string) => boolean): Promise<number> {
    let removed = 0;
    const metrics: Array<Counter<string> | Histogram<string> | Gauge<string>> = [this.calls, this.attempts, this.duration, this.approvals, this.backoff];
    for (const metric of metrics) {
      const gone = new Map<string, Record<string, string | number>>();
      for (const { labels } of (await metric.get()).values) {
        const tool = labels['tool'];
        if (tool === undefined || tool === UNKNOWN_TOOL_LABEL || known(String(tool))) continue;
        // a histogram's buckets carry `le`; its series is the labels without it
        const { le: _le, ...series } = labels as Record<string, string | number>;
        gone.set(JSON.stringify(series), series);
      }
      for (const series of gone.values()) metric.remove(series);
      removed += gone.size;
    }
    return removed;
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    if (!this.#defaults) {
      this.#defaults = true;
      collectDefaultMetrics({ register: this.registry });
    }
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
