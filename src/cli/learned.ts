/**
 * `toolcap tools upsert FILE`, `toolcap tools learned`, `toolcap tools
 * forget ID`: learned tools (runtime/learned) from the command line, in this
 * process against the config's store as its local principal (which needs
 * the `tools.write` action to write), or with `--server` as a client of
 * `PUT`/`DELETE /tools/{name}` and `GET /tools/learned`.
 * @module
 */
import { readFileSync } from 'node:fs';
import { principalNamed } from '../config/identity.js';
import { errorMessage } from '../model/errors.js';
import { can } from '../runtime/identity/principal.js';
import { LEARNED_DIALECTS, learnedDialectIds, type LocatedFinding } from '../runtime/learned/documents.js';
import { InvalidLearnedTool, type LearnedToolInfo, type LearnedWrite } from '../runtime/learned/learned-tools.js';
import type { Toolcap } from '../host.js';
import { request } from './client.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { logLine, type CliIO } from './io.js';
import { untrusted } from './terminal.js';
import { openToolcap, readPlan } from './open.js';
import { resolveConfigFlag, type LoadFlags } from './shared.js';

export interface LearnedFlags extends LoadFlags {
  server?: string;
  /** The dialect the entry is written in (upsert). */
  as?: string;
  json?: boolean;
}

/**
 * One finding as a line: `file:line:column pointer CODE message` (and its hint on the next). The pointer and
 * message quote the entry (its keys and values), which anyone may have written: each line escaped ({@link logLine}).
 */
export function findingLine(file: string, f: LocatedFinding): string {
  const where = f.file ?? file;
  const pos = f.line !== undefined ? `:${f.line}${f.column !== undefined ? `:${f.column}` : ''}` : '';
  const line = logLine(`${where}${pos} ${f.pointer !== undefined ? `${f.pointer || '/'} ` : ''}${f.severity} ${f.code}: ${f.message}`);
  return f.hint ? `${line}\n${logLine(`  hint: ${f.hint}`)}` : line;
}

function printWrite(what: string, w: LearnedWrite, io: CliIO, json: boolean | undefined): ExitCode {
  if (json) io.stdout(`${JSON.stringify(w, null, 2)}\n`);
  else io.stdout(`${what} learned tool ${untrusted(w.tool.id)} (${untrusted(w.tool.dialect)}, by ${untrusted(w.tool.writtenBy)}); catalog ${w.reload.kind}, version ${w.reload.version}\n`);
  return EXIT.OK;
}

/** Run `body` against a toolcap opened from the config (no MCP servers started). */
async function local(paths: string[], flags: LearnedFlags, io: CliIO, body: (t: Toolcap, principal: string) => Promise<ExitCode>, write: boolean): Promise<ExitCode> {
  const resolved = resolveConfigFlag(paths, flags, io);
  if (resolved === undefined) return EXIT.USAGE;
  const plan = readPlan(paths, resolved, io);
  if (typeof plan === 'number') return plan;
  const toolcap = await openToolcap(plan, io, { mcp: false, traces: false });
  if (typeof toolcap === 'number') return toolcap;
  try {
    const principal = principalNamed(toolcap.config?.auth);
    if (write && !can(principal, 'tools.write')) {
      io.stderr(`toolcap: FORBIDDEN: the local principal ${principal.id} may not write tools (tools.write: the admin role)\n`);
      return EXIT.FINDINGS;
    }
    return await body(toolcap, principal.id);
  } catch (error) {
    io.stderr(`toolcap: ${untrusted(errorMessage(error), toolcap.runtime.redactor)}\n`);
    return EXIT.FINDINGS;
  } finally {
    await toolcap.close();
  }
}

/** `toolcap tools upsert FILE`. */
export async function learnedUpsertCommand(file: string, paths: string[], flags: LearnedFlags, io: CliIO): Promise<ExitCode> {
  const dialect = flags.as ?? 'toolcap';
  if (!learnedDialectIds().includes(dialect)) {
    io.stderr(`toolcap: --as: learned tools are written in ${learnedDialectIds().join(' or ')}, not "${dialect}"\n`);
    return EXIT.USAGE;
  }
  let text: string;
  let entry: unknown;
  try {
    text = readFileSync(file, 'utf8');
    entry = JSON.parse(text);
  } catch (error) {
    // JSON.parse's message quotes the text around the fault
    io.stderr(`toolcap: ${logLine(`${file}: not a readable JSON tool entry: ${errorMessage(error)}`)}\n`);
    return EXIT.USAGE;
  }
  const idKey = LEARNED_DIALECTS[dialect as keyof typeof LEARNED_DIALECTS]!.idKey;
  const id = (entry as Record<string, unknown> | null)?.[idKey];
  if (typeof id !== 'string' || id === '') {
    io.stderr(`toolcap: ${file}: the entry has no "${idKey}" (the id it is kept under)\n`);
    return EXIT.FINDINGS;
  }
  if (flags.server !== undefined) {
    const answer = await request(flags.server, 'PUT', `tools/${encodeURIComponent(id)}?dialect=${dialect}`, io, { text, json: flags.json });
    return typeof answer === 'number' ? answer : printWrite('kept', answer.body as unknown as LearnedWrite, io, flags.json);
  }
  return local(paths, flags, io, async (t, principal) => {
    try {
      return printWrite('kept', await t.learned.upsert(id, dialect, text, principal), io, flags.json);
    } catch (error) {
      if (!(error instanceof InvalidLearnedTool)) throw error;
      if (flags.json) io.stdout(`${JSON.stringify({ status: 'error', code: 'INVALID_TOOL', message: error.message, diagnostics: error.findings }, null, 2)}\n`);
      io.stderr(`toolcap: INVALID_TOOL: ${logLine(error.message)}\n`);
      for (const f of error.findings) io.stderr(`${findingLine(file, f)}\n`);
      return EXIT.FINDINGS;
    }
  }, true);
}

function printList(tools: readonly LearnedToolInfo[], io: CliIO, json: boolean | undefined): ExitCode {
  if (json) io.stdout(`${JSON.stringify({ tools }, null, 2)}\n`);
  else if (tools.length === 0) io.stdout('No learned tools.\n');
  else for (const t of tools) io.stdout(`${untrusted(t.id)}  ${untrusted(t.dialect)}  by ${untrusted(t.writtenBy)}  ${untrusted(t.updatedAt)}\n`);
  return EXIT.OK;
}

/** `toolcap tools learned`. */
export async function learnedListCommand(paths: string[], flags: LearnedFlags, io: CliIO): Promise<ExitCode> {
  if (flags.server !== undefined) {
    const answer = await request(flags.server, 'GET', 'tools/learned', io, { json: flags.json });
    return typeof answer === 'number' ? answer : printList((answer.body as { tools: LearnedToolInfo[] }).tools, io, flags.json);
  }
  return local(paths, flags, io, async (t) => printList(t.learned.list(), io, flags.json), false);
}

/** `toolcap tools forget ID`. */
export async function learnedForgetCommand(id: string, paths: string[], flags: LearnedFlags, io: CliIO): Promise<ExitCode> {
  if (flags.server !== undefined) {
    const answer = await request(flags.server, 'DELETE', `tools/${encodeURIComponent(id)}`, io, { json: flags.json });
    return typeof answer === 'number' ? answer : printWrite('forgot', answer.body as unknown as LearnedWrite, io, flags.json);
  }
  return local(paths, flags, io, async (t, principal) => {
    const done = await t.learned.forget(id, principal);
    if (done) return printWrite('forgot', done, io, flags.json);
    io.stderr(`toolcap: TOOL_NOT_FOUND: no learned tool "${id}"\n`);
    return EXIT.FINDINGS;
  }, true);
}
