/**
 * `GET /.well-known/oauth-protected-resource`: RFC 9728 protected resource
 * metadata, which the MCP authorization specification has clients read
 * (from the 401's `WWW-Authenticate`) to find the authorization server.
 * Served only when the API is given `auth.resourceMetadata` (OIDC
 * configured); otherwise the path is unknown (404). It is metadata about the
 * API rather than an operation of it, so it is not in the route table.
 * @module
 */
import { RESOURCE_METADATA_PATH } from '../auth.js';
import { routeModule, JSON_TYPE, type ApiContext, type RouteModule } from '../context.js';

/** The metadata route, or nothing when no resource metadata is configured. */
export function wellKnownRoutes(ctx: ApiContext): RouteModule | undefined {
  const metadata = ctx.options.auth?.resourceMetadata;
  if (!metadata) return undefined;
  const module = routeModule(RESOURCE_METADATA_PATH, ctx);
  const text = JSON.stringify({ resource: metadata.resource, authorization_servers: metadata.authorizationServers, bearer_methods_supported: ['header'] });
  module.app.get('/', () => new Response(text, { headers: { 'content-type': JSON_TYPE, 'cache-control': 'max-age=300' } }));
  return { base: module.base, app: module.app };
}
