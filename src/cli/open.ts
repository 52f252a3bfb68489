/**
 * How the commands that run tools (`serve`, `mcp serve`, `call`,
 * `approvals`, `audit`) start: read the config once, then open a toolcap
 * from it through the host, printing why not when it cannot (and returning
 * the exit code that deserves).
 * @module
 */
import { loadConfig, type Config } from '../config/config.js';
import type { DialectId } from '../dialects/types.js';
import { createToolcap, ToolcapOpenError, type Toolcap, type ToolcapOptions } from '../host.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { logLine, type CliIO } from './io.js';
import { renderDiagnostic } from './render.js';
import { configFailure, printDiagnostics, type LoadFlags } from './shared.js';

/** What a command runs over: the config (read once, here) and the paths given besides it. */
export interface RunPlan {
  config: Config | undefined;
  paths: readonly string[];
  flags: LoadFlags;
}

/** Read `--config` (when given); a broken config is printed and yields its exit code (1, or 2 when unreadable). */
export function readPlan(paths: readonly string[], flags: LoadFlags, io: CliIO): RunPlan | ExitCode {
  if (flags.config === undefined) return { config: undefined, paths, flags };
  const loaded = loadConfig(flags.config);
  if (loaded.config) return { config: loaded.config, paths, flags };
  printDiagnostics(configFailure(loaded.diagnostics, loaded.unreadable, loaded.sources), io);
  return loaded.unreadable ? EXIT.USAGE : EXIT.FINDINGS;
}

/** The host's options a command chooses (the rest comes from the plan and `io`). */
export type OpenOptions = Pick<ToolcapOptions, 'watch' | 'mcp' | 'traces' | 'seedHealth'>;

/**
 * Open a toolcap for a plan; its messages go to stderr as `toolcap: …`.
 * Resolves to the toolcap, or to an exit code after printing why not
 * (1: the catalog has errors; 2: a path or the store cannot be opened).
 */
export async function openToolcap(plan: RunPlan, io: CliIO, options: OpenOptions = {}): Promise<Toolcap | ExitCode> {
  try {
    return await createToolcap(plan.config, {
      ...options,
      paths: plan.paths,
      ...(plan.flags.dialect !== undefined ? { dialect: plan.flags.dialect as DialectId } : {}),
      ...(plan.flags.compileSchemas ? { compileSchemas: true } : {}),
      warn: (message) => io.stderr(`toolcap: ${logLine(message)}\n`),
    });
  } catch (error) {
    if (!(error instanceof ToolcapOpenError)) throw error;
    if (error.reason === 'store') {
      io.stderr(`toolcap: ${error.message}\n`);
      return EXIT.USAGE;
    }
    for (const d of error.diagnostics) if (d.severity === 'error') io.stderr(`${renderDiagnostic(d, new Map())}\n`);
    io.stderr('toolcap: the catalog has errors; nothing to serve or run. Fix them (toolcap validate shows them with excerpts).\n');
    return error.unreadable ? EXIT.USAGE : EXIT.FINDINGS;
  }
}
