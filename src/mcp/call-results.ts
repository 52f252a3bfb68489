/**
 * What a gateway `tools/call` answers: a result with its call record, or a
 * tool error (`isError: true`) the model can read, with the details in
 * `_meta["toolcap.dev/error"]`. A call error leaves the process through
 * `callErrorWire()`, the same mapping the HTTP API uses.
 * @module
 */
import { shellWord } from '../model/shell-word.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { callErrorWire, type CallError } from '../runtime/errors.js';
import type { ApprovalView, CallResult } from '../runtime/runtime.js';

/** The `_meta` key on call results: the call's id, provider and attempts. */
export const CALL_META_KEY = 'toolcap.dev/call';
/** The `_meta` key on error results: `{ code, message, ... }`. */
export const ERROR_META_KEY = 'toolcap.dev/error';

const text = (t: string): CallToolResult['content'][number] => ({ type: 'text', text: t });

/** A class instance or a Map is not JSON-shaped: only plain objects become `structuredContent`. */
const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * A tool error: `<CODE>: <message>` as text, and `{ code, message, ...extra }` in `_meta`.
 * @example errorResult('INTERNAL', 'boom').isError // true
 */
export function errorResult(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [text(`${code}: ${message}`)], _meta: { [ERROR_META_KEY]: { code, message, ...extra } } };
}

/** A call that ran: its result as JSON text (and as `structuredContent` when it is a plain object), its record in `_meta`. */
export function okResult(call: CallResult & { status: 'ok' }): CallToolResult {
  const json = JSON.stringify(call.result ?? null) ?? 'null';
  return {
    content: [text(json)],
    ...(isPlainObject(call.result) ? { structuredContent: call.result } : {}),
    _meta: { [CALL_META_KEY]: { callId: call.callId, provider: call.provider, attempts: call.attempts, durationMs: call.durationMs } },
  };
}

/**
 * A call error as a tool error: the wire fields of {@link callErrorWire}
 * (pointer, problems, retryAfterMs, providers, callId: the ones set) in `_meta`.
 */
export function callErrorResult(error: CallError): CallToolResult {
  const wire = callErrorWire(error);
  return errorResult(wire.code, wire.message, wire.details);
}

/** A path as one shell word: as it is when plain, else double-quoted. */

/** What a pending answer tells besides the approval: how to follow it up. */
export interface PendingHints {
  /** The gateway tool that reports the approval's status and outcome, when the gateway lists one. */
  statusTool?: string;
  /** The config file of the serving toolcap, so the approve command works as printed. */
  configPath?: string;
  /** How to run toolcap where the server runs (`toolcap`, `npx toolcap`, `node …/bin/toolcap.js`). @default 'toolcap' */
  command?: string;
  /** One more sentence (why the approval could not be decided in the client). */
  note?: string;
}

/**
 * The tool error for a call waiting for approval: its id, why, how a person
 * approves it (the command, with `--config` when known, or the HTTP route)
 * and, when there is one, the tool that gives the agent the outcome later.
 * @example pendingApprovalResult(result.approval)._meta['toolcap.dev/error'].approvalId
 */
export function pendingApprovalResult(approval: ApprovalView, hints: PendingHints = {}): CallToolResult {
  const command = `${hints.command ?? 'toolcap'} approvals approve ${approval.id}${hints.configPath !== undefined ? ` --config ${shellWord(hints.configPath)}` : ''}`;
  const message =
    `The call to "${approval.tool}" needs approval (${approval.reason}); nothing ran. ` +
    `Approval id: ${approval.id} (expires ${approval.expiresAt}). ` +
    `A person approves with \`${command}\` or POST /approvals/${approval.id}/approve on the toolcap server; ` +
    `the approved call then runs exactly these arguments once.` +
    (hints.statusTool !== undefined ? ` Call ${hints.statusTool} with {"approvalId":"${approval.id}"} for its status and, once it ran, its result.` : '') +
    (hints.note !== undefined ? ` ${hints.note}` : '');
  return errorResult('APPROVAL_REQUIRED', message, {
    approvalId: approval.id,
    reason: approval.reason,
    expiresAt: approval.expiresAt,
    tool: approval.tool,
    ...(hints.statusTool !== undefined ? { statusTool: hints.statusTool } : {}),
  });
}
