/**
 * `toolcap tools upsert FILE`, `toolcap tools learned`, `toolcap tools
 * forget ID`: learned tools (runtime/learned) from the command line, in this
 * process against the config's store as its local principal (which needs
 * the `tools.write` action to write), or with `--server` as a client of
 * `PUT`/`DELETE /tools/{name}` and `GET /tools/learned`.
 * @module
 */
import type { Command, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { principalNamed } from '../config/identity.js';
import { errorMessage } from '../model/errors.js';
import { can } from '../runtime/identity/principal.js';
import { LEARNED_DIALECTS, learnedDialectIds, type LocatedFinding } from '../runtime/learned/documents.js';
import { InvalidLearnedTool, type LearnedToolInfo, type LearnedWrite } from '../runtime/learned/learned-tools.js';
import type { Toolcap } from '../host.js';
import { request } from './client.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';
import { openToolcap, readPlan } from './open.js';
import { resolveConfigFlag, type LoadFlags } from './shared.js';

export interface LearnedFlags extends LoadFlags {
  server?: string;
  /** The dialect the entry is written in (upsert). */
  as?: string;
  json?: boolean;
}

/** What the command line wiring hands over. */
export interface LearnedWiring {
  io: CliIO;
  done: (code: ExitCode) => void;
  configOption: () => Option;
  serverOption: () => Option;
}

/** One finding as a line: `file:line:column pointer CODE message`. */
export function findingLine(file: string, f: LocatedFinding): string {
  const where = f.file ?? file;
  const pos = f.line !== undefined ? `:${f.line}${f.column !== undefined ? `:${f.column}` : ''}` : '';
  return `${where}${pos} ${f.pointer !== undefined ? `${f.pointer || '/'} ` : ''}${f.severity} ${f.code}: ${f.message}${f.hint ? `\n  hint: ${f.hint}` : ''}`;
}

function printWrite(what: string, w: LearnedWrite, io: CliIO, json: boolean | undefined): ExitCode {
  if (json) io.stdout(`${JSON.stringify(w, null, 2)}\n`);
  else io.stdout(`${what} learned tool ${w.tool.id} (${w.tool.dialect}, by ${w.tool.writtenBy}); catalog ${w.reload.kind}, version ${w.reload.version}\n`);
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
    io.stderr(`toolcap: ${errorMessage(error)}\n`);
    return EXIT.FINDINGS;
  } finally {
    await toolcap.close();
  }
}

async function upsert(file: string, paths: string[], flags: LearnedFlags, io: CliIO): Promise<ExitCode> {
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
    io.stderr(`toolcap: ${file}: not a readable JSON tool entry: ${errorMessage(error)}\n`);
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
      io.stderr(`toolcap: INVALID_TOOL: ${error.message}\n`);
      for (const f of error.findings) io.stderr(`${findingLine(file, f)}\n`);
      return EXIT.FINDINGS;
    }
  }, true);
}

function printList(tools: readonly LearnedToolInfo[], io: CliIO, json: boolean | undefined): ExitCode {
  if (json) io.stdout(`${JSON.stringify({ tools }, null, 2)}\n`);
  else if (tools.length === 0) io.stdout('No learned tools.\n');
  else for (const t of tools) io.stdout(`${t.id}  ${t.dialect}  by ${t.writtenBy}  ${t.updatedAt}\n`);
  return EXIT.OK;
}

async function list(paths: string[], flags: LearnedFlags, io: CliIO): Promise<ExitCode> {
  if (flags.server !== undefined) {
    const answer = await request(flags.server, 'GET', 'tools/learned', io, { json: flags.json });
    return typeof answer === 'number' ? answer : printList((answer.body as { tools: LearnedToolInfo[] }).tools, io, flags.json);
  }
  return local(paths, flags, io, async (t) => printList(t.learned.list(), io, flags.json), false);
}

async function forget(id: string, paths: string[], flags: LearnedFlags, io: CliIO): Promise<ExitCode> {
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

/** Add `tools upsert|learned|forget` to the program. */
export function addLearnedToolCommands(program: Command, { io, done, configOption, serverOption }: LearnedWiring): void {
  const tools = program.command('tools').description('learned tools: tool entries written at run time, kept in the store (docs/dialects/xena.md#runtime-learned-tools)');
  tools
    .command('upsert')
    .description('judge a tool entry (a JSON file) like a manifest entry, keep it in the store as a learned tool and serve it; exit 1 when it is not valid (nothing changes)')
    .argument('<file>', 'one tool entry as JSON')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--as <dialect>', `the dialect the entry is written in: ${learnedDialectIds().join(', ')}`, 'toolcap')
    .option('--json', 'print the answer as JSON')
    .addOption(serverOption())
    .addOption(configOption())
    .action(async (file: string, paths: string[], flags: LearnedFlags) => done(await upsert(file, paths, flags, io)));
  tools
    .command('learned')
    .description('list the learned tools kept in the store')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--json', 'print {"tools": [...]} as JSON')
    .addOption(serverOption())
    .addOption(configOption())
    .action(async (paths: string[], flags: LearnedFlags) => done(await list(paths, flags, io)));
  tools
    .command('forget')
    .description('delete a learned tool from the store and the catalog')
    .argument('<id>', 'the learned tool id')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--json', 'print the answer as JSON')
    .addOption(serverOption())
    .addOption(configOption())
    .action(async (id: string, paths: string[], flags: LearnedFlags) => done(await forget(id, paths, flags, io)));
}
