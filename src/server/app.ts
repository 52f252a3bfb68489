/**
 * The HTTP API: a Hono app over a {@link Registry}, made of one route module
 * per resource (`routes/`), each mounted with `app.route`. It speaks Web
 * `Request`/`Response`, so tests call `app.fetch(request)` in-process and
 * `listen()` puts the same app on a socket.
 *
 * This file only composes: the Host/Origin guard first, for every path
 * (`host-guard.ts`); then the modules, which own their handlers, each behind
 * its route table entry's permission check (`auth.ts`); the route table
 * (`route-table.ts`) owns what each operation is, and the one error path
 * here turns what they throw into problem answers.
 * @module
 */
import { Hono } from 'hono';
import { clientGone, clientGoneLine } from '../mcp/client-abort.js';
import { RegistryNotReadyError, type Registry } from '../registry/registry.js';
import { CallError } from '../runtime/errors.js';
import { BodyCache } from './body-cache.js';
import { hostGuard } from './host-guard.js';
import { httpMetrics } from './http-metrics.js';
import { registerMcpLane } from './mcp-lane.js';
import { apiContext, type ApiOptions, type RouteModule } from './context.js';
import { ApiProblem, callProblem, problem, problemResponse } from './problem.js';
import { allowedMethods } from './route-table.js';
import { approvalRoutes } from './routes/approvals.js';
import { auditRoutes } from './routes/audit.js';
import { callRoutes } from './routes/calls.js';
import { catalogRoutes } from './routes/catalog.js';
import { healthRoutes } from './routes/health.js';
import { mcpRoutes } from './routes/mcp.js';
import { openApiRoutes } from './routes/openapi.js';
import { taskRoutes } from './routes/tasks.js';
import { hookRoutes } from './routes/hooks.js';
import { workflowRoutes } from './routes/workflows.js';
import { learnedRoutes } from './routes/learned.js';
import { wellKnownRoutes } from './routes/well-known.js';
import { consoleRoutes } from './console/console.js';

export type { ApiOptions } from './context.js';
export type { ApiAuth } from './auth.js';
export { etagMatches } from './body-cache.js';
export { MAX_QUERY_LENGTH, MAX_SEARCH_LIMIT } from './catalog-params.js';

const warn = (error: unknown) => process.emitWarning(`toolcap http: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);

/**
 * The API as a Hono app.
 * @example
 * const app = createApi(registry);
 * const res = await app.fetch(new Request('http://x/tools?persona=atlas&max_risk=medium'));
 */
export function createApi(registry: Registry, options: ApiOptions = {}): Hono {
  const ctx = apiContext(registry, options);
  const onError = options.onError ?? warn;
  const app = new Hono({ strict: false });
  // first: every request is counted, those the guards refuse too
  if (ctx.runtime) app.use('*', httpMetrics(ctx.runtime.metrics));
  // before any route, /mcp and unknown paths included: a rebound name never reaches a handler
  if (options.allowedHosts || options.allowedOrigins) app.use('*', hostGuard(options.allowedHosts, options.allowedOrigins));

  const modules: Array<RouteModule | undefined> = [
    // before the catalog's: /tools/learned is the list of learned tools
    learnedRoutes(ctx),
    catalogRoutes(ctx, new BodyCache(registry, ctx.health, options.cacheEntries ?? 256)),
    healthRoutes(ctx),
    openApiRoutes(ctx),
    mcpRoutes(ctx),
    callRoutes(ctx),
    taskRoutes(ctx),
    hookRoutes(ctx),
    workflowRoutes(ctx),
    approvalRoutes(ctx),
    auditRoutes(ctx),
    wellKnownRoutes(ctx),
  ];
  for (const module of modules) if (module) app.route(module.base, module.app);
  if (options.console) app.route('/', consoleRoutes(ctx, options.console));

  // a path the route table knows, asked with another method, is 405 with the methods it has
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const allow = allowedMethods(path);
    if (allow) return problemResponse(problem('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${path}; use ${allow}.`), { allow });
    return problemResponse(problem('NOT_FOUND', `No route ${path}. See /openapi.json.`));
  });

  app.onError((error, c) => {
    if (error instanceof ApiProblem) return error.getResponse();
    if (error instanceof CallError) return callProblem(error).getResponse();
    if (error instanceof RegistryNotReadyError) return problemResponse(problem('NOT_READY', `${error.message} See /health.`), { 'retry-after': '1' });
    if (clientGone(error, c.req.raw)) {
      // the client hung up (mid-body, mid-call): nobody reads the answer, and it is no toolcap bug
      options.warn?.(clientGoneLine(`${c.req.method} ${new URL(c.req.url).pathname}`, error).replace(/^mcp: /, 'http: '));
      return new Response(null, { status: 499 });
    }
    try {
      onError(error, c.req.raw);
    } catch {
      // a broken logger must not turn a 500 into a dropped connection
    }
    return problemResponse(problem('INTERNAL', 'The server failed to answer; this is a toolcap bug. The error was logged.'));
  });

  // POSTs to open MCP sessions, off the socket before the adapter (`listen()` finds the lane)
  registerMcpLane(app, ctx);
  return app;
}
