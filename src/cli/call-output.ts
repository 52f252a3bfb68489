/**
 * How `toolcap call` and `toolcap approvals` print what happened, the same
 * in direct-store mode and against a server (`--server`): a result, a
 * pending approval with the commands that decide it, an approval, an error.
 * @module
 */
import { CallError } from '../runtime/errors.js';
import type { ApprovalView, CallResult } from '../runtime/runtime.js';
import type { AuditRecord } from '../store/types.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { invocation } from './invocation.js';
import type { CliIO } from './io.js';

/** Print a CallError (exit 1); anything else is rethrown (a bug). */
export function printError(error: unknown, io: CliIO, json: boolean | undefined): ExitCode {
  if (!(error instanceof CallError)) throw error;
  if (json) io.stdout(`${JSON.stringify({ status: 'error', code: error.code, message: error.message, ...error.extra }, null, 2)}\n`);
  io.stderr(`toolcap: ${error.code}: ${error.message}\n`);
  for (const p of error.extra.problems ?? []) io.stderr(`  ${p.pointer || '/'}: ${p.message}\n`);
  if (error.extra.allowed) io.stderr(`  ${error.code === 'UNKNOWN_AGENT' ? 'agents there are' : 'personas you may use'}: ${error.extra.allowed.join(', ') || 'none'}\n`);
  return EXIT.FINDINGS;
}

/** An approval, several lines. */
export function printApproval(a: ApprovalView, io: CliIO): void {
  const asker = a.requestedByPrincipal ?? a.requestedBy;
  io.stdout(`${a.id}  ${a.status.padEnd(8)}  ${a.tool}${a.persona ? ` (persona ${a.persona})` : ''}  asked ${a.createdAt}${asker ? ` by ${asker}` : ''}\n`);
  io.stdout(`  arguments: ${JSON.stringify(a.arguments)}\n  why: ${a.reason}\n  manifest: ${a.manifestHash}\n`);
  const decider = a.decidedByPrincipal ?? a.decidedBy;
  if (a.decidedAt) io.stdout(`  decided ${a.decidedAt}${decider ? ` by ${decider}` : ''}${a.decidedVia ? ` (${a.decidedVia})` : ''}${a.note ? `: ${a.note}` : ''}\n`);
  if (a.outcome) io.stdout(`  outcome: ${JSON.stringify(a.outcome)}\n`);
}

/**
 * A call's result (stdout) and where it ran (stderr), or the pending approval and how to decide it (`target`: the --config or --server part of those commands).
 * @returns the exit code: OK for a result, PENDING_APPROVAL when nothing ran yet.
 */
export function printResult(r: CallResult, io: CliIO, json: boolean | undefined, target: string): ExitCode {
  const code = r.status === 'pending_approval' ? EXIT.PENDING_APPROVAL : EXIT.OK;
  if (json) {
    io.stdout(`${JSON.stringify(r, null, 2)}\n`);
    return code;
  }
  if (r.status === 'pending_approval') {
    io.stdout(`Waiting for approval ${r.approval.id}: ${r.approval.reason}.\n`);
    const toolcap = invocation();
    io.stdout(`  approve (runs exactly this call): ${toolcap} approvals approve ${r.approval.id}${target}\n  deny:                             ${toolcap} approvals deny ${r.approval.id}${target}\n`);
    io.stdout(`  status and outcome:               ${toolcap} approvals show ${r.approval.id}${target}\n`);
    io.stderr(`toolcap: nothing ran yet; exit ${EXIT.PENDING_APPROVAL} means waiting for approval\n`);
    return code;
  }
  io.stdout(`${JSON.stringify(r.result, null, 2)}\n`);
  io.stderr(`toolcap: ${r.tool} ran on provider ${r.provider} in ${r.durationMs} ms (${r.attempts} attempt${r.attempts === 1 ? '' : 's'})${r.skipped.length ? `; skipped ${r.skipped.join('; ')}` : ''}\n`);
  return code;
}

/** Audit records, oldest first: JSON (`{"audit": [...]}`) or one entry per two lines. */
export function printAudit(records: readonly AuditRecord[], io: CliIO, json: boolean | undefined): void {
  if (json) io.stdout(`${JSON.stringify({ audit: records }, null, 2)}\n`);
  else if (records.length === 0) io.stdout('No audit records.\n');
  else for (const r of records) io.stdout(`${String(r.seq).padStart(5)}  ${r.at}  ${r.kind.padEnd(22)} ${r.tool ?? '-'}${r.actor ? `  by ${r.actor}` : ''}${r.callId ? `  call ${r.callId}` : ''}\n         ${JSON.stringify(r.detail)}\n`);
}
