/**
 * `toolcap mcp add <server.json | registry entry name>`: configure an MCP
 * server from the MCP Registry's `server.json` (docs/mcp.md, "From the MCP
 * Registry"). Writes the `mcp.servers` entry into the config file, keeping
 * its comments and layout, lists the environment variables to set (never a
 * secret's value), and leaves discovery to the next start, as for any
 * configured server. A file that is not a usable server.json gets located
 * diagnostics (exit 1); a bad flag or an unreadable file exits 2.
 * @module
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DEFAULT_CONFIG_FILE, loadConfig } from '../config/config.js';
import { addMcpServer } from '../config/registry/config-edit.js';
import { serverConfigOf, type ServerConfigDraft } from '../config/registry/server-config.js';
import { DEFAULT_REGISTRY } from '../config/registry/official.js';
import { parseServerJson, type RegistryPackage, type ServerJsonResult } from '../config/registry/server-json.js';
import { errorMessage } from '../model/errors.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { logLine, type CliIO } from './io.js';
import { untrusted } from './terminal.js';
import { renderDiagnostic } from './render.js';


export interface McpAddFlags {
  config?: string;
  /** The key under mcp.servers. */
  name?: string;
  /** Which entry of a file holding several (the seed, a list answer). */
  entry?: string;
  /** Where an entry name is looked up: a file (server.json entries) or a registry URL. */
  registry?: string;
  /** Use the entry's remote rather than a package. */
  remote?: boolean;
  /** Run npm packages through npx even when a copy is installed beside the config. */
  npx?: boolean;
  /** Replace an existing entry of the same name. */
  force?: boolean;
  /** Print the entry; write nothing. */
  dryRun?: boolean;
  json?: boolean;
}

/** An npm package installed in a node_modules folder at or above `dir`, at the entry's version: `node <its bin>`. */
export function installedNpm(dir: string): (pkg: RegistryPackage) => { command: string; args: string[] } | undefined {
  return (pkg) => {
    for (let at = resolve(dir); ; at = dirname(at)) {
      const manifest = join(at, 'node_modules', pkg.identifier, 'package.json');
      if (existsSync(manifest)) {
        try {
          const json = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string; bin?: string | Record<string, string> };
          if (pkg.version !== undefined && pkg.version !== 'latest' && json.version !== pkg.version) return undefined;
          const bins = typeof json.bin === 'string' ? { main: json.bin } : (json.bin ?? {});
          const bin = bins[pkg.identifier.split('/').at(-1)!] ?? Object.values(bins)[0];
          if (bin === undefined) return undefined;
          const path = relative(resolve(dir), join(dirname(manifest), bin)) || '.';
          return { command: 'node', args: [path.startsWith('.') ? path : `./${path}`] };
        } catch {
          return undefined;
        }
      }
      if (dirname(at) === at) return undefined;
    }
  };
}

/** The entries the source names: a server.json file, or an entry name looked up in --registry. */
async function readSource(source: string, flags: McpAddFlags, io: CliIO): Promise<{ parsed: ServerJsonResult; wanted?: string } | ExitCode> {
  if (existsSync(source)) {
    try {
      return { parsed: parseServerJson(source, readFileSync(source, 'utf8')), ...(flags.entry !== undefined ? { wanted: flags.entry } : {}) };
    } catch (error) {
      io.stderr(`toolcap mcp add: cannot read ${source}: ${errorMessage(error)}\n`);
      return EXIT.USAGE;
    }
  }
  if (/[\\]|\.json$/i.test(source) || source.startsWith('.')) {
    io.stderr(`toolcap mcp add: ${source} does not exist (give a server.json file, or a registry entry name such as io.github.owner/server)\n`);
    return EXIT.USAGE;
  }
  const registry = flags.registry ?? DEFAULT_REGISTRY;
  if (!/^https?:\/\//.test(registry)) {
    if (!existsSync(registry)) {
      io.stderr(`toolcap mcp add: --registry ${registry} is neither a file nor an http(s) URL\n`);
      return EXIT.USAGE;
    }
    return { parsed: parseServerJson(registry, readFileSync(registry, 'utf8')), wanted: source };
  }
  const url = new URL(`v0/servers?search=${encodeURIComponent(source)}&version=latest`, registry.endsWith('/') ? registry : `${registry}/`);
  try {
    const res = await fetch(url, { headers: { accept: 'application/json' } });
    if (!res.ok) {
      io.stderr(`toolcap mcp add: ${url.origin} answered ${res.status} for ${source}\n`);
      return EXIT.FINDINGS;
    }
    return { parsed: parseServerJson(url.href, await res.text()), wanted: source };
  } catch (error) {
    io.stderr(`toolcap mcp add: cannot reach ${url.origin}: ${errorMessage((error as { cause?: unknown }).cause ?? error)} (give a server.json file, or --registry <file>)\n`);
    return EXIT.USAGE;
  }
}

function printDraft(draft: ServerConfigDraft, configPath: string, written: boolean, io: CliIO): void {
  io.stdout(`${written ? 'added' : 'would add'} mcp.servers.${untrusted(draft.name)} to ${configPath}\n  from the MCP Registry: ${untrusted(draft.entry)}\n  runs: ${untrusted(draft.via)}\n`);
  if (draft.required.length > 0) {
    io.stdout('  set before starting (toolcap reads them from its environment; the config holds only their names):\n');
    const width = Math.max(...draft.required.map((r) => r.variable.length));
    for (const r of draft.required) io.stdout(`    ${untrusted(r.variable).padEnd(width)}  ${r.secret ? '(secret) ' : ''}${untrusted(r.use)}${r.description ? `: ${untrusted(r.description)}` : ''}\n`);
  }
  for (const note of draft.notes) io.stdout(`  note: ${untrusted(note)}\n`);
  io.stdout(`  its tools are discovered when toolcap next starts (toolcap serve, toolcap mcp serve), as mcp.${draft.name}.<tool>\n`);
}

export async function mcpAddCommand(source: string, flags: McpAddFlags, io: CliIO): Promise<ExitCode> {
  const configPath = flags.config ?? DEFAULT_CONFIG_FILE;
  if (!existsSync(configPath)) {
    io.stderr(`toolcap mcp add: no config at ${configPath}; give --config <file> (the entry is written into it)\n`);
    return EXIT.USAGE;
  }
  const read = await readSource(source, flags, io);
  if (typeof read === 'number') return read;
  const { parsed, wanted } = read;
  const sources = new Map(parsed.file ? [[parsed.file.path, parsed.file.text]] : []);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  const matches = wanted === undefined ? parsed.servers : parsed.servers.filter((s) => s.name === wanted);
  if (matches.length !== 1) {
    // with no entry to add, every finding is the reason (NOT_A_MANIFEST is a warning elsewhere)
    for (const d of matches.length === 0 ? parsed.diagnostics : errors) io.stderr(`${renderDiagnostic(d, sources)}\n`);
    if (matches.length === 0 && wanted !== undefined) io.stderr(`toolcap mcp add: no entry named "${wanted}" in ${parsed.file?.path ?? source}\n`);
    else if (matches.length > 1) io.stderr(`toolcap mcp add: ${source} holds ${matches.length} entries; name one with --entry <name> (e.g. ${untrusted(matches[0]!.name)})\n`);
    return matches.length === 0 ? EXIT.FINDINGS : EXIT.USAGE;
  }
  const server = matches[0]!;
  // problems inside the chosen entry count; those of other entries in the same file do not
  const own = errors.filter((d) => d.pointer === undefined || d.pointer === server.pointer || d.pointer.startsWith(`${server.pointer}/`) || server.pointer === '');
  const configDir = dirname(resolve(configPath));
  const built = serverConfigOf(server, parsed.file, {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.remote ? { preferRemote: true } : {}),
    ...(flags.npx ? {} : { installed: installedNpm(configDir) }),
  });
  const problems = [...own, ...built.diagnostics];
  for (const d of problems) io.stderr(`${renderDiagnostic(d, sources)}\n`);
  if (!built.draft || problems.some((d) => d.severity === 'error')) return EXIT.FINDINGS;
  const draft = built.draft;
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(draft.name)) {
    io.stderr(`toolcap mcp add: --name "${untrusted(draft.name)}" must be lowercase letters, digits, "_" or "-"\n`);
    return EXIT.USAGE;
  }
  const original = readFileSync(configPath, 'utf8');
  const edited = addMcpServer(original, draft, { replace: flags.force === true });
  if ('reason' in edited) {
    io.stderr(`toolcap mcp add: ${untrusted(edited.message)}\n`);
    return edited.reason === 'exists' ? EXIT.USAGE : EXIT.FINDINGS;
  }
  if (flags.json) io.stdout(`${JSON.stringify({ name: draft.name, entry: draft.entry, via: draft.via, config: draft.value, required: draft.required, notes: draft.notes, written: !flags.dryRun }, null, 2)}\n`);
  if (flags.dryRun) {
    if (!flags.json) {
      printDraft(draft, configPath, false, io);
      // the edited config quotes the entry (its name and package in the comment above it): each line escaped, the lines kept
      io.stdout(`\n${edited.text.split(/\r?\n/).map(logLine).join('\n')}`);
    }
    return EXIT.OK;
  }
  const key = (d: { code: string; message: string }) => `${d.code} ${d.message}`;
  const before = new Set(loadConfig(configPath).diagnostics.filter((d) => d.severity === 'error').map(key));
  writeFileSync(configPath, edited.text);
  // the written config must load as well as before, with the new server: else put the file back
  const check = loadConfig(configPath);
  const broken = check.diagnostics.filter((d) => d.severity === 'error' && !before.has(key(d)));
  if (broken.length > 0) {
    writeFileSync(configPath, original);
    for (const d of broken) io.stderr(`${renderDiagnostic(d, new Map([[configPath, edited.text]]))}\n`);
    io.stderr(`toolcap mcp add: the config would not load with the new entry; ${configPath} is unchanged\n`);
    return EXIT.FINDINGS;
  }
  if (!flags.json) printDraft(draft, configPath, true, io);
  return EXIT.OK;
}
