/**
 * `toolcap validate <path>... [--strict] [--json] [--dialect D]`
 * @module
 */
import { hasFailures } from '../model/diagnostics.js';
import type { CliIO } from './io.js';
import { renderDiagnostic, summarize } from './render.js';
import { exitFor, loadCatalog, type LoadFlags } from './shared.js';
import type { ExitCode } from './exit-codes.js';

export interface ValidateFlags extends LoadFlags {
  strict?: boolean;
  json?: boolean;
}

export function validateCommand(paths: string[], flags: ValidateFlags, io: CliIO): ExitCode {
  const result = loadCatalog(paths, flags);
  const code = exitFor(result, flags.strict ?? false);
  if (flags.json) {
    const ok = !result.unreadable && !hasFailures(result.diagnostics, flags.strict ?? false);
    io.stdout(`${JSON.stringify({ ok, tools: result.catalog.tools.length, diagnostics: result.diagnostics }, null, 2)}\n`);
    return code;
  }
  for (const d of result.diagnostics) io.stdout(`${renderDiagnostic(d, result.sources)}\n`);
  io.stdout(`${summarize(result.catalog.tools.length, result.diagnostics)}\n`);
  return code;
}
