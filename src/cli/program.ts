/**
 * The `toolcap` command: argument parsing only; every command is a function
 * of (paths, flags, io) returning an exit code.
 * @module
 */
import { Command, CommanderError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { dialectIds } from '../dialects/registry.js';
import { convertCommand, type ConvertFlags } from './convert.js';
import { DIFF_FORMATS, diffCommand, type DiffFlags } from './diff.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { inspectCommand, type InspectFlags } from './inspect.js';
import { processIO, type CliIO } from './io.js';
import { schemaCommand } from './schema-command.js';
import { resolveConfigFlag, type LoadFlags } from './shared.js';
import { validateCommand, type ValidateFlags } from './validate.js';

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function buildProgram(io: CliIO, done: (code: ExitCode) => void): Command {
  const configOption = () => new Option('--config <file>', 'a toolcap.config.yaml: its sources come first, paths given here are later layers (docs/config.md)');
  /** Run a catalog command once the paths and --config are settled; without either, a usage error. */
  const withPaths =
    <F extends LoadFlags>(command: (paths: string[], flags: F, io: CliIO) => ExitCode) =>
    (paths: string[], flags: F) => {
      const resolved = resolveConfigFlag(paths, flags, io);
      done(resolved === undefined ? EXIT.USAGE : command(paths, resolved, io));
    };
  const dialectOption = () => new Option('--dialect <dialect>', 'read every file as this format instead of detecting it').choices(dialectIds());
  const program = new Command('toolcap')
    .description('Capability-manifest registry for the tools AI agents call.')
    .version(version())
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(run toolcap --help for usage)');

  program
    .command('validate')
    .description('check manifests; exit 0 without errors, 1 with errors, 2 for bad usage or unreadable paths')
    .argument('[paths...]', 'files or folders; several paths are layers, later ones override earlier ones (optional with --config)')
    .option('--strict', 'warnings fail too')
    .option('--json', 'print {"ok", "tools", "diagnostics"} as JSON')
    .option('--compile-schemas', 'also compile every input/output schema (stricter, slower)')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<ValidateFlags>(validateCommand));

  program
    .command('inspect')
    .description('print the merged canonical catalog')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--persona <persona>', 'only what this persona sees (shared tools plus its own)')
    .option('--json', 'print {"tools", "skills", "agents", "jobs", "provenance"} as JSON')
    .option('--out <file>', 'also write that JSON to a file')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<InspectFlags>(inspectCommand));

  program
    .command('convert')
    .description('write the merged catalog in another format')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .addOption(new Option('--to <dialect>', 'the format to write').choices(dialectIds()).makeOptionMandatory())
    .option('--out <path>', 'a file, or a folder when the format writes several files')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<ConvertFlags>(convertCommand));

  program
    .command('diff')
    .description('compare two manifest sets; exit 1 when a tool escalates without a version bump or a side has errors, 2 for bad usage or unreadable paths')
    .argument('<old>', 'the old side: one file or folder, any format')
    .argument('[new]', 'the new side: one file or folder, any format (with --config: defaults to its sources)')
    .option('--json', 'print {"ok", "tools", "summary"} as JSON, every tool with its content hash')
    .addOption(new Option('--format <format>', 'text, or GitHub workflow annotations').choices(DIFF_FORMATS).conflicts('json'))
    .addOption(new Option('--config <file>', 'a toolcap.config.yaml: its limits apply to both sides, and its sources are the new side when <new> is not given'))
    .action((oldPath: string, newPath: string | undefined, flags: DiffFlags) => {
      if (newPath === undefined && flags.config === undefined) {
        io.stderr("toolcap: diff needs <old> and <new>, or <old> and --config <file>\n(run toolcap --help for usage)\n");
        done(EXIT.USAGE);
      } else done(diffCommand(oldPath, newPath, flags, io));
    });

  program
    .command('schema')
    .description('print the canonical JSON Schema (2020-12)')
    .action(() => done(schemaCommand(io)));

  return program;
}

/**
 * Run the toolcap command in-process.
 * @example const code = await run(['validate', 'examples/'], processIO);
 */
export async function run(argv: readonly string[], io: CliIO = processIO): Promise<ExitCode> {
  let code: ExitCode = EXIT.OK;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version end with exit code 0; everything else is a usage error
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    io.stderr(`toolcap: internal error (please report): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.INTERNAL;
  }
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.USAGE;
  }
  return code;
}
