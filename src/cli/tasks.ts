/**
 * `toolcap tasks snapshot`: probe every task-source tool through the
 * runtime and print each source `ok`, `stale`, `error` or `unsupported`
 * (runtime/probes/snapshot.ts), in this process as the config's local
 * principal, or with `--server` as a client of `GET /tasks/snapshot`.
 * Exit 1 when a source is `error`; stale and unsupported sources are
 * findings to read, not failures of the command.
 * @module
 */
import { userInfo } from 'node:os';
import { principalNamed } from '../config/identity.js';
import { errorMessage } from '../model/errors.js';
import { CallError } from '../runtime/errors.js';
import { ProbeAdapters } from '../runtime/probes/adapters.js';
import { taskSnapshot } from '../runtime/probes/snapshot.js';
import type { SourceReport, TaskSnapshot } from '../runtime/probes/types.js';
import { printError } from './call-output.js';
import { request } from './client.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';
import { untrusted } from './terminal.js';
import { openToolcap, readPlan } from './open.js';
import type { ServerFlag } from './remote.js';
import type { LoadFlags } from './shared.js';

export interface TasksFlags extends LoadFlags, ServerFlag {
  persona?: string;
  json?: boolean;
}

/** Seconds as the largest whole unit: 45 s, 12 min, 3 h, 400 d. */
function age(sec: number): string {
  if (sec < 120) return `${sec} s`;
  if (sec < 7200) return `${Math.floor(sec / 60)} min`;
  if (sec < 172_800) return `${Math.floor(sec / 3600)} h`;
  return `${Math.floor(sec / 86_400)} d`;
}

/** One source, its lines; what the tools returned (titles, assignees, reasons) through untrusted() (terminal.ts). */
function sourceLine(s: SourceReport): string {
  const u = untrusted;
  const head = `${s.status.padEnd(11)} ${u(s.tool)}`;
  if (s.status === 'unsupported') return `${head}\n  ${u(s.reason ?? '')}`;
  if (s.status === 'error') return `${head} (${u(s.adapter ?? '?')})\n  ${u(s.code ?? 'ERROR')}: ${u(s.reason ?? '')}`;
  const obs = s.observations ?? [];
  const newest = obs[0];
  const facts = [u(s.adapter ?? '?'), `${obs.length} task${obs.length === 1 ? '' : 's'}`];
  if (newest) facts.push(`newest ${age(newest.ageSec)} old`);
  if (s.freshnessSlaSec !== undefined) facts.push(`SLA ${s.freshnessSlaSec} s`);
  const lines = [`${head} (${facts.join(', ')})`];
  for (const o of obs.slice(0, 20)) lines.push(`  ${o.stale ? '!' : ' '} ${u(o.taskId).padEnd(10)} ${u(o.state).padEnd(12)} ${u(o.title)}${o.assignee ? ` [${u(o.assignee)}]` : ''}  (${age(o.ageSec)})`);
  if (obs.length > 20) lines.push(`  … ${obs.length - 20} more (--json shows all)`);
  if (s.rejected?.length) lines.push(`  ${s.rejected.length} item(s) rejected: ${u(s.rejected.slice(0, 3).map((r) => `#${r.index} ${r.field ?? ''} ${r.reason}`.replace(/\s+/g, ' ')).join('; '))}`);
  return lines.join('\n');
}

/** Print a snapshot; exit 1 when a source is `error`. */
export function printSnapshot(snapshot: TaskSnapshot, io: CliIO, json: boolean | undefined): ExitCode {
  if (json) io.stdout(`${JSON.stringify(snapshot, null, 2)}\n`);
  else {
    const c = snapshot.counts;
    io.stdout(`Task sources${snapshot.persona !== undefined ? ` of persona ${untrusted(snapshot.persona)}` : ''}: ${c.ok} ok, ${c.stale} stale, ${c.error} error, ${c.unsupported} unsupported\n`);
    if (snapshot.sources.length === 0) io.stdout('No task sources (tools that are enabled, with capability tasks.probe and task role source).\n');
    for (const s of snapshot.sources) io.stdout(`${sourceLine(s)}\n`);
  }
  return snapshot.counts.error > 0 ? EXIT.FINDINGS : EXIT.OK;
}

function cliCaller(): string {
  try {
    return `cli:${process.env['USER'] ?? userInfo().username}`;
  } catch {
    return 'cli:unknown';
  }
}

/** `toolcap tasks snapshot [paths...] [--persona P] [--json] [--server URL]`. */
export async function tasksSnapshotCommand(paths: string[], flags: TasksFlags, io: CliIO): Promise<ExitCode> {
  if (flags.server !== undefined) {
    const query = flags.persona !== undefined ? `?persona=${encodeURIComponent(flags.persona)}` : '';
    const answer = await request(flags.server, 'GET', `tasks/snapshot${query}`, io, { json: flags.json });
    if (typeof answer === 'number') return answer;
    return printSnapshot(answer.body as unknown as TaskSnapshot, io, flags.json);
  }
  const plan = readPlan(paths, flags, io);
  if (typeof plan === 'number') return plan;
  const toolcap = await openToolcap(plan, io);
  if (typeof toolcap === 'number') return toolcap;
  try {
    const snapshot = await taskSnapshot(toolcap.runtime, toolcap.registry, new ProbeAdapters(), {
      principal: principalNamed(toolcap.config?.auth),
      ...(flags.persona !== undefined ? { persona: flags.persona } : {}),
      caller: cliCaller(),
    });
    return printSnapshot(snapshot, io, flags.json);
  } catch (error) {
    if (error instanceof CallError) return printError(error, io, flags.json);
    io.stderr(`toolcap: ${errorMessage(error)}\n`);
    return EXIT.FINDINGS;
  } finally {
    await toolcap.close();
  }
}
