/**
 * Errors as RFC 9457 problem details (`application/problem+json`), each with
 * a stable `code` a client can switch on.
 * @module
 */
import type { ParameterProblem } from '../query/params.js';

/** Every problem code the HTTP API answers with, and its status. */
export const PROBLEM_CODES = {
  BAD_PARAMETER: 400,
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
  /** For BAD_PARAMETER: every bad parameter, each named. */
  problems?: ParameterProblem[];
}

export const PROBLEM_TYPE_BASE = 'https://toolcap.dev/problems/';

const TITLES: Record<ProblemCode, string> = {
  BAD_PARAMETER: 'Bad query parameter',
  TOOL_NOT_FOUND: 'No such tool',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  NOT_READY: 'The registry has no catalog yet',
  INTERNAL: 'Internal error',
};

/** A problem body. */
export function problem(code: ProblemCode, detail: string, extra: { problems?: ParameterProblem[] } = {}): Problem {
  return { type: `${PROBLEM_TYPE_BASE}${code.toLowerCase().replace(/_/g, '-')}`, title: TITLES[code], status: PROBLEM_CODES[code], code, detail, ...extra };
}

/** A problem as a Response. */
export function problemResponse(body: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status: body.status, headers: { 'content-type': 'application/problem+json', ...headers } });
}
