/**
 * Resource limits for a child process, from a manifest's
 * `execution.resources`: memory (MB), CPU time (seconds) and open files.
 *
 * On Linux they are enforced by starting the command through `prlimit`
 * (util-linux), which sets the limits and then execs the command, so the
 * pid stays the command's and the limits pass to its children. Memory is
 * RLIMIT_DATA, not RLIMIT_AS: V8 reserves far more address space than it
 * uses, so an address-space limit stops `node` from starting at all. CPU
 * is a soft limit (SIGXCPU) with the hard one (SIGKILL) a second later.
 * Elsewhere, or without `prlimit`, the limits are reported as unenforced.
 * @module
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The limits toolcap knows how to enforce. */
export const RESOURCE_LIMITS = ['memoryMb', 'cpuSec', 'openFiles'] as const;
export type ResourceLimitName = (typeof RESOURCE_LIMITS)[number];
export type ResourceLimits = Partial<Record<ResourceLimitName, number>>;

/** Spellings of each limit in `execution.resources` (Pylot's runtime hints use snake case). */
const ALIASES: Record<ResourceLimitName, readonly string[]> = {
  memoryMb: ['memoryMb', 'memory_mb', 'maxMemoryMb', 'max_memory_mb'],
  cpuSec: ['cpuSec', 'cpu_sec', 'cpuSeconds', 'cpu_seconds', 'maxCpuSeconds'],
  openFiles: ['openFiles', 'open_files', 'maxOpenFiles', 'max_open_files'],
};

/**
 * The limits an `execution.resources` object declares, and what is wrong
 * with it (a value that is not a positive integer). Other keys are hints
 * toolcap does not enforce and are ignored.
 * @example readResourceLimits({ memory_mb: 256, timeout_seconds: 10 }) // { limits: { memoryMb: 256 }, problems: [] }
 */
export function readResourceLimits(resources: Readonly<Record<string, unknown>> | undefined): { limits: ResourceLimits; problems: string[] } {
  const limits: ResourceLimits = {};
  const problems: string[] = [];
  for (const name of RESOURCE_LIMITS) {
    const key = ALIASES[name].find((k) => resources?.[k] !== undefined);
    if (key === undefined) continue;
    const value = resources?.[key];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) limits[name] = value;
    else problems.push(`execution.resources.${key} must be a positive integer`);
  }
  return { limits, problems };
}

/** `prlimit` on PATH, or undefined (not Linux, or util-linux missing). */
export function findPrlimit(path: string | undefined = process.env['PATH']): string | undefined {
  if (process.platform !== 'linux') return undefined;
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'prlimit');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** How to start a command under limits. */
export interface LimitedCommand {
  command: string;
  args: string[];
  /** Declared limits that could not be enforced here. */
  unenforced: ResourceLimitName[];
}

/**
 * The command line that runs `command` under `limits`.
 * @param prlimit the `prlimit` binary; null: none available. @default findPrlimit()
 */
export function withResourceLimits(command: string, args: readonly string[], limits: ResourceLimits, prlimit: string | null = findPrlimit() ?? null): LimitedCommand {
  const declared = RESOURCE_LIMITS.filter((name) => limits[name] !== undefined);
  if (declared.length === 0) return { command, args: [...args], unenforced: [] };
  if (prlimit === null) return { command, args: [...args], unenforced: declared };
  const flags: string[] = [];
  if (limits.memoryMb !== undefined) flags.push(`--data=${limits.memoryMb * 1024 * 1024}`);
  if (limits.cpuSec !== undefined) flags.push(`--cpu=${limits.cpuSec}:${limits.cpuSec + 1}`);
  if (limits.openFiles !== undefined) flags.push(`--nofile=${limits.openFiles}`);
  return { command: prlimit, args: [...flags, '--', command, ...args], unenforced: [] };
}
