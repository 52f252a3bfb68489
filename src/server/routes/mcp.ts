/**
 * `/mcp`: the MCP gateway's Streamable HTTP handler (made by `src/mcp`,
 * handed in as `ApiOptions.mcp`), behind the same body limit as the call
 * routes. The MCP transport answers every method itself (GET for its event
 * stream, DELETE to end a session), so this path is not in the route table
 * and never answers 405 from it.
 * @module
 */
import { routeModule, type ApiContext, type RouteModule } from '../context.js';
import { limitBody } from '../json-body.js';

/** The MCP mount point at `/mcp`, or nothing when the API was made without a handler (then `/mcp` is 404). */
export function mcpRoutes(ctx: ApiContext): RouteModule | undefined {
  const handler = ctx.options.mcp;
  if (!handler) return undefined;
  const module = routeModule('/mcp');
  module.app.all('/', limitBody(ctx.maxBodyBytes), (c) => handler(c.req.raw));
  return module;
}
