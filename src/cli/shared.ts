/**
 * Pieces every catalog command shares: loading with the common options,
 * and printing diagnostics.
 * @module
 */
import type { DialectId } from '../dialects/types.js';
import { hasFailures } from '../model/diagnostics.js';
import { buildCatalog, type CatalogResult } from '../registry/catalog.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';
import { renderDiagnostic } from './render.js';

export interface LoadFlags {
  dialect?: string;
  compileSchemas?: boolean;
}

/** Load paths as layers; errors in the options are usage errors. */
export function loadCatalog(paths: readonly string[], flags: LoadFlags): CatalogResult {
  return buildCatalog(paths, {
    ...(flags.dialect !== undefined ? { dialect: flags.dialect as DialectId } : {}),
    ...(flags.compileSchemas ? { compileSchemas: true } : {}),
  });
}

/** Print every diagnostic for people, on stderr. */
export function printDiagnostics(result: CatalogResult, io: CliIO): void {
  for (const d of result.diagnostics) io.stderr(`${renderDiagnostic(d, result.sources)}\n`);
}

/** The exit code a load result deserves. */
export function exitFor(result: CatalogResult, strict = false): ExitCode {
  if (result.unreadable) return EXIT.USAGE;
  return hasFailures(result.diagnostics, strict) ? EXIT.FINDINGS : EXIT.OK;
}
