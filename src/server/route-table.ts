/**
 * The route table: every operation the API answers, once. A route module
 * registers its handler by its entry (`on` in context.ts), the OpenAPI document is
 * written from the entries, and a known path asked with another method gets
 * `405` with the `Allow` the entries give ({@link allowedMethods}). Adding an
 * endpoint is one entry here and one handler in its module.
 * @module
 */
import { FILTER_PARAMETERS } from '../query/params.js';
import { APPROVAL_STATUSES } from '../store/types.js';
import type { Action } from '../runtime/identity/principal.js';
import { filterParameters, json, param, pathParam, personaParam, ref, type Json } from './openapi-parts.js';
import type { ProblemCode } from './problem.js';
import { TASK_SNAPSHOT_SCHEMA } from './tasks-openapi.js';
import { WEBHOOK_PARAMETERS, WORKFLOW_ROUTES } from './workflows-openapi.js';
import { LEARNED_ROUTES } from './learned-openapi.js';
import { openObject } from './openapi-schemas.js';

/** One operation: what the document says of it and which problems it can answer. */
export interface Route {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** OpenAPI path template: `/approvals/{id}`. */
  readonly path: string;
  readonly summary: string;
  readonly parameters?: readonly Json[];
  readonly requestBody?: Json;
  /** The answers that are not problems, by status. */
  readonly responses: Readonly<Record<string, Json>>;
  /** Every problem code it can answer (besides NOT_FOUND, METHOD_NOT_ALLOWED and INTERNAL, which any path can). */
  readonly problems: readonly ProblemCode[];
  /** A snapshot read: answers carry an ETag and honour If-None-Match with 304. */
  readonly etag?: boolean;
  /**
   * What the principal must be allowed to do (identity's `can()`), or
   * `public`: answered without credentials.
   */
  readonly action: Action | 'public';
}

const name = pathParam('name');
const id = pathParam('id');
const decision = {
  required: false,
  content: {
    'application/json': {
      schema: { type: 'object', properties: { by: { type: 'string', description: 'Who decides; ignored when the request is authenticated (the principal decides).' }, note: { type: 'string' } } },
    },
  },
};
const PERSONA: readonly ProblemCode[] = ['FORBIDDEN_PERSONA', 'UNKNOWN_PERSONA'];
const AGENT: readonly ProblemCode[] = ['AGENT_FORBIDDEN', 'UNKNOWN_AGENT'];
const agentParam = param('agent', "Narrow to this catalog agent's view: its toolIds and skills, within its constraints (maxRiskLevel, requireDeterministicTools).", { type: 'string', minLength: 1 });
const searchFilters = FILTER_PARAMETERS.filter((p) => p !== 'limit' && p !== 'cursor' && p !== 'offset');
const listOf = (key: string, description: string, items: Json = openObject()) => json({ type: 'object', properties: { version: { type: 'integer' }, [key]: { type: 'array', items } } }, description);

/** Every operation, in the order the document lists them. */
export const ROUTES = {
  listTools: {
    method: 'GET', action: 'list', path: '/tools', summary: 'List tools, filtered, ordered by name, paged', etag: true,
    parameters: [...filterParameters(FILTER_PARAMETERS), agentParam],
    responses: { '200': json(ref('ToolsPage'), 'A page of tools.') },
    problems: ['NOT_READY', 'BAD_PARAMETER', ...PERSONA, ...AGENT],
  },
  getTool: {
    method: 'GET', action: 'list', path: '/tools/{name}', summary: 'One tool, as a persona sees it, with its provenance', etag: true,
    parameters: [name, personaParam],
    responses: { '200': json(ref('ToolDetail'), 'The tool.') },
    problems: ['NOT_READY', 'BAD_PARAMETER', 'TOOL_NOT_FOUND', ...PERSONA],
  },
  ...LEARNED_ROUTES,
  search: {
    method: 'GET', action: 'search', path: '/search', summary: 'Rank tools for a task in words: semantic fit minus capability penalties', etag: true,
    parameters: [
      param('q', 'The task, in words.', { type: 'string', minLength: 1, maxLength: 1000 }, { required: true }),
      param('limit', 'Candidates returned.', { type: 'integer', minimum: 1, maximum: 100, default: 10 }),
      param('explain', 'Include every candidate\'s fit, penalties and alternatives (1/true).', { type: 'string', enum: ['0', '1', 'true', 'false'] }),
      param('intent', 'Override the read/write intent read from the query.', { type: 'string', enum: ['read', 'write', 'unknown'] }),
      param('task_risk', 'Multiplies the risk penalty.', { type: 'number', minimum: 0, maximum: 10, default: 1 }),
      ...filterParameters(searchFilters),
      agentParam,
    ],
    responses: { '200': json(ref('SearchResult'), 'Candidates, best first.') },
    problems: ['NOT_READY', 'BAD_PARAMETER', ...PERSONA, ...AGENT],
  },
  skills: { method: 'GET', action: 'list', path: '/skills', summary: 'Skills', etag: true, parameters: [personaParam], responses: { '200': listOf('skills', 'Skills.', ref('Skill')) }, problems: ['NOT_READY', 'BAD_PARAMETER', ...PERSONA] },
  agents: { method: 'GET', action: 'list', path: '/agents', summary: 'Agents', etag: true, parameters: [personaParam], responses: { '200': listOf('agents', 'Agents.', ref('Agent')) }, problems: ['NOT_READY', 'BAD_PARAMETER', ...PERSONA] },
  jobs: {
    method: 'GET', action: 'list', path: '/jobs', summary: 'Jobs with the personas allowed to schedule them, their required skills, tools and capabilities, incompatibilities, and observed health', etag: true,
    parameters: [personaParam],
    responses: { '200': listOf('jobs', 'Job summaries.') },
    problems: ['NOT_READY', 'BAD_PARAMETER', ...PERSONA],
  },
  summary: {
    method: 'GET', action: 'list', path: '/summary', summary: 'Counts, personas, effect histograms, tool health by status, and jobs with compatibility and health; with persona, that persona\'s view', etag: true,
    parameters: [personaParam],
    responses: { '200': json(openObject(), 'The catalog summary.') },
    problems: ['NOT_READY', 'BAD_PARAMETER', ...PERSONA],
  },
  health: {
    method: 'GET', action: 'public', path: '/health', summary: 'Registry status: serving version, last reload error, watching',
    responses: {
      '200': json(ref('Health'), 'A snapshot is serving (status "degraded" when the latest reload failed and the last good one serves).'),
      '503': json(ref('Health'), 'No snapshot yet.'),
    },
    problems: [],
  },
  openapi: { method: 'GET', action: 'public', path: '/openapi.json', summary: 'This document', responses: { '200': json(openObject(), 'OpenAPI 3.1.') }, problems: [] },
  callTool: {
    method: 'POST', action: 'call', path: '/tools/{name}/call', summary: 'Call a tool through the runtime: arguments checked, approval, providers by priority, timeout, retries by retry class, audit',
    parameters: [
      name,
      { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' }, description: 'Makes a guarded tool retryable.' },
      { name: 'X-Toolcap-Caller', in: 'header', required: false, schema: { type: 'string' }, description: 'Who is calling (audit log); ignored when the request is authenticated (the principal is the actor).' },
      { name: 'X-Toolcap-Persona', in: 'header', required: false, schema: { type: 'string' }, description: 'The persona, when the body names none.' },
      { name: 'X-Toolcap-Agent', in: 'header', required: false, schema: { type: 'string' }, description: 'The agent, when the body names none.' },
      { name: 'Prefer', in: 'header', required: false, schema: { type: 'string', examples: ['wait=30'] }, description: 'wait=N (N at most 60): if the call needs approval, wait up to N seconds for the decision and the run.' },
    ],
    requestBody: { required: false, content: { 'application/json': { schema: ref('CallRequest') } } },
    responses: {
      '200': json(ref('CallResult'), 'The tool ran.'),
      '202': json(ref('PendingCall'), 'Waiting for approval: somebody else approves with POST /approvals/{id}/approve; GET /approvals/{id} shows the outcome once run.'),
    },
    problems: [
      'BAD_BODY', 'INVALID_ARGUMENTS', 'TOOL_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'NO_HEALTHY_PROVIDER', 'STORE_UNAVAILABLE', 'TIMEOUT', 'PROVIDER_ERROR',
      'TOOL_REJECTED', 'MISSING_CREDENTIALS', 'RESULT_MISMATCH', 'RATE_LIMITED', 'APPROVAL_CONFLICT', ...PERSONA, ...AGENT, 'NO_RUNTIME', 'OAUTH_NOT_CONNECTED', 'OAUTH_REFRESH_FAILED',
    ],
  },
  taskSnapshot: {
    method: 'GET', action: 'call', path: '/tasks/snapshot', summary: 'Probe every task-source tool through the runtime: per source ok, stale, error or unsupported',
    parameters: [param('persona', 'Probe as this persona (default: the principal\'s).', { type: 'string' })],
    responses: { '200': json(TASK_SNAPSHOT_SCHEMA, 'Every task source the persona may call, with its observations or why none.') },
    problems: ['NOT_READY', 'BAD_PARAMETER', ...PERSONA, 'NO_RUNTIME'],
  },
  webhook: {
    method: 'POST', action: 'public', path: '/hooks/{toolId}', summary: 'A webhook for a tool with workflowRoutes: verified by its HMAC signature or key, routed by workflowType, dispatched start-or-signal (a replay is not dispatched twice)',
    parameters: WEBHOOK_PARAMETERS,
    requestBody: { required: true, content: { 'application/json': { schema: openObject('The event; the workflow id at the configured pointer (default /workflowId).') } } },
    responses: { '200': json({ type: 'object', properties: { workflowId: { type: 'string' }, started: { type: 'boolean' }, duplicate: { type: 'boolean' }, seq: { type: 'integer' }, workflowType: { type: 'string' }, dispatcher: { type: 'string' } } }, 'Dispatched, or a replay (duplicate: true).') },
    problems: ['NOT_READY', 'BAD_PARAMETER', 'UNAUTHENTICATED', 'UNKNOWN_WORKFLOW_TYPE', 'WORKFLOW_NOT_RUNNING', 'BAD_BODY', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'DISPATCH_UNAVAILABLE', 'STORE_UNAVAILABLE', 'NO_RUNTIME'],
  },
  ...WORKFLOW_ROUTES,
  listApprovals: {
    method: 'GET', action: 'approvals.read.own', path: '/approvals', summary: 'Approval requests, newest first: the caller\'s own, or all with approvals.read.all',
    parameters: [
      param('status', 'Only this status.', { type: 'string', enum: [...APPROVAL_STATUSES] }),
      param('tool', 'Only this tool.', { type: 'string' }),
      param('limit', 'At most this many.', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
    ],
    responses: { '200': json({ type: 'object', properties: { approvals: { type: 'array', items: ref('Approval') } } }, 'Approvals.') },
    problems: ['BAD_PARAMETER', 'STORE_UNAVAILABLE', 'NO_RUNTIME'],
  },
  getApproval: {
    method: 'GET', action: 'approvals.read.own', path: '/approvals/{id}', summary: 'One approval request, with the outcome once run',
    parameters: [id],
    responses: { '200': json(ref('Approval'), 'The approval.') },
    problems: ['APPROVAL_NOT_FOUND', 'STORE_UNAVAILABLE', 'NO_RUNTIME'],
  },
  approve: {
    method: 'POST', action: 'approvals.decide', path: '/approvals/{id}/approve', summary: 'Approve, and run exactly the reviewed call (void if the manifest changed since)',
    parameters: [id],
    requestBody: decision,
    responses: { '200': json({ type: 'object', properties: { approval: ref('Approval'), call: ref('CallResult') } }, 'Approved and run.') },
    problems: ['APPROVAL_NOT_FOUND', 'APPROVAL_CONFLICT', 'APPROVAL_VOID', 'SELF_APPROVAL', 'PROVIDER_ERROR', 'TOOL_REJECTED', 'MISSING_CREDENTIALS', 'RESULT_MISMATCH', 'STORE_UNAVAILABLE', 'NO_RUNTIME', 'OAUTH_NOT_CONNECTED', 'OAUTH_REFRESH_FAILED'],
  },
  deny: {
    method: 'POST', action: 'approvals.decide', path: '/approvals/{id}/deny', summary: 'Deny',
    parameters: [id],
    requestBody: decision,
    responses: { '200': json({ type: 'object', properties: { approval: ref('Approval') } }, 'Denied.') },
    problems: ['APPROVAL_NOT_FOUND', 'APPROVAL_CONFLICT', 'SELF_APPROVAL', 'STORE_UNAVAILABLE', 'NO_RUNTIME'],
  },
  audit: {
    method: 'GET', action: 'audit.read', path: '/audit', summary: 'The append-only audit log, oldest first: call outcomes, approval requests and decisions',
    parameters: [
      param('tool', 'Only this tool.', { type: 'string' }),
      param('call_id', 'Only this call.', { type: 'string' }),
      param('after', 'Only records after this seq (paging).', { type: 'integer', minimum: 0 }),
      param('limit', 'At most this many.', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
    ],
    responses: { '200': json({ type: 'object', properties: { audit: { type: 'array' }, next: { type: 'string' } } }, 'Audit records.') },
    problems: ['BAD_PARAMETER', 'STORE_UNAVAILABLE', 'NO_RUNTIME'],
  },
  metrics: {
    method: 'GET', action: 'metrics.read', path: '/metrics', summary: 'Prometheus metrics: calls, attempts, durations, approvals, backoff',
    responses: { '200': { description: 'Prometheus text exposition.', content: { 'text/plain': { schema: { type: 'string' } } } } },
    problems: [],
  },
} as const satisfies Record<string, Route>;

/** Every route, in table order. */
export const ROUTE_LIST: readonly Route[] = Object.values(ROUTES);

/** The path as Hono writes it: `/approvals/{id}` is `/approvals/:id`. */
export const honoPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

const MATCHERS = ROUTE_LIST.map((route) => ({
  route,
  // a trailing slash is the same path (the app is not strict)
  pattern: new RegExp(`^${route.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
}));

/**
 * The `Allow` value for a path the table knows (GET brings HEAD), or
 * undefined for a path it does not.
 * @example allowedMethods('/tools/x/call') // 'POST'
 */
export function allowedMethods(path: string): string | undefined {
  const methods = new Set(MATCHERS.filter((m) => m.pattern.test(path)).flatMap(({ route }) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method])));
  return methods.size > 0 ? [...methods].join(', ') : undefined;
}
