/**
 * How `toolcap call` and `toolcap approvals` print what happened, the same
 * in direct-store mode and against a server (`--server`): a result, a
 * pending approval with the commands that decide it, an approval, an error.
 * What callers, approvers, tools and servers wrote goes through
 * `untrusted()`/`untrustedJson()` (terminal.ts): redacted and one line, so an
 * approver's note cannot rewrite the operator's terminal. `redactor` is the
 * runtime's in direct mode (its known secrets too), else the token shapes.
 * @module
 */
import { CallError } from '../runtime/errors.js';
import type { ApprovalView, CallResult } from '../runtime/runtime.js';
import type { AuditRecord } from '../store/types.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { invocation } from './invocation.js';
import type { Redactor } from '../runtime/containment/redact.js';
import type { CliIO } from './io.js';
import { SHAPES, terminalJson, untrusted, untrustedJson } from './terminal.js';

/** Print a CallError (exit 1); anything else is rethrown (a bug). */
export function printError(error: unknown, io: CliIO, json: boolean | undefined, redactor: Redactor = SHAPES): ExitCode {
  if (!(error instanceof CallError)) throw error;
  if (json) io.stdout(`${JSON.stringify({ status: 'error', code: error.code, message: error.message, ...error.extra }, null, 2)}\n`);
  const u = (text: unknown) => untrusted(text, redactor);
  io.stderr(`toolcap: ${error.code}: ${u(error.message)}\n`);
  for (const p of error.extra.problems ?? []) io.stderr(`  ${u(p.pointer || '/')}: ${u(p.message)}\n`);
  if (error.extra.allowed) io.stderr(`  ${error.code === 'UNKNOWN_AGENT' ? 'agents there are' : 'personas you may use'}: ${u(error.extra.allowed.join(', ') || 'none')}\n`);
  return EXIT.FINDINGS;
}

/** An approval, several lines. */
export function printApproval(a: ApprovalView, io: CliIO, redactor: Redactor = SHAPES): void {
  const u = (text: unknown) => untrusted(text, redactor);
  const asker = a.requestedByPrincipal ?? a.requestedBy;
  io.stdout(`${u(a.id)}  ${u(a.status).padEnd(8)}  ${u(a.tool)}${a.persona ? ` (persona ${u(a.persona)})` : ''}  asked ${u(a.createdAt)}${asker ? ` by ${u(asker)}` : ''}\n`);
  io.stdout(`  arguments: ${untrustedJson(a.arguments, redactor)}\n  why: ${u(a.reason)}\n  manifest: ${u(a.manifestHash)}\n`);
  const decider = a.decidedByPrincipal ?? a.decidedBy;
  if (a.decidedAt) io.stdout(`  decided ${u(a.decidedAt)}${decider ? ` by ${u(decider)}` : ''}${a.decidedVia ? ` (${u(a.decidedVia)})` : ''}${a.note ? `: ${u(a.note)}` : ''}\n`);
  if (a.outcome) io.stdout(`  outcome: ${untrustedJson(a.outcome, redactor)}\n`);
}

/**
 * A call's result (stdout) and where it ran (stderr), or the pending approval and how to decide it (`target`: the --config or --server part of those commands).
 * @returns the exit code: OK for a result, PENDING_APPROVAL when nothing ran yet.
 */
export function printResult(r: CallResult, io: CliIO, json: boolean | undefined, target: string, redactor: Redactor = SHAPES): ExitCode {
  const code = r.status === 'pending_approval' ? EXIT.PENDING_APPROVAL : EXIT.OK;
  if (json) {
    io.stdout(`${JSON.stringify(r, null, 2)}\n`);
    return code;
  }
  if (r.status === 'pending_approval') {
    // with --server the id is the server's answer: escaped in the suggested commands too, not only in the first line
    const id = untrusted(r.approval.id, redactor);
    io.stdout(`Waiting for approval ${id}: ${untrusted(r.approval.reason, redactor)}.\n`);
    const toolcap = invocation();
    io.stdout(`  approve (runs exactly this call): ${toolcap} approvals approve ${id}${target}\n  deny:                             ${toolcap} approvals deny ${id}${target}\n`);
    io.stdout(`  status and outcome:               ${toolcap} approvals show ${id}${target}\n`);
    io.stderr(`toolcap: nothing ran yet; exit ${EXIT.PENDING_APPROVAL} means waiting for approval\n`);
    return code;
  }
  // the result is what the caller asked for: kept whole, but its text cannot drive the terminal
  io.stdout(`${terminalJson(r.result, 2)}\n`);
  const u = (text: unknown) => untrusted(text, redactor);
  io.stderr(`toolcap: ${u(r.tool)} ran on provider ${u(r.provider)} in ${r.durationMs} ms (${r.attempts} attempt${r.attempts === 1 ? '' : 's'})${r.skipped.length ? `; skipped ${u(r.skipped.join('; '))}` : ''}\n`);
  return code;
}

/** Audit records, oldest first: JSON (`{"audit": [...]}`) or one entry per two lines. */
export function printAudit(records: readonly AuditRecord[], io: CliIO, json: boolean | undefined, redactor: Redactor = SHAPES): void {
  const u = (text: unknown) => untrusted(text, redactor);
  if (json) io.stdout(`${JSON.stringify({ audit: records }, null, 2)}\n`);
  else if (records.length === 0) io.stdout('No audit records.\n');
  else for (const r of records) io.stdout(`${String(r.seq).padStart(5)}  ${u(r.at)}  ${u(r.kind).padEnd(22)} ${r.tool != null ? u(r.tool) : '-'}${r.actor ? `  by ${u(r.actor)}` : ''}${r.callId ? `  call ${u(r.callId)}` : ''}\n         ${untrustedJson(r.detail, redactor)}\n`);
}
