/**
 * Errors as RFC 9457 problem details (`application/problem+json`), each with
 * a stable `code` a client can switch on. {@link PROBLEM_CODES} is the API's
 * one table of codes and statuses: the route table, the OpenAPI document and
 * every answer read their statuses here. The codes a call can fail with are
 * the runtime's own (`CALL_ERROR_STATUS`), taken as they are, so a call error
 * has the same status on every transport.
 * @module
 */
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ParameterProblem } from '../query/params.js';
import { CALL_ERROR_STATUS, callErrorWire, type CallError } from '../runtime/errors.js';

/** Every problem code the HTTP API answers with, and its status. */
export const PROBLEM_CODES = {
  BAD_PARAMETER: 400,
  BAD_BODY: 400,
  INVALID_TOOL: 422,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  ...CALL_ERROR_STATUS,
  FORBIDDEN_ORIGIN: 403,
  MISDIRECTED_REQUEST: 421,
  AUTH_UNAVAILABLE: 503,
  NO_RUNTIME: 501,
  NOT_FOUND: 404,
  UNKNOWN_WORKFLOW_TYPE: 404,
  WORKFLOW_NOT_FOUND: 404,
  WORKFLOW_NOT_RUNNING: 409,
  DISPATCH_UNAVAILABLE: 503,
  METHOD_NOT_ALLOWED: 405,
  NOT_READY: 503,
  INTERNAL: 500,
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export interface Problem {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  /** For BAD_PARAMETER: every bad parameter, each named. For INVALID_ARGUMENTS: every schema problem with its pointer. */
  problems?: Array<ParameterProblem | { pointer: string; message: string }>;
  /** Further members per code (pointer, retryAfterMs, providers, callId, allowed, approvalId, action). */
  [member: string]: unknown;
}

export const PROBLEM_TYPE_BASE = 'https://toolcap.dev/problems/';

const TITLES: Record<ProblemCode, string> = {
  BAD_PARAMETER: 'Bad query parameter',
  BAD_BODY: 'Bad request body',
  INVALID_TOOL: 'The tool entry is not valid',
  PAYLOAD_TOO_LARGE: 'Request body too large',
  UNSUPPORTED_MEDIA_TYPE: 'Send application/json',
  INVALID_ARGUMENTS: 'Arguments do not match the input schema',
  INVALID_TOOL_SCHEMA: 'The tool\'s input schema is broken',
  APPROVAL_NOT_FOUND: 'No such approval',
  APPROVAL_CONFLICT: 'The approval cannot be decided now',
  APPROVAL_VOID: 'The approval no longer matches the call',
  NO_HEALTHY_PROVIDER: 'No provider can run the tool now',
  TIMEOUT: 'The call timed out',
  PROVIDER_ERROR: 'The provider failed',
  STORE_UNAVAILABLE: 'The store is unavailable',
  UNAUTHENTICATED: 'Authentication required',
  FORBIDDEN: 'Not allowed',
  FORBIDDEN_PERSONA: 'The persona is not granted',
  UNKNOWN_PERSONA: 'No such persona',
  AGENT_FORBIDDEN: 'The agent may not use this tool',
  UNKNOWN_AGENT: 'No such agent',
  SELF_APPROVAL: 'Somebody else must decide',
  RATE_LIMITED: 'Too many calls',
  TOOL_REJECTED: 'The tool refused the arguments',
  CANCELLED: 'The caller gave up on the call',
  MISSING_CREDENTIALS: 'A required credential is not set',
  RESULT_MISMATCH: 'The result does not match the declared outputSchema',
  OAUTH_NOT_CONNECTED: 'The tool\'s OAuth service is not connected',
  OAUTH_REFRESH_FAILED: 'The tool\'s OAuth token could not be refreshed',
  FORBIDDEN_ORIGIN: 'Origin not allowed',
  MISDIRECTED_REQUEST: 'Host not served here',
  AUTH_UNAVAILABLE: 'Credentials cannot be checked now',
  NO_RUNTIME: 'This server does not run tools',
  TOOL_NOT_FOUND: 'No such tool',
  TOOL_DISABLED: 'The tool is disabled',
  NOT_FOUND: 'Not found',
  UNKNOWN_WORKFLOW_TYPE: 'No route for this workflowType',
  WORKFLOW_NOT_FOUND: 'No such workflow',
  WORKFLOW_NOT_RUNNING: 'The workflow is not running',
  DISPATCH_UNAVAILABLE: 'The workflow dispatcher is unavailable',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  NOT_READY: 'The registry has no catalog yet',
  INTERNAL: 'Internal error',
};

/**
 * A problem body.
 * @example problem('TOOL_NOT_FOUND', 'No tool named "x".') // { status: 404, code: 'TOOL_NOT_FOUND', ... }
 */
export function problem(code: ProblemCode, detail: string, extra: Record<string, unknown> = {}): Problem {
  return { type: `${PROBLEM_TYPE_BASE}${code.toLowerCase().replace(/_/g, '-')}`, title: TITLES[code], status: PROBLEM_CODES[code], code, detail, ...extra };
}

/** A problem as a Response. */
export function problemResponse(body: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status: body.status, headers: { 'content-type': 'application/problem+json', ...headers } });
}

/**
 * The one error a handler throws to answer a problem: Hono's
 * `HTTPException`, carrying the problem body (and headers such as
 * `Retry-After`), so middleware and handlers alike end a request with it.
 * @example throw new ApiProblem(problem('BAD_BODY', 'The body must be a JSON object.'));
 */
export class ApiProblem extends HTTPException {
  override readonly name = 'ApiProblem';
  constructor(
    readonly body: Problem,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(body.status as ContentfulStatusCode, { message: body.detail });
  }

  /** A fresh response each time (Hono may ask more than once). */
  override getResponse(): Response {
    return problemResponse(this.body, { ...this.headers });
  }
}

/** 400 BAD_PARAMETER naming every bad parameter. */
export function badParameters(problems: ParameterProblem[]): ApiProblem {
  return new ApiProblem(problem('BAD_PARAMETER', problems.map((p) => `${p.parameter}: ${p.message}`).join(' '), { problems }));
}

/**
 * A call error as a problem, through the runtime's one wire mapping
 * (`callErrorWire`): its code, details and `Retry-After`; `extra` adds
 * members such as the approval a failed approved run belongs to.
 */
export function callProblem(error: CallError, extra: Record<string, unknown> = {}): ApiProblem {
  const wire = callErrorWire(error);
  return new ApiProblem(problem(wire.code, wire.message, { ...wire.details, ...extra }), wire.retryAfterSec !== undefined ? { 'retry-after': String(wire.retryAfterSec) } : {});
}
