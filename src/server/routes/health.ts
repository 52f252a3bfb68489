/**
 * What an operator polls: `GET /health` (the registry's status; 503 until
 * the first good build) and `GET /metrics` (Prometheus text from the runtime).
 * @module
 */
import { routeModule, withRuntime, JSON_TYPE, type ApiContext, type RouteModule } from '../context.js';
import { ROUTES } from '../route-table.js';

/** The health and metrics routes, mounted at `/`. */
export function healthRoutes(ctx: ApiContext): RouteModule {
  const { registry } = ctx;
  const { on, ...module } = routeModule('/');

  on(ROUTES.health, () => {
    const status = registry.status();
    const state = status.version === 0 ? 'starting' : status.ok ? 'ok' : 'degraded';
    const body = { status: state, ...status };
    return new Response(JSON.stringify(body), { status: status.version === 0 ? 503 : 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store' } });
  });

  on(ROUTES.metrics, withRuntime(ctx), async (c) => {
    const { metrics } = c.var.runtime;
    metrics.snapshotVersion.set(registry.status().version);
    return new Response(await metrics.text(), { headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' } });
  });

  return module;
}
