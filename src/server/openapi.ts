/**
 * `GET /openapi.json`: this API described as OpenAPI 3.1, written from the
 * route table (paths, parameters, answers) and the problem table (which
 * status each problem code answers with); `operationId` is the route
 * table's key (`listTools`, `callTool`), `/mcp` is described by
 * mcp-openapi.ts and the named schemas by openapi-schemas.ts. Each operation
 * names what it needs: `security` (either bearer scheme, API key or OIDC token, with, as OpenAPI 3.1 allows for
 * non-OAuth schemes, the roles that may call it; `[]` for a public one) and
 * `x-required-action`, the action identity's permission table checks. (Not
 * `x-toolcap-…`: that prefix declares manifest fields to toolcap's own
 * OpenAPI reader, which would warn about an unknown field.)
 * @module
 */
import { ROLE_ACTIONS, ROLES, type Action } from '../runtime/identity/principal.js';
import { mcpPathItem, MCP_SCHEMAS } from './mcp-openapi.js';
import type { Json } from './openapi-parts.js';
import { componentSchemas } from './openapi-schemas.js';
import { PROBLEM_CODES, type ProblemCode } from './problem.js';
import { ROUTES, type Route } from './route-table.js';

/** The problem answers of an operation, one per status, naming the codes behind it. */
const problems = (codes: readonly ProblemCode[]): Json =>
  Object.fromEntries(
    [...new Set(codes.map((c) => PROBLEM_CODES[c]))].map((status) => [
      String(status),
      { description: codes.filter((c) => PROBLEM_CODES[c] === status).join(', '), content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    ]),
  );

const ifNoneMatch = { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } };
const ETAG_HEADERS = { ETag: { description: 'Send it back in If-None-Match: 304 while nothing changed.', schema: { type: 'string' } } };
const NOT_MODIFIED = { '304': { description: 'Not modified (If-None-Match matched the ETag).' } };

/** What any authenticated operation can answer besides its own problems. */
const AUTH_PROBLEMS: readonly ProblemCode[] = ['UNAUTHENTICATED', 'FORBIDDEN', 'AUTH_UNAVAILABLE'];

/** What any operation can answer: the DNS-rebinding guard checks Host and Origin before routing (host-guard.ts). */
const GUARD_PROBLEMS: readonly ProblemCode[] = ['MISDIRECTED_REQUEST', 'FORBIDDEN_ORIGIN'];

/** The roles whose permissions include the action, least powerful first. */
const rolesFor = (action: Action) => ROLES.filter((role) => ROLE_ACTIONS[role].has(action));

/** Either credential, each with the roles that may use the operation (OpenAPI 3.1 allows roles for non-OAuth schemes). */
const securityFor = (action: Action): Json[] => [{ apiKey: rolesFor(action) }, { oidc: rolesFor(action) }];

/** One table entry as an OpenAPI operation; a snapshot read adds If-None-Match, the ETag header and 304. */
function operation(operationId: string, route: Route): Json {
  const { '200': ok, ...rest } = route.responses;
  const { action } = route;
  const parameters = route.etag ? [...(route.parameters ?? []), ifNoneMatch] : route.parameters;
  return {
    operationId,
    summary: route.summary,
    ...(parameters !== undefined ? { parameters } : {}),
    ...(route.requestBody !== undefined ? { requestBody: route.requestBody } : {}),
    responses: {
      ...(ok !== undefined ? { '200': route.etag ? { ...ok, headers: ETAG_HEADERS } : ok } : {}),
      ...rest,
      ...(route.etag ? NOT_MODIFIED : {}),
      ...problems([...new Set([...route.problems, ...(action === 'public' ? [] : AUTH_PROBLEMS), ...GUARD_PROBLEMS])]),
    },
    security: action === 'public' ? [] : securityFor(action),
    'x-required-action': action,
  };
}

/** Every operation of the table, grouped by path. */
function paths(): Json {
  const byPath: Record<string, Json> = {};
  for (const [id, route] of Object.entries(ROUTES) as Array<[string, Route]>) byPath[route.path] = { ...byPath[route.path], [route.method.toLowerCase()]: operation(id, route) };
  return byPath;
}

/** Options of {@link openApiDocument}. */
export interface OpenApiOptions {
  /** Describe `/mcp` (the API was made with the MCP gateway mounted). @default false */
  mcp?: boolean;
  /** The server URL to name. @default '/' (where the document is served from) */
  serverUrl?: string;
}

/**
 * The OpenAPI 3.1 description of the HTTP API.
 * @example openApiDocument('1.2.0').paths['/tools'].get.operationId // 'listTools'
 */
export function openApiDocument(version: string, options: OpenApiOptions = {}): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'toolcap registry API',
      version,
      description: 'Discover, filter and rank the tools AI agents may call, with what calling each one means. Every list answer carries an ETag; errors are application/problem+json with a code.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: options.serverUrl ?? '/', description: 'The server that serves this document.' }],
    paths: { ...paths(), ...(options.mcp ? { '/mcp': mcpPathItem(securityFor('list')) } : {}) },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'tcap_…',
          description: 'An API key (`toolcap keys create`), sent as `Authorization: Bearer tcap_…`. A 401 carries WWW-Authenticate. Without auth configured the server runs in local mode and asks for none.',
        },
        oidc: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An OIDC access token (a JWT from the configured issuer), sent as `Authorization: Bearer <jwt>`. With OIDC configured a 401 names /.well-known/oauth-protected-resource.',
        },
      },
      schemas: { ...componentSchemas(), ...(options.mcp ? MCP_SCHEMAS : {}) },
    },
  };
}
