/**
 * Contained child processes: each starts as the leader of its own process
 * group, and is ended as a group, so the grandchildren a tool leaves behind
 * (`sleep 300 &`) end with it instead of living on under PID 1.
 *
 * Ending a group: the signal (SIGTERM) to every member, then SIGKILL to
 * whatever is left after the grace period. Call {@link killGroup} on
 * timeout, on abort, and after every call, a successful one too: the leader
 * exiting does not end its group.
 *
 * Limits: a group leader is not killed when the server dies (`detached`
 * children do not get the parent's SIGHUP), so a server killed with -9
 * leaves its running tools behind. Windows has no process groups: there
 * the child alone is killed.
 * @module
 */
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readResourceLimits, withResourceLimits, type ResourceLimitName } from './resource-limits.js';

/** Default SIGTERM -> SIGKILL delay. */
export const DEFAULT_KILL_GRACE_MS = 2000;
/** How often a group is checked for members while ending it. */
const POLL_MS = 25;
/** Longest wait for the kernel to remove SIGKILLed processes. */
const AFTER_KILL_MS = 1000;

/** Options of {@link containedSpawn}. */
export interface ContainedSpawnOptions {
  /** The child's whole environment (see ./child-env.ts). Nothing of the parent's is added. */
  env: Record<string, string>;
  cwd?: string;
  /** The manifest's `execution.resources`. */
  resources?: Readonly<Record<string, unknown>>;
  /** @default ['pipe', 'pipe', 'pipe'] */
  stdio?: StdioOptions;
  /** The `prlimit` binary; null: enforce nothing. @default found on PATH */
  prlimit?: string | null;
}

/** A started child and what of its limits is not enforced. */
export interface ContainedChild {
  child: ChildProcess;
  /** Declared limits this platform cannot enforce (say so in `ready()` or a warning). */
  unenforced: ResourceLimitName[];
  /** Problems with the declared `execution.resources` (not positive integers). */
  problems: string[];
}

/**
 * Start `command` without a shell, in a new process group, under the
 * declared resource limits.
 * @example
 * const { child } = containedSpawn('/usr/bin/tool', [], { env: envAllowList({ declared: ['API_TOKEN'] }) });
 * child.once('close', () => void killGroup(child));
 */
export function containedSpawn(command: string, args: readonly string[], options: ContainedSpawnOptions): ContainedChild {
  const { limits, problems } = readResourceLimits(options.resources);
  const limited = options.prlimit === undefined ? withResourceLimits(command, args, limits) : withResourceLimits(command, args, limits, options.prlimit);
  const child = spawn(limited.command, limited.args, {
    env: options.env,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    stdio: options.stdio ?? ['pipe', 'pipe', 'pipe'],
    shell: false,
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
  return { child, unenforced: limited.unenforced, problems };
}

/** Send `signal` to the group led by `pgid`; false when the group is gone. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/**
 * True when some member of the group still runs. Killed grandchildren are
 * reparented to PID 1 and stay zombies until it reaps them (some container
 * inits do so only every second or so); a zombie runs nothing, so on Linux
 * members are read from /proc and zombies do not count.
 */
function groupRunning(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

async function groupGone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (groupRunning(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
  return true;
}

/** Options of {@link killGroup}. */
export interface KillGroupOptions {
  /** The first signal. @default 'SIGTERM' */
  signal?: NodeJS.Signals;
  /** Milliseconds before SIGKILL. @default DEFAULT_KILL_GRACE_MS */
  graceMs?: number;
}

/**
 * End the child's whole process group: `signal`, then SIGKILL after
 * `graceMs` to what is left. Resolves true once no member runs (zombies
 * waiting for PID 1 to reap them do not count), false when one still does
 * a second after SIGKILL (uninterruptible sleep).
 */
export async function killGroup(child: ChildProcess, options: KillGroupOptions = {}): Promise<boolean> {
  const pgid = child.pid;
  if (pgid === undefined) return true; // never started
  if (process.platform === 'win32') {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return true;
  }
  if (!signalGroup(pgid, options.signal ?? 'SIGTERM')) return true;
  if (await groupGone(pgid, options.graceMs ?? DEFAULT_KILL_GRACE_MS)) return true;
  signalGroup(pgid, 'SIGKILL');
  return groupGone(pgid, AFTER_KILL_MS);
}
