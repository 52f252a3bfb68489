/**
 * MCP session metrics on the runtime's registry: sessions open now and
 * sessions opened, by transport (`streamable_http`, `stdio`). The gauge is
 * read from the session tables when scraped, so it cannot drift from them
 * (a sweep, a DELETE and a shutdown all close sessions).
 * @module
 */
import { Counter, Gauge } from 'prom-client';
import type { CallMetrics } from '../runtime/telemetry.js';

/** The transports the gateway serves: the label's whole vocabulary. */
export type McpTransportLabel = 'streamable_http' | 'stdio';

type Sources = Map<McpTransportLabel, Set<() => number>>;
const sourcesOf = new WeakMap<CallMetrics, Sources>();

/** The session series of a runtime's metrics, made once per registry. */
export function sessionMetrics(metrics: CallMetrics): {
  /** A session opened on `transport`. */
  opened(transport: McpTransportLabel): void;
  /** Count the sessions `size` reports as open on `transport` until the returned function is called. */
  track(transport: McpTransportLabel, size: () => number): () => void;
} {
  let sources = sourcesOf.get(metrics);
  if (!sources) sourcesOf.set(metrics, (sources = new Map()));
  const all = sources;
  const opened = metrics.metric('toolcap_mcp_sessions_opened_total', (registers) => new Counter({ name: 'toolcap_mcp_sessions_opened_total', help: 'MCP sessions opened, by transport.', labelNames: ['transport'] as const, registers }));
  metrics.metric(
    'toolcap_mcp_sessions_active',
    (registers) =>
      new Gauge({
        name: 'toolcap_mcp_sessions_active',
        help: 'MCP sessions open now, by transport.',
        labelNames: ['transport'] as const,
        registers,
        collect() {
          for (const transport of ['streamable_http', 'stdio'] as const) this.set({ transport }, [...(all.get(transport) ?? [])].reduce((n, size) => n + size(), 0));
        },
      }),
  );
  return {
    opened: (transport) => opened.inc({ transport }),
    track: (transport, size) => {
      let set = all.get(transport);
      if (!set) all.set(transport, (set = new Set()));
      const mine = set;
      // a distinct function per call, so the same size source tracked twice is counted twice and removed once
      const source = () => size();
      mine.add(source);
      return () => void mine.delete(source);
    },
  };
}
