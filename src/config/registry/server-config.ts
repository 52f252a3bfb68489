/**
 * A registry entry ({@link RegistryServer}) as an `mcp.servers` entry of
 * toolcap.config.yaml: how to start it (npm through `npx`, PyPI through
 * `uvx`, Docker/OCI images through `docker run`, or an npm package already
 * installed beside the config through `node`), or where to reach it (a
 * Streamable HTTP or SSE remote, with its headers). Whatever the user must
 * supply (required environment variables and arguments, secret headers)
 * becomes an environment reference (`{ env: NAME }`, or `${NAME}` inside a
 * string), listed as a required setting; a secret's value is never written.
 * Entries that cannot be used (no package toolcap can start, no remote) get a
 * located diagnostic.
 * @module
 */
import { diagnostic, type Diagnostic } from '../../model/diagnostics.js';
import { at, type SourceFile } from '../../source/source.js';
import type { RegistryArgument, RegistryInput, RegistryNamedInput, RegistryPackage, RegistryRemote, RegistryServer } from './server-json.js';

/** Something the user must set before the server can start. */
export interface RequiredSetting {
  /** The environment variable toolcap reads it from. */
  variable: string;
  /** What it is for: `environment variable GITHUB_TOKEN`, `argument --directory`, `header Authorization`. */
  use: string;
  description?: string;
  secret: boolean;
}

/** One `mcp.servers` entry, ready to write. */
export interface ServerConfigDraft {
  /** The key under `mcp.servers` (tools become `mcp.<name>.<tool>`). */
  name: string;
  /** The registry entry's name and version. */
  entry: string;
  /** What it runs or reaches: `npm @scope/pkg@1.0.0`, `remote streamable-http https://...`. */
  via: string;
  value: Record<string, unknown>;
  required: RequiredSetting[];
  /** Optional settings left out, and other things worth saying. */
  notes: string[];
}

/** How to choose and build the entry. */
export interface ServerConfigOptions {
  /** The key under `mcp.servers`. @default from the entry's name ({@link serverNameOf}) */
  name?: string;
  /** Use the first remote even when a package could be started. @default false */
  preferRemote?: boolean;
  /** The command for an npm package installed where the config is: `node <bin>` (a path relative to the config). */
  installed?: (pkg: RegistryPackage) => { command: string; args: string[] } | undefined;
}

/** Package registries toolcap knows how to start from. */
export const STARTABLE_REGISTRIES = ['npm', 'pypi', 'oci', 'docker'] as const;

/**
 * The `mcp.servers` key for a registry name: its last segment, lowercased,
 * other characters as `-`.
 * @example serverNameOf('io.github.modelcontextprotocol/server-memory') // 'server-memory'
 */
export function serverNameOf(registryName: string): string {
  const last = registryName.split('/').filter(Boolean).at(-1) ?? registryName;
  const name = last.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[^a-z0-9]+/, '').replace(/-+$/, '');
  return name === '' ? 'server' : name.slice(0, 64);
}

const envName = (...parts: string[]) =>
  parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1');

/** A value written with placeholders the user must fill in: `<path>`, `{token}`, `${TOKEN}`. */
const HINT_PLACEHOLDER = /<[^<>]+>/;

/** Builds one draft: the values, and what the user must set. */
class Draft {
  readonly required: RequiredSetting[] = [];
  readonly notes: string[] = [];
  constructor(readonly prefix: string) {}

  #need(variable: string, use: string, input: RegistryInput, fallbackDescription?: string): string {
    if (!this.required.some((r) => r.variable === variable)) {
      const description = input.description ?? fallbackDescription;
      this.required.push({ variable, use, secret: input.isSecret, ...(description !== undefined ? { description } : {}) });
    }
    return `\${${variable}}`;
  }

  /**
   * A value as the config writes it: a literal, `${VAR}` references in a
   * string, or undefined for an optional value nobody gave.
   */
  value(input: RegistryInput, variable: string, use: string, required: boolean, hint?: string): string | undefined {
    const given = input.isSecret ? undefined : (input.value ?? input.default);
    if (input.isSecret && input.value !== undefined && /\{[A-Za-z_][\w-]*\}/.test(input.value)) return this.#template(input.value, input, variable, use);
    if (input.isSecret) return this.#need(variable, use, input, hint);
    if (given !== undefined && /\{[A-Za-z_][\w-]*\}/.test(given)) return this.#template(given, input, variable, use);
    if (given !== undefined && HINT_PLACEHOLDER.test(given)) return this.#need(variable, use, input, `${input.description ?? 'value'} (${given})`);
    if (given !== undefined) return given;
    if (required) return this.#need(variable, use, input, hint);
    this.notes.push(`optional ${use} left out${input.description ? ` (${input.description})` : ''}`);
    return undefined;
  }

  /** `Bearer {token}`: each `{name}` a literal from its variable's value, or a reference. */
  #template(template: string, input: RegistryInput, variable: string, use: string): string {
    return template.replace(/\{([A-Za-z_][\w-]*)\}/g, (_m, name: string) => {
      const v = input.variables[name];
      const literal = v && !v.isSecret ? (v.value ?? v.default) : undefined;
      if (literal !== undefined && !/[{}<>]/.test(literal)) return literal;
      return this.#need(envName(this.prefix, name) || variable, `${use} ({${name}})`, v ?? input);
    });
  }

  /** Arguments as argv words; a named one as `flag value` (or the flag alone when it has no value). */
  args(list: readonly RegistryArgument[]): string[] {
    const out: string[] = [];
    list.forEach((arg, i) => {
      const flag = arg.type === 'named' ? (arg.name ?? '').trim().split(/\s+/)[0]! : undefined;
      const label = flag ?? arg.valueHint ?? `arg${i + 1}`;
      const variable = envName(this.prefix, label.replace(/^-+/, '')) || envName(this.prefix, `arg${i + 1}`);
      const use = flag ? `argument ${flag}` : `argument ${i + 1}${arg.valueHint ? ` (${arg.valueHint})` : ''}`;
      // the seed writes a named argument's whole text in value ("--directory <path>"): the flag is not part of the value
      const stripped: RegistryInput = { ...arg };
      for (const key of ['value', 'default'] as const) {
        const v = arg[key];
        if (flag && v !== undefined && v.startsWith(`${flag} `)) stripped[key] = v.slice(flag.length + 1);
        else if (flag && v === flag) delete stripped[key];
      }
      // a flag whose value is the flag itself (--rm) is a switch: given as it is, nothing to set
      if (flag && (arg.value === flag || (arg.value === undefined && arg.default === flag))) {
        out.push(flag);
        return;
      }
      const value = this.value(stripped, variable, use, arg.isRequired === true, arg.valueHint);
      if (flag) {
        if (value !== undefined) out.push(flag, value);
      } else if (value !== undefined) out.push(value);
    });
    return out;
  }

  /** Environment variables: literals, `{ env: NAME }` for the ones the user sets, optional ones left out. */
  env(list: readonly RegistryNamedInput[]): Record<string, unknown> {
    const env: Record<string, unknown> = {};
    for (const v of list) {
      // a variable the file does not mark optional is needed: the seed lists exactly the ones a server reads
      const value = this.value(v, v.name, `environment variable ${v.name}`, v.isRequired !== false);
      if (value !== undefined) env[v.name] = value === `\${${v.name}}` ? { env: v.name } : value;
    }
    return env;
  }

  headers(list: readonly RegistryNamedInput[]): Record<string, unknown> {
    const headers: Record<string, unknown> = {};
    for (const h of list) {
      const variable = envName(this.prefix, h.name);
      const value = this.value(h, variable, `header ${h.name}`, h.isRequired !== false);
      if (value !== undefined) headers[h.name] = value === `\${${variable}}` ? { env: variable } : value;
    }
    return headers;
  }
}

/** `docker run` flags: package arguments holding them are a whole docker run line. */
const DOCKER_RUN_FLAGS = new Set(['-i', '--rm', '-e', '--env', '-p', '-v', '--volume', '--network']);

/** Why a package cannot be started by toolcap, or undefined when it can. */
function unusablePackage(pkg: RegistryPackage): string | undefined {
  if (!(STARTABLE_REGISTRIES as readonly string[]).includes(pkg.registryType)) {
    return pkg.registryType === 'unknown'
      ? `The package "${pkg.identifier}" has registry "unknown": the entry does not say how to install or start it.`
      : `Packages from the "${pkg.registryType}" registry are not supported (toolcap starts ${STARTABLE_REGISTRIES.join(', ')} packages).`;
  }
  if (pkg.transport.type !== 'stdio') return `The package "${pkg.identifier}" serves ${pkg.transport.type} on its own port; toolcap starts stdio packages (use the entry's remote, or run it yourself and add its url).`;
  return undefined;
}

function packageValue(pkg: RegistryPackage, draft: Draft, options: ServerConfigOptions): { value: Record<string, unknown>; via: string } {
  const versioned = (sep: string) => (pkg.version !== undefined && pkg.version !== 'latest' ? `${pkg.identifier}${sep}${pkg.version}` : pkg.identifier);
  const runtimeArgs = draft.args(pkg.runtimeArguments);
  const packageArgs = draft.args(pkg.packageArguments);
  const env = draft.env(pkg.environmentVariables);
  let command: string;
  let args: string[];
  const installed = pkg.registryType === 'npm' ? options.installed?.(pkg) : undefined;
  if (installed) {
    command = installed.command;
    args = [...installed.args, ...packageArgs];
    draft.notes.push(`runs the copy of ${pkg.identifier} installed beside the config (${installed.args[0] ?? installed.command}) instead of npx`);
  } else if (pkg.registryType === 'npm') {
    command = pkg.runtimeHint ?? 'npx';
    args = [...(runtimeArgs.length > 0 ? runtimeArgs : command === 'npx' ? ['-y'] : []), versioned('@'), ...packageArgs];
  } else if (pkg.registryType === 'pypi') {
    command = pkg.runtimeHint ?? 'uvx';
    args = [...runtimeArgs, versioned('@'), ...packageArgs];
  } else {
    command = pkg.runtimeHint ?? 'docker';
    const image = pkg.version !== undefined && !/[:@]/.test(pkg.identifier.split('/').at(-1) ?? '') ? `${pkg.identifier}:${pkg.version}` : pkg.identifier;
    if (packageArgs.some((a) => DOCKER_RUN_FLAGS.has(a))) {
      // the seed's habit: the entry writes the whole docker run line (flags, -e, the image) as its package arguments
      args = ['run', ...(packageArgs.includes('-i') ? [] : ['-i']), ...runtimeArgs, ...packageArgs];
      draft.notes.push('the entry gives the docker run arguments itself (image included); they are used as written');
    } else {
      // docker passes each variable through from its own environment, which is the env below
      args = ['run', '-i', '--rm', ...runtimeArgs, ...Object.keys(env).flatMap((name) => ['-e', name]), image, ...packageArgs];
    }
  }
  return { value: { command, args, ...(Object.keys(env).length > 0 ? { env } : {}) }, via: `${pkg.registryType} ${versioned(pkg.registryType === 'npm' || pkg.registryType === 'pypi' ? '@' : ':')}` };
}

function remoteValue(remote: RegistryRemote, draft: Draft): { value: Record<string, unknown>; via: string } {
  const url = draft.value({ value: remote.url, isSecret: false, variables: {} }, envName(draft.prefix, 'url'), 'url', true) ?? remote.url;
  const headers = draft.headers(remote.headers);
  return {
    value: { url, ...(remote.type === 'sse' ? { transport: 'sse' } : {}), ...(Object.keys(headers).length > 0 ? { headers } : {}) },
    via: `remote ${remote.type} ${remote.url}`,
  };
}

/**
 * The `mcp.servers` entry for a registry entry: its first startable package
 * (or remote, with `preferRemote` or when no package is startable), or
 * diagnostics saying why there is none.
 * @example serverConfigOf(entry, file).draft?.value // { command: 'npx', args: ['-y', '@scope/server@1.0.0'] }
 */
export function serverConfigOf(server: RegistryServer, file: SourceFile | undefined, options: ServerConfigOptions = {}): { draft?: ServerConfigDraft; diagnostics: Diagnostic[] } {
  const name = options.name ?? serverNameOf(server.name);
  const located = (pointer: string) => (file ? at(file, pointer) : { pointer });
  const draft = new Draft(name);
  const remotes = server.remotes.filter((r) => r.type === 'streamable-http' || r.type === 'sse' || r.type === 'http');
  const badRemotes = server.remotes.filter((r) => !remotes.includes(r));
  const packages = server.packages.filter((p) => unusablePackage(p) === undefined);
  const entry = `${server.name}${server.version ? ` ${server.version}` : ''}`;
  const finish = (built: { value: Record<string, unknown>; via: string }): { draft: ServerConfigDraft; diagnostics: Diagnostic[] } => ({
    draft: { name, entry, via: built.via, value: built.value, required: draft.required, notes: draft.notes },
    diagnostics: [],
  });
  const remote = remotes.find((r) => /^https?:\/\//.test(r.url));
  if (remote && (options.preferRemote || packages.length === 0)) return finish(remoteValue(remote, draft));
  const pkg = packages[0];
  if (pkg) return finish(packageValue(pkg, draft, options));
  const diagnostics: Diagnostic[] = [];
  for (const p of server.packages) diagnostics.push(diagnostic('INVALID_VALUE', `${server.name}: ${unusablePackage(p)}`, { ...located(p.pointer), hint: 'Configure the server by hand (mcp.servers in the config: command or url), or pick another entry.' }));
  for (const r of badRemotes) diagnostics.push(diagnostic('UNKNOWN_ENUM_VALUE', `${server.name}: the remote ${r.url} has transport "${r.type}"; toolcap connects to streamable-http and sse remotes.`, located(r.pointer)));
  for (const r of remotes.filter((x) => x !== remote)) diagnostics.push(diagnostic('INVALID_VALUE', `${server.name}: the remote url "${r.url}" is not an http(s) URL.`, located(r.pointer)));
  if (diagnostics.length === 0) diagnostics.push(diagnostic('MISSING_FIELD', `${server.name}: the entry has no packages and no remotes: nothing to start or connect to.`, { ...located(server.pointer), hint: 'A server.json needs packages[] or remotes[].' }));
  return { diagnostics };
}
