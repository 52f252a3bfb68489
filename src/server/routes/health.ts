/**
 * What an operator polls: `GET /health` (the registry's status; 503 until
 * the first good build) and `GET /metrics` (Prometheus text from the runtime).
 * `/health` is public, so a load balancer needs no key; with authentication
 * on, only a principal allowed `health.detail` sees more than the status
 * (the last reload error names files and lines).
 * @module
 */
import { can } from '../../runtime/identity/principal.js';
import { principalOf } from '../auth.js';
import { routeModule, withRuntime, JSON_TYPE, type ApiContext, type RouteModule } from '../context.js';
import { ROUTES } from '../route-table.js';

/** The health and metrics routes, mounted at `/`. */
export function healthRoutes(ctx: ApiContext): RouteModule {
  const { registry } = ctx;
  const { on, ...module } = routeModule('/', ctx);

  on(ROUTES.health, (c) => {
    const status = registry.status();
    const state = status.version === 0 ? 'starting' : status.ok ? 'ok' : 'degraded';
    const principal = principalOf(c);
    const detail = ctx.options.auth === undefined || (principal !== undefined && can(principal, 'health.detail'));
    const body = detail ? { status: state, ...status } : { status: state, version: status.version };
    return new Response(JSON.stringify(body), { status: status.version === 0 ? 503 : 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store' } });
  });

  on(ROUTES.metrics, withRuntime(ctx), async (c) => {
    const { metrics } = c.var.runtime;
    metrics.snapshotVersion.set(registry.status().version);
    return new Response(await metrics.text(), { headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' } });
  });

  return module;
}
