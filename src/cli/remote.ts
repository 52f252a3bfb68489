/**
 * `toolcap call`, `approvals` and `audit` with `--server URL`: the same
 * commands as a client of a running server, as whoever `TOOLCAP_API_KEY`
 * names. The server checks roles, personas and four eyes; this prints what
 * it answered the way the direct mode prints it.
 * @module
 */
import { shellWord } from '../model/shell-word.js';
import type { ApprovalView, CallResult } from '../runtime/runtime.js';
import type { AuditRecord } from '../store/types.js';
import { printApproval, printAudit, printResult } from './call-output.js';
import { request } from './client.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';
import { untrusted } from './terminal.js';

/** `--server URL`: talk to that toolcap over HTTP instead of opening the store. */
export interface ServerFlag {
  server?: string;
}

interface CallOptions {
  persona?: string;
  agent?: string;
  idempotencyKey?: string;
  selection?: string;
  json?: boolean;
}

/** `POST /tools/{tool}/call`; the caller is the key's principal (no --caller). */
export async function remoteCall(tool: string, args: unknown, server: string, flags: CallOptions, io: CliIO): Promise<ExitCode> {
  const body = { arguments: args, ...(flags.persona !== undefined ? { persona: flags.persona } : {}), ...(flags.agent !== undefined ? { agent: flags.agent } : {}), ...(flags.idempotencyKey !== undefined ? { idempotencyKey: flags.idempotencyKey } : {}), ...(flags.selection !== undefined ? { selection: flags.selection } : {}) };
  const answer = await request(server, 'POST', `tools/${encodeURIComponent(tool)}/call`, io, { body, json: flags.json });
  if (typeof answer === 'number') return answer;
  const { approve: _a, deny: _d, ...result } = answer.body;
  return printResult(result as unknown as CallResult, io, flags.json, ` --server ${shellWord(server)}`);
}

interface ApprovalsOptions {
  status?: string;
  note?: string;
  by?: string;
  json?: boolean;
}

/** `GET /approvals`, `GET /approvals/{id}`, `POST /approvals/{id}/approve|deny`, as the key's principal. */
export async function remoteApprovals(action: string, id: string | undefined, server: string, flags: ApprovalsOptions, io: CliIO): Promise<ExitCode> {
  if (flags.by !== undefined) io.stderr('toolcap: --by is ignored with --server: the server records the principal of TOOLCAP_API_KEY\n');
  const path = id === undefined ? 'approvals' : `approvals/${encodeURIComponent(id)}`;
  if (action === 'list') {
    const status = flags.status ?? 'pending';
    const answer = await request(server, 'GET', `approvals?status=${encodeURIComponent(status)}`, io, { json: flags.json });
    if (typeof answer === 'number') return answer;
    const list = (answer.body['approvals'] ?? []) as ApprovalView[];
    if (flags.json) io.stdout(`${JSON.stringify({ approvals: list }, null, 2)}\n`);
    else if (list.length === 0) io.stdout(`No ${status} approvals.\n`);
    else for (const a of list) printApproval(a, io);
    return EXIT.OK;
  }
  if (action === 'show') {
    const answer = await request(server, 'GET', path, io, { json: flags.json });
    if (typeof answer === 'number') return answer;
    if (flags.json) io.stdout(`${JSON.stringify({ approval: answer.body }, null, 2)}\n`);
    else printApproval(answer.body as unknown as ApprovalView, io);
    return EXIT.OK;
  }
  const answer = await request(server, 'POST', `${path}/${action}`, io, { body: flags.note !== undefined ? { note: flags.note } : {}, json: flags.json });
  if (typeof answer === 'number') return answer;
  const approval = answer.body['approval'] as ApprovalView;
  if (flags.json) io.stdout(`${JSON.stringify(answer.body, null, 2)}\n`);
  else if (action === 'deny') io.stdout(`Denied ${untrusted(approval.id)} (${untrusted(approval.tool)}).\n`);
  else {
    io.stdout(`Approved ${untrusted(approval.id)}; the reviewed call ran:\n`);
    const call = answer.body['call'] as CallResult | undefined;
    if (call) printResult(call, io, false, '');
  }
  return EXIT.OK;
}

/** `GET /audit` (needs audit.read). */
export async function remoteAudit(query: { after: number; limit: number; tool?: string | undefined; callId?: string | undefined }, server: string, flags: { json?: boolean }, io: CliIO): Promise<ExitCode> {
  const params = new URLSearchParams({ after: String(query.after), limit: String(query.limit) });
  if (query.tool) params.set('tool', query.tool);
  if (query.callId) params.set('call_id', query.callId);
  const answer = await request(server, 'GET', `audit?${params}`, io, { json: flags.json });
  if (typeof answer === 'number') return answer;
  printAudit((answer.body['audit'] ?? []) as AuditRecord[], io, flags.json);
  return EXIT.OK;
}
