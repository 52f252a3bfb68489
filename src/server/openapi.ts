/**
 * `GET /openapi.json`: this API described as OpenAPI 3.1, written from the
 * route table (paths, parameters, answers) and the problem table (which
 * status each problem code answers with). Each operation names what it
 * needs: `security` (the bearer scheme with, as OpenAPI 3.1 allows for
 * non-OAuth schemes, the roles that may call it; `[]` for a public one) and
 * `x-required-action`, the action identity's permission table checks. (Not
 * `x-toolcap-…`: that prefix declares manifest fields to toolcap's own
 * OpenAPI reader, which would warn about an unknown field.)
 * @module
 */
import { ROLE_ACTIONS, ROLES, type Action } from '../runtime/identity/principal.js';
import { ref, type Json } from './openapi-parts.js';
import { PROBLEM_CODES, type ProblemCode } from './problem.js';
import { ROUTE_LIST, type Route } from './route-table.js';

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
/** Which provider answered the latest successful call of a tool, and when. */
const LAST_SUCCESS = { type: 'object', properties: { provider: { type: 'string' }, at: { type: 'string', format: 'date-time' } } };
const AUTH_PROBLEMS: readonly ProblemCode[] = ['UNAUTHENTICATED', 'FORBIDDEN', 'AUTH_UNAVAILABLE'];

/** The roles whose permissions include the action, least powerful first. */
const rolesFor = (action: Action) => ROLES.filter((role) => ROLE_ACTIONS[role].has(action));

/** One table entry as an OpenAPI operation; a snapshot read adds If-None-Match, the ETag header and 304. */
function operation(route: Route): Json {
  const { '200': ok, ...rest } = route.responses;
  const { action } = route;
  const parameters = route.etag ? [...(route.parameters ?? []), ifNoneMatch] : route.parameters;
  return {
    summary: route.summary,
    ...(parameters !== undefined ? { parameters } : {}),
    ...(route.requestBody !== undefined ? { requestBody: route.requestBody } : {}),
    responses: {
      ...(ok !== undefined ? { '200': route.etag ? { ...ok, headers: ETAG_HEADERS } : ok } : {}),
      ...rest,
      ...(route.etag ? NOT_MODIFIED : {}),
      ...problems(action === 'public' ? route.problems : [...new Set([...route.problems, ...AUTH_PROBLEMS])]),
    },
    security: action === 'public' ? [] : [{ bearer: rolesFor(action) }],
    'x-required-action': action,
  };
}

/** Every operation of the table, grouped by path. */
function paths(): Json {
  const byPath: Record<string, Json> = {};
  for (const route of ROUTE_LIST) byPath[route.path] = { ...byPath[route.path], [route.method.toLowerCase()]: operation(route) };
  return byPath;
}

/**
 * The OpenAPI 3.1 description of the HTTP API.
 * @example openApiDocument('1.2.0').paths['/tools'].get.summary
 */
export function openApiDocument(version: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'toolcap registry API',
      version,
      description: 'Discover, filter and rank the tools AI agents may call, with what calling each one means. Every list answer carries an ETag; errors are application/problem+json with a code.',
    },
    paths: paths(),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (`toolcap keys create`) or an OIDC access token (a JWT from the configured issuer). A 401 carries WWW-Authenticate, naming /.well-known/oauth-protected-resource when OIDC is configured. Without auth configured the server runs in local mode and asks for none.',
        },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'code', 'detail'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            code: { type: 'string', enum: Object.keys(PROBLEM_CODES) },
            detail: { type: 'string' },
            problems: { type: 'array', items: { type: 'object', properties: { parameter: { type: 'string' }, message: { type: 'string' } } } },
            allowed: { type: 'array', items: { type: 'string' }, description: 'FORBIDDEN_PERSONA, UNKNOWN_PERSONA: the personas the principal may use.' },
            missing: { type: 'array', items: { type: 'string' }, description: 'MISSING_CREDENTIALS: the environment variables that are not set (names, never values).' },
          },
        },
        ToolView: {
          type: 'object',
          required: ['key', 'name', 'personas', 'capabilities', 'authScopes', 'health', 'tool'],
          properties: {
            key: { type: 'string' },
            name: { type: 'string' },
            personas: { type: 'array', items: { type: 'string' } },
            capabilities: { type: 'array', items: { type: 'string' } },
            authScopes: { type: 'array', items: { type: 'string' } },
            health: {
              type: 'object',
              properties: {
                status: { type: 'string', enum: ['unknown', 'ok', 'degraded', 'down', 'unavailable'], description: 'unavailable: every provider misses a required credential (missingCredentials).' },
                successRate: { type: 'number' },
                calls: { type: 'integer' },
                lastSuccessfulProvider: LAST_SUCCESS,
                reason: { type: 'string' },
                missingCredentials: { type: 'array', items: { type: 'string' }, description: 'Names of the variables that are not set (never values).' },
              },
            },
            tool: { type: 'object', description: 'The merged, completed canonical tool: see `toolcap schema` (https://toolcap.dev/schema/toolcap.schema.json, tools[]).' },
          },
        },
        ToolDetail: {
          allOf: [
            ref('ToolView'),
            {
              type: 'object',
              properties: {
                provenance: { type: 'array' },
                providerHealth: { type: 'array', description: 'With a runtime: per provider, calls, success rate, last outcome and circuit.' },
                lastSuccessfulProvider: { oneOf: [LAST_SUCCESS, { type: 'null' }], description: 'With a runtime: the provider of the latest successful call.' },
              },
            },
          ],
        },
        ToolsPage: {
          type: 'object',
          required: ['version', 'etag', 'total', 'tools'],
          properties: { version: { type: 'integer' }, etag: { type: 'string' }, total: { type: 'integer' }, nextCursor: { type: 'string' }, tools: { type: 'array', items: ref('ToolView') } },
        },
        SearchResult: {
          type: 'object',
          required: ['query', 'intent', 'confidence', 'candidates'],
          properties: {
            query: { type: 'string' },
            intent: { type: 'string', enum: ['read', 'write', 'unknown'] },
            confidence: { type: 'number', minimum: 0, maximum: 1, description: 'How sure the intent is (1 when the request gave it).' },
            intentEvidence: { type: 'array', items: { type: 'string' }, description: 'With explain: what the intent was read from.' },
            understanding: { type: 'object', description: 'With explain: list or item, destruction asked for or ruled out, values kept out of the terms.' },
            candidates: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, key: { type: 'string' }, score: { type: 'number' }, fit: { type: 'number' } } } },
          },
        },
        Health: {
          type: 'object',
          required: ['status', 'version'],
          properties: { status: { type: 'string', enum: ['ok', 'degraded', 'starting'] }, version: { type: 'integer' }, etag: { type: ['string', 'null'] }, lastError: {} },
        },
      },
    },
  };
}
