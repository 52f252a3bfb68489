/**
 * Errors as RFC 9457 problem details (`application/problem+json`), each with
 * a stable `code` a client can switch on.
 * @module
 */
import type { ParameterProblem } from '../query/params.js';

/** Every problem code the HTTP API answers with, and its status. */
export const PROBLEM_CODES = {
  BAD_PARAMETER: 400,
  BAD_BODY: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVALID_ARGUMENTS: 400,
  INVALID_TOOL_SCHEMA: 500,
  TOOL_DISABLED: 404,
  APPROVAL_NOT_FOUND: 404,
  APPROVAL_CONFLICT: 409,
  APPROVAL_VOID: 409,
  NO_HEALTHY_PROVIDER: 503,
  TIMEOUT: 504,
  PROVIDER_ERROR: 502,
  STORE_UNAVAILABLE: 503,
  NO_RUNTIME: 501,
  TOOL_NOT_FOUND: 404,
  NOT_FOUND: 404,
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
  /** Further members per code (pointer, retryAfterMs, providers, callId). */
  [member: string]: unknown;
}

export const PROBLEM_TYPE_BASE = 'https://toolcap.dev/problems/';

const TITLES: Record<ProblemCode, string> = {
  BAD_PARAMETER: 'Bad query parameter',
  BAD_BODY: 'Bad request body',
  PAYLOAD_TOO_LARGE: 'Request body too large',
  UNSUPPORTED_MEDIA_TYPE: 'Send application/json',
  INVALID_ARGUMENTS: 'Arguments do not match the input schema',
  INVALID_TOOL_SCHEMA: 'The tool\'s input schema is broken',
  TOOL_DISABLED: 'The tool is disabled',
  APPROVAL_NOT_FOUND: 'No such approval',
  APPROVAL_CONFLICT: 'The approval cannot be decided now',
  APPROVAL_VOID: 'The approval no longer matches the call',
  NO_HEALTHY_PROVIDER: 'No provider can run the tool now',
  TIMEOUT: 'The call timed out',
  PROVIDER_ERROR: 'The provider failed',
  STORE_UNAVAILABLE: 'The store is unavailable',
  NO_RUNTIME: 'This server does not run tools',
  TOOL_NOT_FOUND: 'No such tool',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  NOT_READY: 'The registry has no catalog yet',
  INTERNAL: 'Internal error',
};

/** A problem body. */
export function problem(code: ProblemCode, detail: string, extra: Record<string, unknown> = {}): Problem {
  return { type: `${PROBLEM_TYPE_BASE}${code.toLowerCase().replace(/_/g, '-')}`, title: TITLES[code], status: PROBLEM_CODES[code], code, detail, ...extra };
}

/** A problem as a Response. */
export function problemResponse(body: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status: body.status, headers: { 'content-type': 'application/problem+json', ...headers } });
}
