/**
 * HTTP request metrics on the runtime's registry, with bounded labels: the
 * method (the ones the API answers, else `other`), the route template of
 * the route table (`/tools/{name}/call`, never the raw path: a caller's
 * words never become a series; `/mcp`; `unmatched` for any other path) and
 * the status class (`2xx` .. `5xx`).
 * @module
 */
import type { MiddlewareHandler } from 'hono';
import { Counter, Histogram } from 'prom-client';
import type { CallMetrics } from '../runtime/telemetry.js';
import { ROUTE_LIST } from './route-table.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

/** Every template the API answers: the route table's, and the MCP endpoint. Literal paths first, so `/tools/learned` is not `/tools/{name}`. */
const TEMPLATES = [...new Set([...ROUTE_LIST.map((r) => r.path), '/mcp'])]
  .map((path) => ({ path, params: (path.match(/\{/g) ?? []).length, pattern: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`) }))
  .sort((a, b) => a.params - b.params);

/**
 * The route template of a path, or `unmatched`.
 * @example routeTemplate('/tools/text.reverse/call') // '/tools/{name}/call'
 */
export function routeTemplate(path: string): string {
  return TEMPLATES.find((t) => t.pattern.test(path))?.path ?? 'unmatched';
}

/** `2xx` for 200..299, and so on. */
export const statusClass = (status: number): string => `${Math.min(5, Math.max(1, Math.floor(status / 100)))}xx`;

/**
 * Middleware counting every request (and its duration) on `metrics`'s
 * registry, rejected ones (401, 403, Host guard) included.
 * @example app.use('*', httpMetrics(runtime.metrics))
 */
export function httpMetrics(metrics: CallMetrics): MiddlewareHandler {
  const record = httpRecorder(metrics);
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // a handler that threw is answered by onError (500) after this runs
      record(c.req.method, routeTemplate(new URL(c.req.url).pathname), c.finalized ? c.res.status : 500, started);
    }
  };
}

/**
 * What {@link httpMetrics} records of one request, for a request served
 * outside Hono (the `/mcp` socket lane): its method, route template, status
 * and start (`performance.now()`).
 */
export function httpRecorder(metrics: CallMetrics): (method: string, route: string, status: number, started: number) => void {
  const requests = metrics.metric(
    'toolcap_http_requests_total',
    (registers) => new Counter({ name: 'toolcap_http_requests_total', help: 'HTTP requests, by method, route template and status class.', labelNames: ['method', 'route', 'status_class'] as const, registers }),
  );
  const duration = metrics.metric(
    'toolcap_http_request_duration_seconds',
    (registers) =>
      new Histogram({
        name: 'toolcap_http_request_duration_seconds',
        help: 'Time to the response head, by method and route template (a streamed body is not included).',
        labelNames: ['method', 'route'] as const,
        buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 60],
        registers,
      }),
  );
  return (method, route, status, started) => {
    const known = METHODS.has(method) ? method : 'other';
    requests.inc({ method: known, route, status_class: statusClass(status) });
    duration.observe({ method: known, route }, (performance.now() - started) / 1000);
  };
}
