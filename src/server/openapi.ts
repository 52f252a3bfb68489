/**
 * `GET /openapi.json`: this API described as OpenAPI 3.1. The filter
 * parameters and their enumerations come from the same tables the parser
 * uses, so the description cannot drift from what the server accepts.
 * @module
 */
import { FILTER_PARAMETERS, MAX_LIMIT } from '../query/params.js';
import { MODES, RISK_LEVELS, SIDE_EFFECTS, SURFACE_DOMAINS, SURFACE_OPERATIONS } from '../model/vocabulary.js';
import { PROBLEM_CODES } from './problem.js';

type Json = Record<string, unknown>;

const FILTER_DOCS: Record<(typeof FILTER_PARAMETERS)[number], { description: string; schema: Json; repeat?: boolean }> = {
  persona: {
    description: 'Include this persona\'s tools (repeatable). Shared tools are always included, unless one value is "-shared"; a persona\'s own version of a tool shadows the shared one.',
    schema: { type: 'string' },
    repeat: true,
  },
  provider: { description: 'A provider the tool lists (providers[].name).', schema: { type: 'string', minLength: 1 } },
  version: { description: 'A semver range (">=1.2", "^2"). Tools without a valid semver version never match.', schema: { type: 'string' } },
  min_success_rate: {
    description: 'Minimum observed success rate, 0..1. Tools without observed health pass, with health.status "unknown".',
    schema: { type: 'number', minimum: 0, maximum: 1 },
  },
  side_effects: { description: 'At most this side-effect severity.', schema: { type: 'string', enum: [...SIDE_EFFECTS] } },
  mode: { description: 'Exactly this mode.', schema: { type: 'string', enum: [...MODES] } },
  max_risk: { description: 'At most this risk level.', schema: { type: 'string', enum: [...RISK_LEVELS] } },
  tag: { description: 'A tag the tool has.', schema: { type: 'string', minLength: 1 } },
  domain: { description: 'A surface domain the tool has.', schema: { type: 'string', enum: [...SURFACE_DOMAINS] } },
  operation: { description: 'A surface operation the tool has.', schema: { type: 'string', enum: [...SURFACE_OPERATIONS] } },
  capability: { description: 'A capability, exact ("tasks.probe") or a prefix ("tasks.*").', schema: { type: 'string' } },
  approval: { description: 'Whether each call needs human approval.', schema: { type: 'boolean' } },
  enabled: { description: 'Only enabled (true) or disabled (false) tools. Default: both.', schema: { type: 'boolean' } },
  limit: { description: 'Page size.', schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT } },
  cursor: { description: 'nextCursor of the previous page.', schema: { type: 'string' } },
  offset: { description: 'Skip this many matches (not with cursor).', schema: { type: 'integer', minimum: 0 } },
};

const param = (name: string, description: string, schema: Json, extra: Json = {}): Json => ({ name, in: 'query', description, schema, ...extra });

const filterParameters = (names: readonly (typeof FILTER_PARAMETERS)[number][]): Json[] =>
  names.map((name) => {
    const doc = FILTER_DOCS[name];
    return doc.repeat ? param(name, doc.description, { type: 'array', items: doc.schema }, { style: 'form', explode: true }) : param(name, doc.description, doc.schema);
  });

const personaParam = param('persona', 'Only what this persona sees.', { type: 'string' });
const json = (schema: Json, description: string): Json => ({ description, content: { 'application/json': { schema } } });
const problems = (...codes: (keyof typeof PROBLEM_CODES)[]): Json =>
  Object.fromEntries(
    [...new Set(codes.map((c) => PROBLEM_CODES[c]))].map((status) => [
      String(status),
      { description: codes.filter((c) => PROBLEM_CODES[c] === status).join(', '), content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    ]),
  );
const etagged = (response: Json): Json => ({
  ...response,
  headers: { ETag: { description: 'Send it back in If-None-Match: 304 while nothing changed.', schema: { type: 'string' } } },
});
const notModified = { '304': { description: 'Not modified (If-None-Match matched the ETag).' } };
const ifNoneMatch = { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } };

const get = (summary: string, parameters: Json[], ok: Json, ...codes: (keyof typeof PROBLEM_CODES)[]): Json => ({
  get: {
    summary,
    parameters: [...parameters, ifNoneMatch],
    responses: { '200': etagged(ok), ...notModified, ...problems('NOT_READY', ...codes) },
  },
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The OpenAPI 3.1 description of the HTTP API. */
export function openApiDocument(version: string): Json {
  const searchOnly = FILTER_PARAMETERS.filter((p) => p !== 'limit' && p !== 'cursor' && p !== 'offset');
  return {
    openapi: '3.1.0',
    info: {
      title: 'toolcap registry API',
      version,
      description: 'Discover, filter and rank the tools AI agents may call, with what calling each one means. Every list answer carries an ETag; errors are application/problem+json with a code.',
    },
    paths: {
      '/tools': get('List tools, filtered, ordered by name, paged', filterParameters(FILTER_PARAMETERS), json(ref('ToolsPage'), 'A page of tools.'), 'BAD_PARAMETER'),
      '/tools/{name}': {
        get: {
          summary: 'One tool, as a persona sees it, with its provenance',
          parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }, personaParam, ifNoneMatch],
          responses: { '200': etagged(json(ref('ToolDetail'), 'The tool.')), ...notModified, ...problems('NOT_READY', 'BAD_PARAMETER', 'TOOL_NOT_FOUND') },
        },
      },
      '/search': get(
        'Rank tools for a task in words: semantic fit minus capability penalties',
        [
          param('q', 'The task, in words.', { type: 'string', minLength: 1, maxLength: 1000 }, { required: true }),
          param('limit', 'Candidates returned.', { type: 'integer', minimum: 1, maximum: 100, default: 10 }),
          param('explain', 'Include every candidate\'s fit, penalties and alternatives (1/true).', { type: 'string', enum: ['0', '1', 'true', 'false'] }),
          param('intent', 'Override the read/write intent read from the query.', { type: 'string', enum: ['read', 'write', 'unknown'] }),
          param('task_risk', 'Multiplies the risk penalty.', { type: 'number', minimum: 0, maximum: 10, default: 1 }),
          ...filterParameters(searchOnly),
        ],
        json(ref('SearchResult'), 'Candidates, best first.'),
        'BAD_PARAMETER',
      ),
      '/skills': get('Skills', [personaParam], json({ type: 'object', properties: { version: { type: 'integer' }, skills: { type: 'array' } } }, 'Skills.'), 'BAD_PARAMETER'),
      '/agents': get('Agents', [personaParam], json({ type: 'object', properties: { version: { type: 'integer' }, agents: { type: 'array' } } }, 'Agents.'), 'BAD_PARAMETER'),
      '/jobs': get(
        'Jobs with the personas allowed to schedule them, their required skills, tools and capabilities, and incompatibilities',
        [personaParam],
        json({ type: 'object', properties: { version: { type: 'integer' }, jobs: { type: 'array' } } }, 'Job summaries.'),
        'BAD_PARAMETER',
      ),
      '/summary': get('Counts, personas, effect histograms and job compatibility', [], json({ type: 'object' }, 'The catalog summary.')),
      '/health': {
        get: {
          summary: 'Registry status: serving version, last reload error, watching',
          responses: {
            '200': json(ref('Health'), 'A snapshot is serving (status "degraded" when the latest reload failed and the last good one serves).'),
            '503': json(ref('Health'), 'No snapshot yet.'),
          },
        },
      },
      '/openapi.json': { get: { summary: 'This document', responses: { '200': json({ type: 'object' }, 'OpenAPI 3.1.') } } },
      '/tools/{name}/call': {
        post: {
          summary: 'Call a tool through the runtime: arguments checked, approval, providers by priority, timeout, retries by retry class, audit',
          parameters: [
            { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' }, description: 'Makes a guarded tool retryable.' },
            { name: 'X-Toolcap-Caller', in: 'header', required: false, schema: { type: 'string' }, description: 'Who is calling (audit log).' },
          ],
          requestBody: {
            required: false,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  properties: {
                    arguments: { type: 'object', description: 'Checked against the tool\'s inputSchema.' },
                    persona: { type: 'string' },
                    caller: { type: 'string' },
                    job: { type: 'string' },
                    idempotencyKey: { type: 'string' },
                  },
                },
              },
            },
          },
          responses: {
            '200': json({ type: 'object', properties: { status: { const: 'ok' }, callId: { type: 'string' }, provider: { type: 'string' }, attempts: { type: 'integer' }, result: {} } }, 'The tool ran.'),
            '202': json({ type: 'object', properties: { status: { const: 'pending_approval' }, approval: { type: 'object' } } }, 'Waiting for approval: approve with POST /approvals/{id}/approve.'),
            ...problems('BAD_BODY', 'INVALID_ARGUMENTS', 'TOOL_NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'NO_HEALTHY_PROVIDER', 'STORE_UNAVAILABLE', 'TIMEOUT', 'PROVIDER_ERROR', 'NO_RUNTIME'),
          },
        },
      },
      '/approvals': {
        get: {
          summary: 'Approval requests, newest first',
          parameters: [
            param('status', 'Only this status.', { type: 'string', enum: ['pending', 'approved', 'denied', 'expired', 'void', 'executed', 'failed'] }),
            param('tool', 'Only this tool.', { type: 'string' }),
            param('limit', 'At most this many.', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
          ],
          responses: { '200': json({ type: 'object', properties: { approvals: { type: 'array' } } }, 'Approvals.'), ...problems('BAD_PARAMETER', 'STORE_UNAVAILABLE', 'NO_RUNTIME') },
        },
      },
      '/approvals/{id}': {
        get: {
          summary: 'One approval request',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': json({ type: 'object' }, 'The approval.'), ...problems('APPROVAL_NOT_FOUND', 'STORE_UNAVAILABLE', 'NO_RUNTIME') },
        },
      },
      '/approvals/{id}/approve': {
        post: {
          summary: 'Approve, and run exactly the reviewed call (void if the manifest changed since)',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', properties: { by: { type: 'string' }, note: { type: 'string' } } } } } },
          responses: {
            '200': json({ type: 'object', properties: { approval: { type: 'object' }, call: { type: 'object' } } }, 'Approved and run.'),
            ...problems('APPROVAL_NOT_FOUND', 'APPROVAL_CONFLICT', 'APPROVAL_VOID', 'PROVIDER_ERROR', 'STORE_UNAVAILABLE', 'NO_RUNTIME'),
          },
        },
      },
      '/approvals/{id}/deny': {
        post: {
          summary: 'Deny',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', properties: { by: { type: 'string' }, note: { type: 'string' } } } } } },
          responses: { '200': json({ type: 'object' }, 'Denied.'), ...problems('APPROVAL_NOT_FOUND', 'APPROVAL_CONFLICT', 'STORE_UNAVAILABLE', 'NO_RUNTIME') },
        },
      },
      '/audit': {
        get: {
          summary: 'The append-only audit log, oldest first: call outcomes, approval requests and decisions',
          parameters: [
            param('tool', 'Only this tool.', { type: 'string' }),
            param('call_id', 'Only this call.', { type: 'string' }),
            param('after', 'Only records after this seq (paging).', { type: 'integer', minimum: 0 }),
            param('limit', 'At most this many.', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
          ],
          responses: { '200': json({ type: 'object', properties: { audit: { type: 'array' }, next: { type: 'string' } } }, 'Audit records.'), ...problems('BAD_PARAMETER', 'STORE_UNAVAILABLE', 'NO_RUNTIME') },
        },
      },
      '/metrics': { get: { summary: 'Prometheus metrics: calls, attempts, durations, approvals, backoff', responses: { '200': { description: 'Prometheus text exposition.', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
    },
    components: {
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
              properties: { status: { type: 'string', enum: ['unknown', 'ok', 'degraded', 'down'] }, successRate: { type: 'number' }, calls: { type: 'integer' } },
            },
            tool: { type: 'object', description: 'The merged, completed canonical tool: see `toolcap schema` (https://toolcap.dev/schema/toolcap.schema.json, tools[]).' },
          },
        },
        ToolDetail: { allOf: [ref('ToolView'), { type: 'object', properties: { provenance: { type: 'array' } } }] },
        ToolsPage: {
          type: 'object',
          required: ['version', 'etag', 'total', 'tools'],
          properties: { version: { type: 'integer' }, etag: { type: 'string' }, total: { type: 'integer' }, nextCursor: { type: 'string' }, tools: { type: 'array', items: ref('ToolView') } },
        },
        SearchResult: {
          type: 'object',
          required: ['query', 'intent', 'candidates'],
          properties: {
            query: { type: 'string' },
            intent: { type: 'string', enum: ['read', 'write', 'unknown'] },
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
