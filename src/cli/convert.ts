/**
 * `toolcap convert <path>... --to <dialect> [--out F]`: write the merged
 * catalog in another format. Nothing is written when the input has errors.
 * @module
 */
import { resolve, sep } from 'node:path';
import { dialectIds, getDialect } from '../dialects/lookup.js';
import { hasFailures } from '../model/diagnostics.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { pathKind, serialize, writeOut, type CliIO } from './io.js';
import { toolsForExport } from '../registry/catalog.js';
import { exitFor, loadCatalog, printDiagnostics, type LoadFlags } from './shared.js';

export interface ConvertFlags extends LoadFlags {
  to: string;
  out?: string;
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
  const { catalog } = result;
  const files = dialect.export({
    ...(catalog.bundles[0] ? { bundle: catalog.bundles[0] } : {}),
    tools: toolsForExport(catalog, dialect.id),
    skills: catalog.skills.map((e) => e.value),
    agents: catalog.agents.map((e) => e.value),
    jobs: catalog.jobs.map((e) => e.value),
  });
  if (files.length === 0) {
    const empty = catalog.tools.length + catalog.skills.length + catalog.agents.length + catalog.jobs.length === 0;
    io.stderr(`toolcap: nothing to write: ${empty ? 'the catalog is empty' : `the ${dialect.id} format has no place for these entries`}.\n`);
    return EXIT.FINDINGS;
  }
  const [only] = files;
  if (flags.out === undefined) {
    if (files.length > 1 || !only) {
      io.stderr(`toolcap: the ${dialect.id} format writes ${files.length} files (${files.map((f) => f.path).join(', ')}); give --out <folder>.\n`);
      return EXIT.USAGE;
    }
    io.stdout(serialize(only.value, only.format));
    return EXIT.OK;
  }
  const refuse = (problem: string) => {
    io.stderr(`toolcap: ${problem}\n`);
    return EXIT.USAGE;
  };
  if (files.length === 1 && only) {
    if (pathKind(flags.out) === 'folder') return refuse(`${flags.out} is a folder; give a file name`);
    const format = flags.out.endsWith('.json') ? 'json' : /\.ya?ml$/.test(flags.out) ? 'yaml' : only.format;
    const problem = writeOut(flags.out, serialize(only.value, format));
    if (problem !== undefined) return refuse(problem);
    io.stderr(`Wrote ${flags.out}\n`);
    return EXIT.OK;
  }
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
