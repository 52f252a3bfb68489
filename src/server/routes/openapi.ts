/**
 * `GET /openapi.json`: the document, written once per app from the route
 * table (it needs no snapshot, so it answers before the first build).
 * @module
 */
import { routeModule, JSON_TYPE, type ApiContext, type RouteModule } from '../context.js';
import { openApiDocument } from '../openapi.js';
import { ROUTES } from '../route-table.js';

/** The document route, mounted at `/`. */
export function openApiRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/', ctx);
  const text = JSON.stringify(openApiDocument(ctx.options.version ?? '0.0.0', { mcp: ctx.options.mcp !== undefined }));
  on(ROUTES.openapi, () => new Response(text, { headers: { 'content-type': JSON_TYPE } }));
  return module;
}
