/**
 * Why a call did not produce a result. One error type for the library, with
 * a code the HTTP API maps to a status and the CLI to a message.
 *
 * What leaves the process is redacted: the runtime redacts every CallError
 * it throws with its redactor (known secrets and token shapes), and
 * {@link callErrorWire} applies token shapes again to whatever it is given.
 * @module
 */
import { createRedactor, type Redactor } from './containment/redact.js';

export const CALL_ERROR_STATUS = {
  /** No such tool for this persona (a tool outside the persona, a disabled one and a missing one are indistinguishable). */
  TOOL_NOT_FOUND: 404,
  /** The tool is in the catalog, visible to this caller, but `enabled: false`: listed for review, never run. */
  TOOL_DISABLED: 409,
  /** The arguments fail the tool's input schema. */
  INVALID_ARGUMENTS: 400,
  /** The tool's own input schema cannot be compiled: the call is refused rather than run unchecked. */
  INVALID_TOOL_SCHEMA: 500,
  /** No such approval. */
  APPROVAL_NOT_FOUND: 404,
  /** The approval is not in a state that allows this (already decided, expired, denied). */
  APPROVAL_CONFLICT: 409,
  /** The approval no longer matches: the manifest changed since review, or the arguments differ. */
  APPROVAL_VOID: 409,
  /** Every provider is down, backing off or unusable; `retryAfterMs` says when to try again. */
  NO_HEALTHY_PROVIDER: 503,
  /** The call exceeded `execution.timeoutSec`. */
  TIMEOUT: 504,
  /** The provider ran and failed (after any retries the retry class allows). */
  PROVIDER_ERROR: 502,
  /** The caller gave up (an MCP client hung up or sent notifications/cancelled): nothing of the tool's health, like TOOL_REJECTED. */
  CANCELLED: 499,
  /** The store is down: approval-gated calls fail closed. */
  STORE_UNAVAILABLE: 503,
  /** No credentials, or credentials that do not check out. */
  UNAUTHENTICATED: 401,
  /** The principal's roles or grants do not allow this (calling, deciding this approval). */
  FORBIDDEN: 403,
  /** The persona exists but is not granted to the principal; `allowed` lists the ones it may use. */
  FORBIDDEN_PERSONA: 403,
  /** No such persona; `allowed` lists the ones the principal may use. */
  UNKNOWN_PERSONA: 404,
  /** The call names an agent whose view leaves the tool out; `constraint` says which rule (query/agent-view.ts). */
  AGENT_FORBIDDEN: 403,
  /** The call names an agent the catalog does not have; `allowed` lists the agents there are. */
  UNKNOWN_AGENT: 404,
  /** The principal asked for this call itself: four eyes, somebody else decides. */
  SELF_APPROVAL: 403,
  /** The principal made too many calls in its window; `retryAfterMs` says when there is room again. */
  RATE_LIMITED: 429,
  /** The provider refused the caller's input (an HTTP 4xx, an MCP tool error): the caller's fault, not the provider's. */
  TOOL_REJECTED: 422,
  /** Every provider lacks a credential the manifest requires (`missing` names the variables, never their values): nothing ran. */
  MISSING_CREDENTIALS: 503,
  /** The tool's result does not match its declared outputSchema, and the config says `runtime.results: fail`. */
  RESULT_MISMATCH: 502,
  /** The tool needs an OAuth service connected and it is not (or its tokens cannot be read); `command` connects it. */
  OAUTH_NOT_CONNECTED: 412,
  /** The tool's expired OAuth token could not be refreshed (revoked refresh token, token endpoint down); `command` reconnects. */
  OAUTH_REFRESH_FAILED: 412,
} as const;

export type CallErrorCode = keyof typeof CALL_ERROR_STATUS;

/**
 * Whether a call that ended with `code` says anything of the tool's health:
 * not when the caller's input was refused (TOOL_REJECTED) or the caller gave
 * up (CANCELLED), else one caller could mark a tool down for everyone. The
 * live record, a restart's reload and other instances all ask this.
 */
export function tellsOfHealth(code: string | null | undefined): boolean {
  return code !== 'TOOL_REJECTED' && code !== 'CANCELLED';
}

export class CallError extends Error {
  override readonly name = 'CallError';
  readonly status: number;
  constructor(
    readonly code: CallErrorCode,
    message: string,
    readonly extra: {
      /** JSON pointer into the arguments (INVALID_ARGUMENTS). */
      pointer?: string;
      /** Every schema problem (INVALID_ARGUMENTS). */
      problems?: Array<{ pointer: string; message: string }>;
      /** When a retry may succeed (NO_HEALTHY_PROVIDER). */
      retryAfterMs?: number;
      /** Providers tried or skipped, with why. */
      providers?: Array<{ provider: string; outcome: string }>;
      callId?: string;
      /** The personas the principal may use (FORBIDDEN_PERSONA, UNKNOWN_PERSONA). */
      allowed?: string[];
      /** The approval a refusal is about (FORBIDDEN, SELF_APPROVAL). */
      approvalId?: string;
      /** The environment variables that are not set (MISSING_CREDENTIALS). */
      missing?: string[];
      /** The command that fixes it (OAUTH_NOT_CONNECTED, OAUTH_REFRESH_FAILED). */
      command?: string;
      /** The agent a refusal is about, and the rule of its view that refused (AGENT_FORBIDDEN). */
      agent?: string;
      constraint?: string;
    } = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = CALL_ERROR_STATUS[code];
  }
}

/** A call error as any transport sends it: the fields a caller needs, with nothing local (no stack, no cause). */
export interface WireCallError {
  code: CallErrorCode;
  /** The HTTP status of the code; transports without statuses ignore it. */
  status: number;
  message: string;
  /** Only the fields that are set: pointer, problems, retryAfterMs, providers, callId, allowed, approvalId, missing, command, agent, constraint. */
  details: Partial<CallError['extra']>;
  /** Whole seconds for a `Retry-After` header, when a retry may succeed. */
  retryAfterSec?: number;
}

/**
 * The one mapping of a {@link CallError} to what leaves the process: the
 * HTTP API's problem body and the MCP gateway's error result both start here.
 * @example const wire = callErrorWire(error); res.status(wire.status).json({ code: wire.code, detail: wire.message, ...wire.details });
 */
export function callErrorWire(error: CallError, redactor: Redactor = TOKEN_SHAPES): WireCallError {
  const details = Object.fromEntries(Object.entries(error.extra).filter(([, v]) => v !== undefined)) as Partial<CallError['extra']>;
  const { retryAfterMs } = error.extra;
  return {
    code: error.code,
    status: error.status,
    message: redactor.redactText(error.message),
    details: redactor.redact(details),
    ...(retryAfterMs !== undefined ? { retryAfterSec: Math.max(1, Math.ceil(retryAfterMs / 1000)) } : {}),
  };
}

/** Token shapes only: what any text gets even where no known secrets are at hand. */
const TOKEN_SHAPES = createRedactor();

/**
 * The same error with its message and details redacted; its cause is kept
 * only as a redacted copy (name and message), so nothing raw travels on.
 * The error itself when redaction changes nothing.
 * @example throw redactCallError(error, runtime.redactor);
 */
export function redactCallError(error: CallError, redactor: Redactor): CallError {
  const message = redactor.redactText(error.message);
  const extra = redactor.redact(error.extra);
  const cause = error.cause instanceof Error ? redactor.redactText(error.cause.message) : undefined;
  if (message === error.message && JSON.stringify(extra) === JSON.stringify(error.extra) && (cause === undefined || cause === (error.cause as Error).message)) return error;
  return new CallError(error.code, message, extra, error.cause instanceof Error ? { cause: Object.assign(new Error(cause), { name: error.cause.name }) } : {});
}
