/**
 * What an approved call gave, in the form kept with its approval so the
 * agent that asked can read it later: the result (or a note of its size when
 * it is too large to keep), or the error's code and message.
 * @module
 */
import { OUTCOME_RESULT_LIMIT, type ApprovalOutcome } from '../store/types.js';
import type { CallError } from './errors.js';

/** The parts of a finished call an outcome keeps. */
export interface FinishedCall {
  provider: string;
  attempts: number;
  durationMs: number;
  result: unknown;
}

/**
 * The outcome of a call that ran; a result whose JSON is over
 * `limit` bytes (1 MiB by default) is kept as `{ truncated: true, bytes }`.
 * @example okOutcome({ provider: 'p1', attempts: 1, durationMs: 4, result: 'x' }) // { status: 'ok', result: 'x', ... }
 */
export function okOutcome(call: FinishedCall, limit: number = OUTCOME_RESULT_LIMIT): ApprovalOutcome {
  const bytes = Buffer.byteLength(JSON.stringify(call.result ?? null) ?? 'null', 'utf8');
  const result = bytes > limit ? { truncated: true, bytes } : call.result;
  return { status: 'ok', result, provider: call.provider, attempts: call.attempts, durationMs: call.durationMs };
}

/** The outcome of a call that failed. */
export function errorOutcome(error: CallError): ApprovalOutcome {
  return { status: 'error', code: error.code, message: error.message };
}
