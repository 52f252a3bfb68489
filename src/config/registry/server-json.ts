/**
 * `server.json`, the MCP Registry's description of a server, read into one
 * shape: the current format (`packages[].registryType`, `identifier`,
 * `transport`, `environmentVariables`, `remotes[].type` and `headers`), its
 * snake_case drafts, and the registry's 2025-05 seed (`registry_name`,
 * `package_arguments`, `environment_variables`, `remotes[].transport_type`).
 * A file may hold one entry, an array of entries (the seed), or a registry
 * list answer (`{ servers: [{ server: {...} }] }`). Every problem is a
 * located diagnostic; nothing throws.
 * @module
 */
import type { Diagnostic } from '../../model/diagnostics.js';
import { createImportContext, type ImportContext } from '../../source/context.js';
import { isPlainObject, ObjectReader } from '../../source/reader.js';
import { parseSource, type SourceFile } from '../../source/source.js';

/** A value the user may have to give: an argument, an environment variable, a header, or a variable inside one. */
export interface RegistryInput {
  description?: string;
  /** Absent when the file does not say (the seed never does). */
  isRequired?: boolean;
  isSecret: boolean;
  /** The value to pass, possibly with `{variable}` placeholders. */
  value?: string;
  default?: string;
  /** `{name}` placeholders of `value`, each an input of its own. */
  variables: Record<string, RegistryInput>;
}

export interface RegistryArgument extends RegistryInput {
  type: 'positional' | 'named';
  /** A named argument's flag (`--port`). */
  name?: string;
  valueHint?: string;
  pointer: string;
}

export interface RegistryNamedInput extends RegistryInput {
  name: string;
  pointer: string;
}

export interface RegistryPackage {
  /** `npm`, `pypi`, `oci`, `docker`, `nuget`, `mcpb`, or whatever the file says (`unknown` in the seed). */
  registryType: string;
  identifier: string;
  version?: string;
  runtimeHint?: string;
  transport: { type: string; url?: string; headers: RegistryNamedInput[] };
  runtimeArguments: RegistryArgument[];
  packageArguments: RegistryArgument[];
  environmentVariables: RegistryNamedInput[];
  pointer: string;
}

export interface RegistryRemote {
  /** `streamable-http` or `sse`. */
  type: string;
  url: string;
  headers: RegistryNamedInput[];
  pointer: string;
}

/** One registry entry, normalized. */
export interface RegistryServer {
  /** Reverse-DNS name: `io.github.owner/server`. */
  name: string;
  description?: string;
  version?: string;
  packages: RegistryPackage[];
  remotes: RegistryRemote[];
  pointer: string;
}

/** What a server.json file held. */
export interface ServerJsonResult {
  servers: RegistryServer[];
  diagnostics: Diagnostic[];
  file?: SourceFile;
}

/** Keys an entry may carry that say nothing about how to run it. */
const METADATA_KEYS = ['$schema', 'id', 'title', 'repository', 'version_detail', 'websiteUrl', 'website_url', 'icons', '_meta', 'status', 'created_at', 'updated_at'];
const INPUT_METADATA_KEYS = ['format', 'choices', 'isRepeated', 'is_repeated'];

/** The value of the first spelling present (camelCase first), marking the others read. */
function pick<T>(r: ObjectReader, read: (key: string) => T | undefined, ...keys: string[]): T | undefined {
  const key = keys.find((k) => r.has(k));
  r.consume(...keys);
  return key === undefined ? undefined : read(key);
}
const str = (r: ObjectReader, ...keys: string[]) => pick(r, (k) => r.string(k), ...keys);
const bool = (r: ObjectReader, ...keys: string[]) => pick(r, (k) => r.boolean(k), ...keys);
/** A string, or a number or boolean written as one (`default: 8080`). */
const scalar = (r: ObjectReader, key: string): string | undefined => {
  const v = r.raw(key);
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return typeof v === 'string' ? v : r.string(key);
};

function readInput(r: ObjectReader): RegistryInput {
  const input: RegistryInput = { isSecret: bool(r, 'isSecret', 'is_secret') ?? false, variables: {} };
  const required = bool(r, 'isRequired', 'is_required');
  if (required !== undefined) input.isRequired = required;
  const description = str(r, 'description');
  if (description !== undefined) input.description = description;
  const value = scalar(r, 'value');
  if (value !== undefined) input.value = value;
  const fallback = scalar(r, 'default');
  if (fallback !== undefined) input.default = fallback;
  const variables = r.object('variables');
  for (const key of variables ? Object.keys(variables.value) : []) {
    const vr = variables!.object(key);
    if (vr) input.variables[key] = readInput(vr);
  }
  r.consume(...INPUT_METADATA_KEYS);
  return input;
}

function each(r: ObjectReader, keys: string[], read: (item: ObjectReader) => void, what: string): void {
  const key = keys.find((k) => r.has(k));
  r.consume(...keys);
  if (key === undefined) return;
  const items = r.array(key);
  items?.forEach((item, i) => {
    const ir = ObjectReader.of(r.context, item, `${r.at(key)}/${i}`, what);
    if (ir) read(ir);
  });
}

function readNamed(r: ObjectReader, what: string): RegistryNamedInput | undefined {
  const name = r.string('name');
  const input = readInput(r);
  r.rest({ where: what });
  if (name === undefined || name === '') {
    r.context.report('MISSING_FIELD', `${what} has no "name".`, r.pointer, { hint: 'Give the variable or header its name.' });
    return undefined;
  }
  return { ...input, name, pointer: r.pointer };
}

function readArgument(r: ObjectReader): RegistryArgument | undefined {
  const type = r.enumValue('type', ['positional', 'named'] as const);
  const name = r.string('name');
  const valueHint = str(r, 'valueHint', 'value_hint');
  const input = readInput(r);
  r.rest({ where: 'an argument' });
  if (type === undefined) {
    if (!r.has('type')) r.context.report('MISSING_FIELD', 'An argument needs "type": positional or named.', r.pointer, { hint: 'Write type: positional or type: named.' });
    return undefined;
  }
  if (type === 'named' && (name === undefined || name === '')) {
    r.context.report('MISSING_FIELD', 'A named argument needs its "name" (the flag, e.g. --port).', r.pointer, {});
    return undefined;
  }
  return { ...input, type, pointer: r.pointer, ...(name !== undefined ? { name } : {}), ...(valueHint !== undefined ? { valueHint } : {}) };
}

function readPackage(r: ObjectReader): RegistryPackage | undefined {
  const registryType = str(r, 'registryType', 'registry_type', 'registry_name');
  const identifier = str(r, 'identifier', 'name');
  const version = str(r, 'version');
  const runtimeHint = str(r, 'runtimeHint', 'runtime_hint');
  const pkg: RegistryPackage = {
    registryType: registryType ?? '',
    identifier: identifier ?? '',
    transport: { type: 'stdio', headers: [] },
    runtimeArguments: [],
    packageArguments: [],
    environmentVariables: [],
    pointer: r.pointer,
  };
  if (version !== undefined && version !== '') pkg.version = version;
  if (runtimeHint !== undefined && runtimeHint !== '') pkg.runtimeHint = runtimeHint;
  const transport = r.object('transport');
  if (transport) {
    pkg.transport.type = transport.string('type') ?? 'stdio';
    const url = transport.string('url');
    if (url !== undefined) pkg.transport.url = url;
    each(transport, ['headers'], (h) => void push(pkg.transport.headers, readNamed(h, 'a header')), 'a header');
    transport.rest({ where: 'a transport' });
  }
  each(r, ['runtimeArguments', 'runtime_arguments'], (a) => void push(pkg.runtimeArguments, readArgument(a)), 'an argument');
  each(r, ['packageArguments', 'package_arguments'], (a) => void push(pkg.packageArguments, readArgument(a)), 'an argument');
  each(r, ['environmentVariables', 'environment_variables'], (v) => void push(pkg.environmentVariables, readNamed(v, 'an environment variable')), 'an environment variable');
  r.consume('registryBaseUrl', 'registry_base_url', 'fileSha256', 'file_sha256');
  r.rest({ where: 'a package' });
  if (!registryType) r.context.report('MISSING_FIELD', 'A package needs "registryType" (npm, pypi, oci, nuget, mcpb).', r.pointer, { hint: 'Write registryType: npm (and identifier, version).' });
  if (!identifier) r.context.report('MISSING_FIELD', 'A package needs "identifier" (the package or image name).', r.pointer, {});
  return registryType && identifier ? pkg : undefined;
}

function readRemote(r: ObjectReader): RegistryRemote | undefined {
  const type = str(r, 'type', 'transport_type');
  const url = r.string('url');
  const remote: RegistryRemote = { type: type ?? '', url: url ?? '', headers: [], pointer: r.pointer };
  each(r, ['headers'], (h) => void push(remote.headers, readNamed(h, 'a header')), 'a header');
  r.consume('variables');
  r.rest({ where: 'a remote' });
  if (url === undefined || url === '') {
    r.context.report('MISSING_FIELD', 'A remote needs its "url".', r.pointer, {});
    return undefined;
  }
  return remote;
}

function push<T>(list: T[], item: T | undefined): void {
  if (item !== undefined) list.push(item);
}

function readServer(context: ImportContext, value: unknown, pointer: string): RegistryServer | undefined {
  // a registry list answer wraps each entry: { server: {...}, _meta: {...} }
  if (isPlainObject(value) && isPlainObject(value['server']) && typeof value['name'] !== 'string') return readServer(context, value['server'], `${pointer}/server`);
  const r = ObjectReader.of(context, value, pointer, 'A server.json entry');
  if (!r) return undefined;
  const name = r.string('name');
  const server: RegistryServer = { name: name ?? '', packages: [], remotes: [], pointer };
  const description = r.string('description');
  if (description !== undefined) server.description = description;
  const version = r.string('version') ?? (isPlainObject(r.value['version_detail']) && typeof r.value['version_detail']['version'] === 'string' ? r.value['version_detail']['version'] : undefined);
  if (version !== undefined) server.version = version;
  each(r, ['packages'], (p) => void push(server.packages, readPackage(p)), 'A package');
  each(r, ['remotes'], (p) => void push(server.remotes, readRemote(p)), 'A remote');
  r.consume(...METADATA_KEYS);
  r.rest({ where: `server "${name ?? '?'}"` });
  if (!name) {
    context.report('MISSING_FIELD', 'A server.json entry needs its "name" (io.github.owner/server).', pointer, { hint: 'Is this a server.json of the MCP Registry?' });
    return undefined;
  }
  return server;
}

/**
 * Read a server.json (one entry, an array of them, or `{ servers: [...] }`).
 * @example parseServerJson('server.json', text).servers[0]?.packages[0]?.registryType // 'npm'
 */
export function parseServerJson(path: string, text: string): ServerJsonResult {
  const parsed = parseSource(path, text);
  if (!parsed.file) return { servers: [], diagnostics: parsed.diagnostics };
  const context = createImportContext(parsed.file);
  const data = parsed.file.value;
  const servers: RegistryServer[] = [];
  if (Array.isArray(data)) data.forEach((item, i) => push(servers, readServer(context, item, `/${i}`)));
  else if (isPlainObject(data) && Array.isArray(data['servers'])) data['servers'].forEach((item, i) => push(servers, readServer(context, item, `/servers/${i}`)));
  else if (isPlainObject(data) && 'name' in data) push(servers, readServer(context, data, ''));
  else context.report('NOT_A_MANIFEST', 'This is not a server.json: expected an object with "name" and "packages" or "remotes", an array of them, or { "servers": [...] }.', '', { hint: 'Point at a server.json of the MCP Registry (https://registry.modelcontextprotocol.io).' });
  return { servers, diagnostics: [...parsed.diagnostics, ...context.diagnostics], file: parsed.file };
}
