/**
 * `toolcap convert <path>... --to <dialect> [--out F] [--set field=value]...
 * [--fill file]`: write the merged catalog in another format. Nothing is
 * written when the input has errors, nor when the output would not pass the
 * target format's own validation (convert-check.ts): then the fields the
 * target requires are named per entry, and the user may supply them
 * (convert-fill.ts).
 * @module
 */
import { resolve, sep } from 'node:path';
import { dialectIds, getDialect } from '../dialects/lookup.js';
import { hasFailures } from '../model/diagnostics.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { pathKind, serialize, writeOut, type CliIO } from './io.js';
import { jsonFileChunks } from './json-chunks.js';
import { personaTools, toolsForExport, type Catalog } from '../registry/catalog.js';
import { exitFor, loadCatalog, printDiagnostics, type LoadFlags } from './shared.js';
import type { DialectId, ExportedFile } from '../dialects/types.js';
import { DEFAULT_LIMITS, type ParseLimits } from '../source/source.js';
import { checkExport, exportPathEscapes, reportLines, undetected } from './convert-check.js';
import { applyFills, hasFills, parseSets, readFillFile, type Fills } from './convert-fill.js';
import { nameFiles, namesPathOf, reportNameChanges } from './convert-names.js';

export interface ConvertFlags extends LoadFlags {
  to: string;
  out?: string;
  /** `field=value` for fields the target requires and the source lacks (every entry that lacks one). */
  set?: string[];
  /** A YAML/JSON file: entry name (or `*`) -> field values. */
  fill?: string;
  /** Convert only what this persona sees (shared tools plus its own, its own shadowing shared ones). */
  persona?: string;
}

export function convertCommand(paths: string[], flags: ConvertFlags, io: CliIO): ExitCode {
  const dialect = getDialect(flags.to);
  if (!dialect) {
    io.stderr(`toolcap: unknown dialect "${flags.to}"; use one of: ${dialectIds().join(', ')}\n`);
    return EXIT.USAGE;
  }
  const result = loadCatalog(paths, flags);
  printDiagnostics(result, io);
  if (result.unreadable || hasFailures(result.diagnostics)) {
    io.stderr('toolcap: not converted: fix the errors above first.\n');
    return exitFor(result);
  }
  const fills = userFills(flags);
  if (typeof fills === 'string') {
    io.stderr(`toolcap: ${fills}\n`);
    return EXIT.USAGE;
  }
  const catalog = flags.persona === undefined ? result.catalog : personaCatalog(result.catalog, flags.persona);
  const exported = dialect.export(
    {
      ...(catalog.bundles[0] ? { bundle: catalog.bundles[0] } : {}),
      tools: toolsForExport(catalog, dialect.id),
      skills: catalog.skills.map((e) => e.value),
      agents: catalog.agents.map((e) => e.value),
      jobs: catalog.jobs.map((e) => e.value),
    },
    // standard output is one stream: a format that pages large exports writes them whole there
    { oneFile: flags.out === undefined },
  );
  if (exported.length === 0) {
    const empty = catalog.tools.length + catalog.skills.length + catalog.agents.length + catalog.jobs.length === 0;
    io.stderr(`toolcap: nothing to write: ${empty ? 'the catalog is empty' : `the ${dialect.id} format has no place for these entries`}.\n`);
    return EXIT.FINDINGS;
  }
  // Paths come from manifest data (persona names): refuse any that would leave --out before staging or writing anything.
  const escaping = exported.find((file) => exportPathEscapes(file.path));
  if (escaping) {
    io.stderr(`toolcap: refused to write ${JSON.stringify(escaping.path)}: it points outside ${flags.out ?? 'the output folder'}\n`);
    return EXIT.FINDINGS;
  }
  // standard output is checked whole: past the size toolcap reads by default (limits.maxBytes) it is still the output asked for
  const checked = verified(exported, dialect.id, fills, io, flags.out === undefined ? { maxBytes: Number.MAX_SAFE_INTEGER } : undefined);
  if (checked === undefined) return EXIT.FINDINGS;
  reportNameChanges(checked, dialect.id, io);
  const [only] = checked;
  if (flags.out === undefined) {
    if (checked.length > 1 || !only) {
      io.stderr(`toolcap: the ${dialect.id} format writes ${checked.length} files (${checked.map((f) => f.path).join(', ')}); give --out <folder>.\n`);
      return EXIT.USAGE;
    }
    let bytes = 0;
    if (only.format === 'yaml') io.stdout(serialize(only.value, 'yaml'));
    else {
      // in pieces: one listing of a large spec (Stripe's, about 370 MB indented) is past what one string can hold
      for (const piece of jsonFileChunks(only.value)) {
        bytes += Buffer.byteLength(piece);
        io.stdout(piece);
      }
    }
    if (bytes > DEFAULT_LIMITS.maxBytes) {
      io.stderr(`toolcap: note: wrote ${bytes} bytes, past what toolcap reads by default (limits.maxBytes, ${DEFAULT_LIMITS.maxBytes}); raise that limit to read it back, or write files of at most that size with --out <folder>.\n`);
    }
    return EXIT.OK;
  }
  const refuse = (problem: string) => {
    io.stderr(`toolcap: ${problem}\n`);
    return EXIT.USAGE;
  };
  if (checked.length === 1 && only) {
    if (pathKind(flags.out) === 'folder') return refuse(`${flags.out} is a folder; give a file name`);
    const format = flags.out.endsWith('.json') ? 'json' : /\.ya?ml$/.test(flags.out) ? 'yaml' : only.format;
    const problem = writeOut(flags.out, serialize(only.value, format));
    if (problem !== undefined) return refuse(problem);
    io.stderr(`Wrote ${flags.out}\n`);
    if (only.names !== undefined) {
      const names = namesPathOf(flags.out);
      const failed = writeOut(names, serialize(only.names, 'json'));
      if (failed !== undefined) return refuse(failed);
      io.stderr(`Wrote ${names} (the name mapping)\n`);
    }
    return EXIT.OK;
  }
  const files = [...checked, ...nameFiles(checked)];
  if (pathKind(flags.out) === 'other') return refuse(`the ${dialect.id} format writes ${files.length} files; ${flags.out} must be a folder`);
  const root = resolve(flags.out);
  // Check every target before writing any, so a refusal leaves nothing half-written.
  const targets = files.map((file) => ({ file, target: resolve(root, ...file.path.split('/')) }));
  for (const { file, target } of targets) {
    // Paths come from manifest data (persona names): never write outside --out.
    // a finding about the data (exit 1), not about the command line
    if (!target.startsWith(root + sep) || file.path.includes('\u0000')) {
      io.stderr(`toolcap: refused to write ${JSON.stringify(file.path)}: it points outside ${flags.out}\n`);
      return EXIT.FINDINGS;
    }
  }
  for (const { file, target } of targets) {
    const problem = writeOut(target, serialize(file.value, file.format));
    if (problem !== undefined) return refuse(problem);
    io.stderr(`Wrote ${target}\n`);
  }
  return EXIT.OK;
}

/** The values the user passes with --set and --fill: per-entry values first, then --set, then the file's "*". */
function userFills(flags: ConvertFlags): Fills | string {
  const sets = parseSets(flags.set ?? []);
  if (sets.problem !== undefined) return sets.problem;
  const file = flags.fill === undefined ? { fills: { all: {}, byEntry: {} } } : readFillFile(flags.fill);
  if (file.problem !== undefined || !file.fills) return file.problem ?? 'the fill file is unusable';
  return { all: { ...file.fills.all, ...sets.fills }, byEntry: file.fills.byEntry };
}

/**
 * The files to write, once they pass the target's validation (after the
 * user's values are filled in); undefined, with the report printed, when
 * they do not.
 */
function verified(exported: readonly ExportedFile[], target: DialectId, fills: Fills, io: CliIO, limits?: Partial<ParseLimits>): ExportedFile[] | undefined {
  let files = [...exported];
  let findings = checkExport(files, target, limits);
  if (hasFills(fills) && hasFailures(findings.map((f) => f.diagnostic))) {
    files = files.map((f) => ({ ...f, value: structuredClone(f.value) }));
    const filled = applyFills(files, findings, fills);
    for (const line of filled) io.stderr(`Filled ${line}\n`);
    if (filled.length > 0) findings = checkExport(files, target, limits);
  }
  const diagnostics = findings.map((f) => f.diagnostic);
  if (hasFailures(diagnostics)) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    io.stderr(`toolcap: not converted: the ${target} output would fail ${target} validation (${errors} error${errors === 1 ? '' : 's'}); nothing was written.\n`);
    for (const line of reportLines(findings, files)) io.stderr(`${line}\n`);
    if (diagnostics.some((d) => d.code === 'MISSING_FIELD' && d.field !== undefined)) {
      io.stderr(
        `Supply what the ${target} format requires with --set <field>=<value> (every entry that lacks it; a JSON value or a string)\n` +
          'or --fill <file> (YAML/JSON: entry name or "*" -> fields); field names as listed above.\n',
      );
    }
    if (diagnostics.some((d) => d.code === 'FILE_TOO_LARGE')) io.stderr('The output is too large to read back as one file: give --out <folder>, where a format that can writes it as pages.\n');
    if (diagnostics.some((d) => d.code === 'DUPLICATE_TOOL' || d.code === 'DUPLICATE_ENTRY')) {
      io.stderr(`The ${target} format cannot hold two personas' versions of one tool: convert one persona's view with --persona <name>.\n`);
    }
    return undefined;
  }
  const unknown = undetected(files, target);
  if (unknown.length > 0) io.stderr(`toolcap: note: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} valid ${target} but not recognised as ${target} by detection; read ${unknown.length === 1 ? 'it' : 'them'} with --dialect ${target}.\n`);
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  if (warnings > 0) io.stderr(`toolcap: the ${target} output has ${warnings} warning${warnings === 1 ? '' : 's'} (toolcap validate --dialect ${target} on it shows them).\n`);
  return files;
}

/** The catalog as one persona sees it: a flat format cannot hold two personas' versions of one tool. */
function personaCatalog(catalog: Catalog, persona: string): Catalog {
  const visible = new Set(personaTools(catalog, persona));
  return { ...catalog, tools: catalog.tools.filter((e) => visible.has(e.value)) };
}
