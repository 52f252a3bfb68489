/**
 * Pieces every catalog command shares: loading with the common options
 * (including `--config`), and printing diagnostics.
 * @module
 */
import { existsSync } from 'node:fs';
import type { DialectId } from '../dialects/types.js';
import { configCatalogOptions, configLayers, DEFAULT_CONFIG_FILE, loadConfig, type Config } from '../config/config.js';
import { hasFailures, sortDiagnostics, type Diagnostic } from '../model/diagnostics.js';
import { buildCatalog, type CatalogResult } from '../registry/catalog.js';
import { createPythonImportChecker } from '../runtime/providers/python-check.js';
import type { PythonImportChecker } from '../validate/python-imports.js';
import { toolSettingsDiagnostics } from '../config/tool-settings.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { CliIO } from './io.js';
import { renderDiagnostic } from './render.js';

export interface LoadFlags {
  dialect?: string;
  compileSchemas?: boolean;
  /** A toolcap.config.yaml (or .json): its sources are the first layers. */
  config?: string;
}

/**
 * Apply the default config file: with no paths and no `--config`, use
 * ./toolcap.config.yaml when it exists. Returns the flags to use, or the
 * usage problem when there is nothing to load.
 */
export function resolveConfigFlag<F extends LoadFlags>(paths: readonly string[], flags: F, io: CliIO): F | undefined {
  if (flags.config !== undefined || paths.length > 0) return flags;
  if (existsSync(DEFAULT_CONFIG_FILE)) {
    io.stderr(`toolcap: using ./${DEFAULT_CONFIG_FILE}\n`);
    return { ...flags, config: DEFAULT_CONFIG_FILE };
  }
  io.stderr(`toolcap: give at least one file or folder, or --config <file> (or put a ${DEFAULT_CONFIG_FILE} in this folder)\n(run toolcap --help for usage)\n`);
  return undefined;
}

/**
 * Load paths as layers. With `--config`, the config's sources come first and
 * `paths` are added as later layers; a broken config yields its diagnostics
 * and an empty catalog.
 */
export function loadCatalog(paths: readonly string[], flags: LoadFlags): CatalogResult {
  if (flags.config === undefined) return buildCatalog(paths, catalogOptions(flags));
  const loaded = loadConfig(flags.config);
  if (!loaded.config) return configFailure(loaded.diagnostics, loaded.unreadable, loaded.sources);
  const result = catalogFromConfig(loaded.config, paths, flags, true);
  for (const [file, text] of loaded.sources) result.sources.set(file, text);
  const settings = toolSettingsDiagnostics(loaded.config.tools, result.catalog.tools.map((e) => e.value), process.env);
  result.diagnostics = sortDiagnostics([...loaded.diagnostics, ...result.diagnostics, ...settings]);
  return result;
}

/**
 * A catalog of the config's layers (when `withSources`: its sources, then
 * its persona folders) followed by `paths`, read with the config's limits.
 */
export function catalogFromConfig(config: Config, paths: readonly string[], flags: LoadFlags, withSources: boolean): CatalogResult {
  const layers = withSources ? configLayers(config, paths) : [...paths];
  return buildCatalog(layers, { ...catalogOptions(flags), ...configCatalogOptions(config) });
}

/** An empty catalog carrying the config's findings. */
export function configFailure(diagnostics: Diagnostic[], unreadable: boolean, sources: Map<string, string>): CatalogResult {
  const empty = buildCatalog([]);
  return { catalog: empty.catalog, diagnostics: sortDiagnostics([...diagnostics]), unreadable, sources };
}

function catalogOptions(flags: LoadFlags): { dialect?: DialectId; compileSchemas?: boolean; pythonImports: PythonImportChecker } {
  return {
    pythonImports: createPythonImportChecker(),
    ...(flags.dialect !== undefined ? { dialect: flags.dialect as DialectId } : {}),
    ...(flags.compileSchemas ? { compileSchemas: true } : {}),
  };
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
