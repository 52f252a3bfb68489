/**
 * `toolcap call <tool> --args '{...}' [--persona P]`, `toolcap approvals
 * list|show|approve|deny` and `toolcap audit`: the runtime pipeline from the
 * command line, in this process, with the store the config names (so
 * approvals asked for here can be decided from the HTTP API of a server on
 * the same store, and the other way round). Here the command acts as the
 * config's local principal, deciding through channel `cli`; with `--server`
 * it is a client of that server instead (./remote.ts).
 * @module
 */
import { shellWord } from '../model/shell-word.js';
import { userInfo } from 'node:os';
import { principalNamed } from '../config/identity.js';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../store/types.js';
import { printApproval, printAudit, printError, printResult } from './call-output.js';
import { remoteApprovals, remoteAudit, remoteCall, type ServerFlag } from './remote.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';
import { untrusted } from './terminal.js';
import type { Toolcap } from '../host.js';
import { openToolcap, readPlan, type OpenOptions } from './open.js';
import type { LoadFlags } from './shared.js';
import { errorMessage } from '../model/errors.js';
import { SELECTION_ID } from '../runtime/selections.js';
import { loadSelection, selectionFileFor } from './selection-file.js';

export interface CallFlags extends LoadFlags, ServerFlag {
  args?: string;
  persona?: string;
  /** Call for this catalog agent: refused unless the tool is in its view. */
  agent?: string;
  caller?: string;
  idempotencyKey?: string;
  /** The selection id of the search the tool was chosen from (`toolcap search` prints it). */
  selection?: string;
  json?: boolean;
}

export interface ApprovalsFlags extends LoadFlags, ServerFlag {
  status?: string;
  by?: string;
  note?: string;
  json?: boolean;
}

/** The default caller/reviewer id: cli:<login name>. */
function whoami(): string {
  let name = process.env['USER'] ?? process.env['USERNAME'];
  if (name === undefined) {
    try {
      name = userInfo().username;
    } catch {
      name = 'unknown';
    }
  }
  return `cli:${name}`;
}


/** Open a toolcap for the command, run `body` on it, and close it whatever happens. */
async function withRuntime(paths: string[], flags: LoadFlags, io: CliIO, body: (setup: Toolcap) => Promise<ExitCode>, options: OpenOptions = {}): Promise<ExitCode> {
  const plan = readPlan(paths, flags, io);
  if (typeof plan === 'number') return plan;
  const setup = await openToolcap(plan, io, options);
  if (typeof setup === 'number') return setup;
  try {
    return await body(setup);
  } finally {
    await setup.close();
  }
}

export async function callCommand(tool: string, paths: string[], flags: CallFlags, io: CliIO): Promise<ExitCode> {
  let args: unknown = {};
  if (flags.args !== undefined) {
    try {
      args = JSON.parse(flags.args);
    } catch (error) {
      io.stderr(`toolcap: --args is not JSON: ${errorMessage(error)}\n`);
      return EXIT.USAGE;
    }
  }
  if (flags.selection !== undefined && !SELECTION_ID.test(flags.selection)) {
    io.stderr(`toolcap: --selection "${flags.selection}" is not a selection id (the one toolcap search or the toolcap-selection header gave)\n`);
    return EXIT.USAGE;
  }
  if (flags.server !== undefined) return remoteCall(tool, args, flags.server, flags, io);
  const hint = flags.config !== undefined ? ` --config ${shellWord(flags.config)}` : paths.length ? ` ${paths.map(shellWord).join(' ')}` : '';
  return withRuntime(paths, flags, io, async ({ runtime, config }) => {
    try {
      // a selection of an earlier `toolcap search` (another process): from the project's selection file
      const saved = flags.selection === undefined ? undefined : loadSelection(selectionFileFor(config?.root ?? process.cwd()), flags.selection);
      if (saved) runtime.selections.adopt(saved.id, saved.owner, saved.query, saved.candidates, saved.at);
      const result = await runtime.call(tool, args, {
        ...(flags.selection !== undefined ? { selection: flags.selection } : {}),
        principal: principalNamed(config?.auth),
        ...(flags.persona !== undefined ? { persona: flags.persona } : {}),
        ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
        caller: flags.caller ?? `${whoami()}`,
        ...(flags.idempotencyKey !== undefined ? { idempotencyKey: flags.idempotencyKey } : {}),
      });
      return printResult(result, io, flags.json, hint, runtime.redactor);
    } catch (error) {
      return printError(error, io, flags.json, runtime.redactor);
    }
  });
}

/** `toolcap approvals list|show|approve|deny`: in the store, as the local principal (channel `cli`), or on `--server`. */
export async function approvalsCommand(action: string, id: string | undefined, paths: string[], flags: ApprovalsFlags, io: CliIO): Promise<ExitCode> {
  if (action !== 'list' && id === undefined) {
    io.stderr(`toolcap: approvals ${action} needs an approval id (see toolcap approvals list)\n`);
    return EXIT.USAGE;
  }
  if (flags.status !== undefined && !(APPROVAL_STATUSES as readonly string[]).includes(flags.status)) {
    io.stderr(`toolcap: --status: "${flags.status}" is not one of ${APPROVAL_STATUSES.join(', ')}\n`);
    return EXIT.USAGE;
  }
  if (flags.server !== undefined) return remoteApprovals(action, id, flags.server, flags, io);
  const by = flags.by ?? `${whoami()}`;
  // listing and denying run nothing: no need to start the MCP servers
  const runs = action === 'approve';
  return withRuntime(paths, flags, io, async ({ runtime, config }) => {
    const decision = { principal: principalNamed(config?.auth), channel: 'cli' as const, by, ...(flags.note !== undefined ? { note: flags.note } : {}) };
    try {
      if (action === 'list') {
        const list = await runtime.listApprovals(flags.status !== undefined ? { status: flags.status as ApprovalStatus } : { status: 'pending' });
        if (flags.json) io.stdout(`${JSON.stringify({ approvals: list }, null, 2)}\n`);
        else if (list.length === 0) io.stdout(`No ${flags.status ?? 'pending'} approvals.\n`);
        else for (const a of list) printApproval(a, io, runtime.redactor);
        return EXIT.OK;
      }
      if (action === 'show') {
        const a = await runtime.getApproval(id as string);
        if (flags.json) io.stdout(`${JSON.stringify({ approval: a }, null, 2)}\n`);
        else printApproval(a, io, runtime.redactor);
        return EXIT.OK;
      }
      if (action === 'deny') {
        const a = await runtime.deny(id as string, decision);
        if (flags.json) io.stdout(`${JSON.stringify({ approval: a }, null, 2)}\n`);
        else io.stdout(`Denied ${untrusted(a.id, runtime.redactor)} (${untrusted(a.tool, runtime.redactor)}).\n`);
        return EXIT.OK;
      }
      const outcome = await runtime.approve(id as string, decision);
      if (outcome.error) return printError(outcome.error, io, flags.json, runtime.redactor);
      if (flags.json) io.stdout(`${JSON.stringify(outcome, null, 2)}\n`);
      else {
        io.stdout(`Approved ${untrusted(outcome.approval.id, runtime.redactor)}; the reviewed call ran:\n`);
        if (outcome.call) printResult(outcome.call, io, false, '', runtime.redactor);
      }
      return EXIT.OK;
    } catch (error) {
      return printError(error, io, flags.json, runtime.redactor);
    }
  }, { mcp: runs, traces: runs });
}

export interface AuditFlags extends LoadFlags, ServerFlag {
  tool?: string;
  callId?: string;
  after?: string;
  limit?: string;
  json?: boolean;
}

/** `toolcap audit`: the audit log, oldest first. */
export async function auditCommand(paths: string[], flags: AuditFlags, io: CliIO): Promise<ExitCode> {
  const whole = (v: string | undefined, name: string, fallback: number) => (v === undefined ? fallback : /^\d+$/.test(v) ? Number(v) : (io.stderr(`toolcap: ${name}: "${v}" is not a whole number\n`), Number.NaN));
  const after = whole(flags.after, '--after', 0);
  const limit = whole(flags.limit, '--limit', 100);
  if (Number.isNaN(after) || Number.isNaN(limit) || limit < 1) return EXIT.USAGE;
  if (flags.server !== undefined) return remoteAudit({ after, limit, tool: flags.tool, callId: flags.callId }, flags.server, flags, io);
  return withRuntime(paths, flags, io, async ({ store, runtime }) => {
    const records = await store.listAudit({ afterSeq: after, limit, ...(flags.tool ? { tool: flags.tool } : {}), ...(flags.callId ? { callId: flags.callId } : {}) });
    printAudit(records, io, flags.json, runtime.redactor);
    return EXIT.OK;
  }, { traces: false, mcp: false });
}
