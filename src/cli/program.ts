/**
 * The `toolcap` command: argument parsing only; every command is a function
 * of (paths, flags, io) returning an exit code.
 *
 * Each command's module is imported when the command runs, not before: this
 * file loads commander and little else, so `toolcap --help` and `--version`
 * answer at once and `toolcap validate` does not load the HTTP server, the
 * MCP SDK, the store drivers or the telemetry exporters.
 * @module
 */
import { Command, CommanderError, Option } from 'commander';
import { existsSync } from 'node:fs';
import { DEFAULT_CONFIG_FILE } from '../config/file-name.js';
import { DEFAULT_REGISTRY } from '../config/registry/official.js';
import { DIALECT_IDS } from '../dialects/types.js';
import { learnedDialectIds } from '../runtime/learned/documents.js';
import type { ApprovalsFlags, AuditFlags, CallFlags } from './call.js';
import type { ConvertFlags } from './convert.js';
import type { DiffFlags, DiffFormat } from './diff.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import type { InspectFlags } from './inspect.js';
import type { KeysFlags } from './keys.js';
import type { LearnedFlags } from './learned.js';
import { processIO, type CliIO } from './io.js';
import type { ListFlags, SearchFlags } from './query.js';
import type { McpServeFlags } from './mcp.js';
import type { McpAddFlags } from './mcp-add.js';
import type { OAuthFlags } from './oauth.js';
import type { TasksFlags } from './tasks.js';
import type { ServeFlags } from './serve.js';
import { toolcapVersion } from '../model/version.js';
import type { LoadFlags } from './shared.js';
import type { ValidateFlags } from './validate.js';

/** `diff --format` choices: a record over diff.ts's DiffFormat, so the types catch a format missing or unknown here. */
const DIFF_FORMATS: Readonly<Record<DiffFormat, true>> = { text: true, github: true };

/** Collect a repeatable option's values. */
const collectValues = (value: string, previous: string[] = []): string[] => [...previous, value];

function buildProgram(io: CliIO, done: (code: ExitCode) => void): Command {
  const configOption = () => new Option('--config <file>', 'a toolcap.config.yaml: its sources come first, paths given here are later layers (docs/config.md)');
  /** Run a catalog command once the paths and --config are settled; without either, a usage error. */
  const withPaths =
    <F extends LoadFlags>(command: (paths: string[], flags: F, io: CliIO) => ExitCode | Promise<ExitCode>) =>
    async (paths: string[], flags: F) => {
      const { resolveConfigFlag } = await import('./shared.js');
      const resolved = resolveConfigFlag(paths, flags, io);
      done(resolved === undefined ? EXIT.USAGE : await command(paths, resolved, io));
    };
  const dialectOption = () => new Option('--dialect <dialect>', 'read every file as this format instead of detecting it').choices(DIALECT_IDS);
  const serverOption = () => new Option('--server <url>', 'a running toolcap serve to talk to, as the principal of $TOOLCAP_API_KEY (default: this config\'s store, as its local principal)');
  /** With --server no catalog is read: neither paths nor a config are needed. */
  const withServer =
    <F extends LoadFlags & { server?: string }>(command: (paths: string[], flags: F) => Promise<ExitCode>) =>
    async (paths: string[], flags: F) => {
      const resolved = flags.server !== undefined ? flags : (await import('./shared.js')).resolveConfigFlag(paths, flags, io);
      done(resolved === undefined ? EXIT.USAGE : await command(paths, resolved));
    };
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
    .action(withPaths<ValidateFlags>(async (p, f) => (await import('./validate.js')).validateCommand(p, f, io)));

  program
    .command('inspect')
    .description('print the merged canonical catalog')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--persona <persona>', 'only what this persona sees (shared tools plus its own)')
    .option('--json', 'print {"tools", "skills", "agents", "jobs", "provenance"} as JSON')
    .option('--out <file>', 'also write that JSON to a file')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<InspectFlags>(async (p, f) => (await import('./inspect.js')).inspectCommand(p, f, io)));

  program
    .command('convert')
    .description('write the merged catalog in another format')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .addOption(new Option('--to <dialect>', 'the format to write').choices(DIALECT_IDS).makeOptionMandatory())
    .option('--out <path>', 'a file, or a folder when the format writes several files')
    .option('--set <field=value>', 'a value for a field the target format requires and the source lacks, for every entry missing it (JSON or a string; repeatable)', collectValues)
    .option('--fill <file>', 'values for required fields per entry: YAML/JSON mapping entry names (or "*") to fields')
    .option('--persona <persona>', 'convert only what this persona sees (a format without personas cannot hold two versions of one tool)')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<ConvertFlags>(async (p, f) => (await import('./convert.js')).convertCommand(p, f, io)));

  program
    .command('diff')
    .description('compare two manifest sets; exit 1 when a tool escalates without a version bump or a side has errors, 2 for bad usage or unreadable paths')
    .argument('<old>', 'the old side: one file or folder, any format')
    .argument('[new]', 'the new side: one file or folder, any format (with --config: defaults to its sources)')
    .option('--json', 'print {"ok", "tools", "summary"} as JSON, every tool with its content hash')
    .addOption(new Option('--format <format>', 'text, or GitHub workflow annotations').choices(Object.keys(DIFF_FORMATS)).conflicts('json'))
    .addOption(new Option('--config <file>', 'a toolcap.config.yaml: its limits apply to both sides, and its sources are the new side when <new> is not given'))
    .action(async (oldPath: string, newPath: string | undefined, flags: DiffFlags) => {
      if (newPath === undefined && flags.config === undefined) {
        io.stderr("toolcap: diff needs <old> and <new>, or <old> and --config <file>\n(run toolcap --help for usage)\n");
        done(EXIT.USAGE);
      } else done((await import('./diff.js')).diffCommand(oldPath, newPath, flags, io));
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
      .option('--enabled <which>', 'true, false or any (default: true, enabled tools only)');

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
    .action(withPaths<ListFlags>(async (p, f) => (await import('./query.js')).listCommand(p, f, io)));

  filterOptions(
    program
      .command('search')
      .description('rank tools for a task in words: fit minus capability penalties (docs/query.md)')
      .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
      .requiredOption('--query <text>', 'the task, in words'),
  )
    .option('--limit <n>', 'candidates to show (1-100)', '10')
    .addOption(new Option('--intent <intent>', 'the task\'s intent, instead of the one read from its words').choices(['read', 'write', 'unknown']))
    .option('--explain', 'show the intent\'s evidence, every penalty with its reason, and the safer alternatives')
    .option('--json', 'print the /search answer as JSON')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<SearchFlags>(async (p, f) => (await import('./query.js')).searchCommand(p, f, io)));

  program
    .command('serve')
    .description('serve the registry over HTTP, reloading when the manifests change; Ctrl-C stops')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--port <n>', 'port to listen on (default: the config\'s server.port, else 4317; 0 picks a free one)')
    .option('--host <host>', 'address to listen on (default: the config\'s server.host, else 127.0.0.1)')
    .option('--no-watch', 'do not reload when files change')
    .option('--insecure', 'listen beyond loopback although no credentials are configured (everyone reaching the port is the local principal)')
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<ServeFlags>(async (p, f) => (await import('./serve.js')).serveCommand(p, f, io)));

  program
    .command('call')
    .description('call a tool through the runtime: arguments checked, approval, providers by priority, timeout, retries, audit; exit 1 when the call fails')
    .argument('<tool>', 'the tool name')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--args <json>', 'the arguments, a JSON object', '{}')
    .option('--persona <persona>', 'call as this persona (only its tools and the shared ones exist)')
    .option('--agent <id>', 'call for this catalog agent: refused unless the tool is in its view (toolIds, skills, constraints)')
    .option('--caller <id>', 'who is calling, for the audit log (default cli:$USER)')
    .option('--idempotency-key <key>', 'makes a guarded tool retryable')
    .option('--selection <id>', 'the selection id of the search the tool was chosen from: the span and audit record what it was chosen over')
    .option('--json', 'print the result (or the pending approval) as JSON')
    .addOption(serverOption())
    .addOption(dialectOption())
    .addOption(configOption())
    .action((tool: string, paths: string[], flags: CallFlags) => withServer<CallFlags>(async (p, f) => (await import('./call.js')).callCommand(tool, p, f, io))(paths, flags));

  const oauth = program.command('oauth').description('connect tools to their OAuth services (tokens kept encrypted in the store; key: $TOOLCAP_SECRET_KEY, docs/oauth.md)');
  const oauthAction = (action: 'connect' | 'status' | 'disconnect', tool: string | undefined) =>
    withPaths<OAuthFlags>(async (p, f) => (await import('./oauth.js')).oauthCommand(action, tool, p, f, io));
  oauth
    .command('connect')
    .description('run the authorization-code flow (PKCE as the manifest says): print the URL to open, wait for the redirect on 127.0.0.1, store the tokens encrypted')
    .argument('<tool>', 'the tool whose service to connect')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--service <name>', 'the OAuth service (needed when the tool has several)')
    .option('--timeout <sec>', 'how long to wait for the browser to come back', '300')
    .option('--json', 'print the connection as JSON when done')
    .addOption(dialectOption())
    .addOption(configOption())
    .action((tool: string, paths: string[], flags: OAuthFlags) => oauthAction('connect', tool)(paths, flags));
  oauth
    .command('status')
    .description('which tools declare OAuth services and which are connected (never a token)')
    .argument('[tool]', 'only this tool (a first argument that names a file or folder is a path)')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--json', 'print {"connections": [...]} as JSON')
    .addOption(dialectOption())
    .addOption(configOption())
    // `status <path>`: a first argument that is a file or folder is a layer, not a tool name
    .action((tool: string | undefined, paths: string[], flags: OAuthFlags) => {
      const isPath = tool !== undefined && existsSync(tool);
      return oauthAction('status', isPath ? undefined : tool)(isPath ? [tool, ...paths] : paths, flags);
    });
  oauth
    .command('disconnect')
    .description('forget a tool\'s stored tokens (one service with --service, else all of its services)')
    .argument('<tool>', 'the tool')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--service <name>', 'only this service')
    .addOption(dialectOption())
    .addOption(configOption())
    .action((tool: string, paths: string[], flags: OAuthFlags) => oauthAction('disconnect', tool)(paths, flags));

  const approvals = program.command('approvals').description('list and decide approval requests (in the store the config names)');
  approvals
    .command('list')
    .description('pending approvals (or --status)')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--status <status>', 'pending, approved, denied, expired, void, executed or failed')
    .option('--json', 'print {"approvals": [...]} as JSON')
    .addOption(serverOption())
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withServer<ApprovalsFlags>(async (p, f) => (await import('./call.js')).approvalsCommand('list', undefined, p, f, io)));
  const DESCRIPTIONS = { show: 'one approval, with the outcome of its run', approve: 'approve and run exactly the reviewed call (void if the manifest changed since); not your own request unless self-approval is configured', deny: 'deny the request' };
  for (const action of ['show', 'approve', 'deny'] as const) {
    const command = approvals
      .command(action)
      .description(DESCRIPTIONS[action])
      .argument('<id>', 'the approval id')
      .argument('[paths...]', 'files or folders, as layers in order (optional with --config)');
    if (action !== 'show') command.option('--by <id>', 'a name for the audit log beside the principal (default cli:$USER)').option('--note <text>', 'a note for the audit log');
    command
      .option('--json', 'print it as JSON')
      .addOption(serverOption())
      .addOption(dialectOption())
      .addOption(configOption())
      .action((id: string, paths: string[], flags: ApprovalsFlags) => withServer<ApprovalsFlags>(async (p, f) => (await import('./call.js')).approvalsCommand(action, id, p, f, io))(paths, flags));
  }

  const mcp = program.command('mcp').description('toolcap as an MCP server (the gated catalog for any MCP client), and MCP servers added from the MCP Registry');
  mcp
    .command('serve')
    .description('serve the persona\'s tools over MCP on stdio: tools/list with capability metadata, tools/call through approvals and providers; reloads send list_changed')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--persona <persona>', 'serve this persona\'s tools (default: the shared tools only)')
    .option('--agent <id>', 'serve only this catalog agent\'s view and refuse calls outside it')
    .option('--caller <id>', 'a name for the audit log beside the principal (default: mcp:<client name>)')
    .option('--principal <id>', 'the principal the client acts as (default: the config\'s auth.local principal; grants from auth.principals when listed there)')
    .option('--no-watch', 'do not reload when files change')
    .addOption(new Option('--tools <mode>', 'what tools/list shows: full (every tool) or search (a search tool and a call tool; found tools join the list); default: the config\'s mcp.tools, else full').choices(['full', 'search']))
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withPaths<McpServeFlags>(async (p, f) => (await import('./mcp.js')).mcpServeCommand(p, f, io)));
  mcp
    .command('add')
    .description('configure an MCP server from the MCP Registry: write its mcp.servers entry (npm, pypi, docker/oci package, or remote) into the config, with the environment variables to set')
    .argument('<source>', 'a server.json file, or a registry entry name (io.github.owner/server) looked up in --registry')
    .option('--name <name>', 'the key under mcp.servers (default: the last part of the entry name)')
    .option('--entry <name>', 'which entry of a file holding several')
    .option('--registry <file|url>', `where an entry name is looked up: a file of server.json entries, or a registry URL (default ${DEFAULT_REGISTRY})`)
    .option('--remote', 'use the entry\'s remote (streamable-http or sse) rather than a package')
    .option('--npx', 'run an npm package through npx even when a copy is installed beside the config')
    .option('--force', 'replace an entry of the same name')
    .option('--dry-run', 'print the entry and the edited config; write nothing')
    .option('--json', 'print the entry as JSON')
    .addOption(configOption())
    .action(async (source: string, flags: McpAddFlags) => done(await (await import('./mcp-add.js')).mcpAddCommand(source, flags, io)));

  program
    .command('audit')
    .description('print the audit log (calls, approval requests and decisions), oldest first')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--tool <name>', 'only this tool')
    .option('--call-id <id>', 'only this call')
    .option('--after <seq>', 'only records after this sequence number')
    .option('--limit <n>', 'at most this many (default 100)')
    .option('--json', 'print {"audit": [...]} as JSON')
    .addOption(serverOption())
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withServer<AuditFlags>(async (p, f) => (await import('./call.js')).auditCommand(p, f, io)));

  const keys = program.command('keys').description('API keys in the config\'s store (accepted once auth.apiKeys.enabled is true)');
  const keyStoreOption = () => new Option('--config <file>', 'the toolcap.config.yaml whose store keeps the keys (default: ./toolcap.config.yaml, else .toolcap/toolcap.db here)');
  /** Keys need the store only: the default config when there is one, else the default store. */
  const withStore = (command: (flags: KeysFlags) => Promise<ExitCode>) => async (flags: KeysFlags) =>
    done(await command(flags.config === undefined && existsSync(DEFAULT_CONFIG_FILE) ? { ...flags, config: DEFAULT_CONFIG_FILE } : flags));
  keys
    .command('create')
    .description('issue a key and print it once (the store keeps only its hash)')
    .requiredOption('--principal <id>', 'the principal it authenticates as')
    .option('--role <role>', 'caller, approver or admin (repeatable)', collect)
    .option('--persona <persona>', 'a persona it may act as, * for all (repeatable)', collect)
    .option('--default-persona <persona>', 'the persona of requests that name none (default: the --persona, when only one is given)')
    .option('--approves-persona <persona>', 'approvers: a persona whose calls it may decide, * for all (repeatable)', collect)
    .option('--approves-tool <tool>', 'approvers: a tool (or ns.*) it may decide (repeatable; default *)', collect)
    .option('--expires <when>', 'a duration (90m, 12h, 30d) or an ISO date; default: never')
    .option('--json', 'print {"key", "id", ...} as JSON')
    .addOption(keyStoreOption())
    .action(withStore(async (f) => (await import('./keys.js')).keysCreateCommand(f, io)));
  keys
    .command('list')
    .description('keys and their grants, never their secrets')
    .option('--principal <id>', 'only this principal\'s keys')
    .option('--all', 'include revoked keys')
    .option('--json', 'print {"keys": [...]} as JSON')
    .addOption(keyStoreOption())
    .action(withStore(async (f) => (await import('./keys.js')).keysListCommand(f, io)));
  keys
    .command('revoke')
    .description('refuse a key from now on')
    .argument('<keyId>', 'the key id (from keys list)')
    .option('--json', 'print the revoked key as JSON')
    .addOption(keyStoreOption())
    .action((id: string, flags: KeysFlags) => withStore(async (f) => (await import('./keys.js')).keysRevokeCommand(id, f, io))(flags));

  program
    .command('tasks')
    .description('Xena task sources (tools with capability tasks.probe and task role source)')
    .command('snapshot')
    .description('probe every task source through the runtime: ok, stale, error or unsupported per source; exit 1 when a source is error')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--persona <persona>', 'probe as this persona (only its tools and the shared ones)')
    .option('--json', 'print the /tasks/snapshot answer as JSON')
    .addOption(serverOption())
    .addOption(dialectOption())
    .addOption(configOption())
    .action(withServer<TasksFlags>(async (p, f) => (await import('./tasks.js')).tasksSnapshotCommand(p, f, io)));

  const tools = program.command('tools').description('learned tools: tool entries written at run time, kept in the store (docs/dialects/xena.md#runtime-learned-tools)');
  tools
    .command('upsert')
    .description('judge a tool entry (a JSON file) like a manifest entry, keep it in the store as a learned tool and serve it; exit 1 when it is not valid (nothing changes)')
    .argument('<file>', 'one tool entry as JSON')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--as <dialect>', `the dialect the entry is written in: ${learnedDialectIds().join(', ')}`, 'toolcap')
    .option('--json', 'print the answer as JSON')
    .addOption(serverOption())
    .addOption(configOption())
    .action(async (file: string, paths: string[], flags: LearnedFlags) => done(await (await import('./learned.js')).learnedUpsertCommand(file, paths, flags, io)));
  tools
    .command('learned')
    .description('list the learned tools kept in the store')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--json', 'print {"tools": [...]} as JSON')
    .addOption(serverOption())
    .addOption(configOption())
    .action(async (paths: string[], flags: LearnedFlags) => done(await (await import('./learned.js')).learnedListCommand(paths, flags, io)));
  tools
    .command('forget')
    .description('delete a learned tool from the store and the catalog')
    .argument('<id>', 'the learned tool id')
    .argument('[paths...]', 'files or folders, as layers in order (optional with --config)')
    .option('--json', 'print the answer as JSON')
    .addOption(serverOption())
    .addOption(configOption())
    .action(async (id: string, paths: string[], flags: LearnedFlags) => done(await (await import('./learned.js')).learnedForgetCommand(id, paths, flags, io)));

  program
    .command('schema')
    .description('print the canonical JSON Schema (2020-12)')
    .action(async () => done((await import('./schema-command.js')).schemaCommand(io)));

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
