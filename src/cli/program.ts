/**
 * The `toolcap` command: argument parsing only; every command is a function
 * of (paths, flags, io) returning an exit code.
 * @module
 */
import { Command, CommanderError, Option } from 'commander';
import { dialectIds } from '../dialects/lookup.js';
import { approvalsCommand, auditCommand, callCommand, type ApprovalsFlags, type AuditFlags, type CallFlags } from './call.js';
import { convertCommand, type ConvertFlags } from './convert.js';
import { DIFF_FORMATS, diffCommand, type DiffFlags } from './diff.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { inspectCommand, type InspectFlags } from './inspect.js';
import { processIO, type CliIO } from './io.js';
import { listCommand, searchCommand, type ListFlags, type SearchFlags } from './query.js';
import { mcpServeCommand, type McpServeFlags } from './mcp.js';
import { schemaCommand } from './schema-command.js';
import { serveCommand, type ServeFlags } from './serve.js';
import { toolcapVersion } from '../model/version.js';
import { resolveConfigFlag, type LoadFlags } from './shared.js';
import { validateCommand, type ValidateFlags } from './validate.js';

function buildProgram(io: CliIO, done: (code: ExitCode) => void): Command {
  const configOption = () => new Option('--config <file>', 'a toolcap.config.yaml: its sources come first, paths given here are later layers (docs/config.md)');
  /** Run a catalog command once the paths and --config are settled; without either, a usage error. */
  const withPaths =
    <F extends LoadFlags>(command: (paths: string[], flags: F, io: CliIO) => ExitCode | Promise<ExitCode>) =>
    async (paths: string[], flags: F) => {
      const resolved = resolveConfigFlag(paths, flags, io);
      done(resolved === undefined ? EXIT.USAGE : await command(paths, resolved, io));
    };
  const dialectOption = () => new Option('--dialect <dialect>', 'read every file as this format instead of detecting it').choices(dialectIds());
  const program = new Command('toolcap')
    .description('Capability-manifest registry for the tools AI agents call.')
    .version(toolcapVersion())
    .exitOverride()
    // options after a command name belong to it (list/search have their own --version)
    .enablePositionalOptions()
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

  const collect = (value: string, previous: string[] = []) => [...previous, value];
  const filterOptions = (command: Command) =>
    command
      .option('--persona <persona>', 'include this persona\'s tools (repeatable; shared tools always, unless -shared is one of them)', collect)
      .option('--provider <name>', 'a provider the tool lists')
      .option('--version <range>', 'a semver range, e.g. ">=1.2"')
      .option('--min-success-rate <rate>', 'minimum observed success rate, 0..1 (tools without data pass)')
      .option('--side-effects <level>', 'at most this side-effect severity')
      .option('--mode <mode>', 'read, mixed or write')
      .option('--max-risk <level>', 'at most this risk level')
      .option('--tag <tag>', 'a tag the tool has')
      .option('--domain <domain>', 'a surface domain')
      .option('--operation <operation>', 'a surface operation')
      .option('--capability <capability>', 'a capability, exact (tasks.probe) or a prefix (tasks.*)')
      .option('--approval <bool>', 'true: only tools needing approval; false: only those that do not')
      .option('--enabled <bool>', 'true or false (default: both)');

  filterOptions(
    program
      .command('list')
      .description('list tools with the /tools filters (docs/query.md); exit 1 when the catalog has errors')
      .argument('[paths...]', 'files or folders, as layers in order (optional with --config)'),
  )
    .option('--limit <n>', 'at most this many tools')
    .option('--json', 'print the /tools answer as JSON')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<ListFlags>(listCommand));

  filterOptions(
    program
      .command('search')
      .description('rank tools for a task in words: fit minus capability penalties (docs/query.md)')
      .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
      .requiredOption('--query <text>', 'the task, in words'),
  )
    .option('--limit <n>', 'candidates to show (1-100)', '10')
    .option('--explain', 'show every penalty with its reason, and the safer alternatives')
    .option('--json', 'print the /search answer as JSON')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<SearchFlags>(searchCommand));

  program
    .command('serve')
    .description('serve the registry over HTTP, reloading when the manifests change; Ctrl-C stops')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--port <n>', 'port to listen on (default: the config\'s server.port, else 4317; 0 picks a free one)')
    .option('--host <host>', 'address to listen on (default: the config\'s server.host, else 127.0.0.1)')
    .option('--no-watch', 'do not reload when files change')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<ServeFlags>((paths, flags) => serveCommand(paths, flags, io)));

  program
    .command('call')
    .description('call a tool through the runtime: arguments checked, approval, providers by priority, timeout, retries, audit; exit 1 when the call fails')
    .argument('<tool>', 'the tool name')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--args <json>', 'the arguments, a JSON object', '{}')
    .option('--persona <persona>', 'call as this persona (only its tools and the shared ones exist)')
    .option('--caller <id>', 'who is calling, for the audit log (default cli:$USER)')
    .option('--idempotency-key <key>', 'makes a guarded tool retryable')
    .option('--json', 'print the result (or the pending approval) as JSON')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(async (tool: string, paths: string[], flags: CallFlags) => {
      const resolved = resolveConfigFlag(paths, flags, io);
      done(resolved === undefined ? EXIT.USAGE : await callCommand(tool, paths, resolved, io));
    });

  const approvals = program.command('approvals').description('list and decide approval requests (in the store the config names)');
  approvals
    .command('list')
    .description('pending approvals (or --status)')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--status <status>', 'pending, approved, denied, expired, void, executed or failed')
    .option('--json', 'print {"approvals": [...]} as JSON')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<ApprovalsFlags>((paths, flags) => approvalsCommand('list', undefined, paths, flags, io)));
  for (const action of ['approve', 'deny'] as const) {
    approvals
      .command(action)
      .description(action === 'approve' ? 'approve and run exactly the reviewed call (void if the manifest changed since)' : 'deny the request')
      .argument('<id>', 'the approval id')
      .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
      .option('--by <id>', 'who decides, for the audit log (default cli:$USER)')
      .option('--note <text>', 'a note for the audit log')
      .option('--json', 'print the outcome as JSON')
      .addOption(dialectOption())
      .addOption(configOption())
      .action(async (id: string, paths: string[], flags: ApprovalsFlags) => {
        const resolved = resolveConfigFlag(paths, flags, io);
        done(resolved === undefined ? EXIT.USAGE : await approvalsCommand(action, id, paths, resolved, io));
      });
  }

  const mcp = program.command('mcp').description('toolcap as an MCP server (the gated catalog for any MCP client)');
  mcp
    .command('serve')
    .description('serve the persona\'s tools over MCP on stdio: tools/list with capability metadata, tools/call through approvals and providers; reloads send list_changed')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--persona <persona>', 'serve this persona\'s tools (default: the shared tools only)')
    .option('--caller <id>', 'who calls, for the audit log (default: mcp:<client name>)')
    .option('--no-watch', 'do not reload when files change')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<McpServeFlags>((paths, flags) => mcpServeCommand(paths, flags, io)));

  program
    .command('audit')
    .description('print the audit log (calls, approval requests and decisions), oldest first')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--tool <name>', 'only this tool')
    .option('--call-id <id>', 'only this call')
    .option('--after <seq>', 'only records after this sequence number')
    .option('--limit <n>', 'at most this many (default 100)')
    .option('--json', 'print {"audit": [...]} as JSON')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<AuditFlags>((paths, flags) => auditCommand(paths, flags, io)));

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
