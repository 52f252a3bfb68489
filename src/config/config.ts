/**
 * The project configuration file, `toolcap.config.yaml` (or `.json`): which
 * sources are layers, which folders belong to a persona, where the store and
 * the server live, and the parse limits. It is read like a manifest: through
 * {@link parseSource} (so hostile input meets the same limits), and every
 * problem is a located diagnostic, never an exception. See docs/config.md.
 * @module
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DIALECT_IDS, type DialectId } from '../dialects/types.js';
import { ObjectReader, isPlainObject, jsonType } from '../source/reader.js';
import { diagnostic, joinPointer, type Diagnostic, type Location } from '../model/diagnostics.js';
import { createImportContext } from '../source/context.js';
import type { LayerSpec } from '../load/loader.js';
import type { McpConfig } from '../mcp/config.js';
import {
  ApprovalsSchema,
  McpSchema,
  PERSONA_NAME,
  PERSONA_PATTERN,
  RankingSchema,
  readApprovalsSection,
  readMcpSection,
  readRankingSection,
  type ApprovalsConfig,
  type RankingConfig,
} from './sections.js';
import type { StoreConfig } from '../store/open.js';
import { displayPath } from '../source/paths.js';
import { at, DEFAULT_LIMITS, parseSource, type ParseLimits, type SourceFile } from '../source/source.js';

/** The file name looked for in the current folder when no paths are given. */
export const DEFAULT_CONFIG_FILE = 'toolcap.config.yaml';

/** Largest config file read, in bytes; a config is small. @default 1048576 (1 MiB) */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** One layer named by the config. */
export interface ConfigSource {
  /** Absolute path of the file or folder. */
  path: string;
  /** Read every file of this layer as this dialect instead of detecting it. */
  dialect?: DialectId;
  /** Where the entry stands in the config file. */
  location: Location;
}

/** A folder whose tools are scoped to one persona. */
export interface PersonaFolder {
  persona: string;
  /** Absolute path of the folder. */
  path: string;
  location: Location;
}


/** Where the HTTP API and MCP gateway listen. */
export interface ServerConfig {
  /** @default '127.0.0.1' */
  host: string;
  /** 1 to 65535. @default 4317 */
  port: number;
}

/** A configuration, validated, with defaults applied and paths made absolute. */
export interface Config {
  /** Display path of the config file. */
  file: string;
  /** Absolute path of the folder holding it: every relative path resolves from here. */
  root: string;
  sources: ConfigSource[];
  /** @default [] */
  personas: PersonaFolder[];
  /** @default { kind: 'sqlite', path: '<root>/.toolcap/toolcap.db' } */
  store: StoreConfig;
  /** @default { host: '127.0.0.1', port: 4317 } */
  server: ServerConfig;
  /** @default DEFAULT_LIMITS */
  limits: ParseLimits;
  /** Planner ranking: penalty weights over DEFAULT_RANK_WEIGHTS, and the task risk. @default {} */
  ranking: RankingConfig;
  /** Approval policy: rules adding approval beyond the manifests, and how long an approval stays valid. @default {} */
  approvals: ApprovalsConfig;
  /** MCP servers to discover tools from and call through. @default { enabled: false, servers: [] } */
  mcp: McpConfig;
}





/** The store file used when `store` is absent, relative to the config folder. @default '.toolcap/toolcap.db' */
export const DEFAULT_STORE_PATH = '.toolcap/toolcap.db';
/** @default { host: '127.0.0.1', port: 4317 } */
export const DEFAULT_SERVER: ServerConfig = { host: '127.0.0.1', port: 4317 };

export type { StoreConfig };

export interface ConfigResult {
  config?: Config;
  diagnostics: Diagnostic[];
  /** The config file itself could not be read (CLI exit 2). */
  unreadable: boolean;
  /** Text of the config file by display path, for rendering excerpts. */
  sources: Map<string, string>;
}


/** A PostgreSQL connection URL. */
const POSTGRES_PATTERN = '^postgres(ql)?://\\S+$';
const POSTGRES_URL = new RegExp(POSTGRES_PATTERN);

const PathString = (description: string) => Type.String({ minLength: 1, description });


/**
 * The config file as written, for editors and other tools. It is stricter
 * than {@link loadConfig} about unknown fields (which the loader only warns
 * about) and cannot check that paths exist.
 */
export const ConfigFileSchema = Type.Object(
  {
    sources: Type.Array(
      Type.Union([
        PathString('A manifest file or folder, relative to the config file.'),
        Type.Object(
          {
            path: PathString('A manifest file or folder, relative to the config file.'),
            dialect: Type.Optional(Type.Unsafe<DialectId>({ type: 'string', enum: [...DIALECT_IDS], description: 'Read this layer as this format instead of detecting it.' })),
          },
          { additionalProperties: false },
        ),
      ]),
      { minItems: 1, description: 'Layers, in order; later layers override earlier ones.' },
    ),
    personas: Type.Optional(
      Type.Union(
        [
          Type.Unsafe<Record<string, string>>({
            type: 'object',
            propertyNames: { pattern: PERSONA_PATTERN },
            additionalProperties: { type: 'string', minLength: 1 },
            description: 'Persona name -> folder, relative to the config file.',
          }),
          Type.Array(
            Type.Object(
              { persona: Type.String({ pattern: PERSONA_PATTERN }), path: PathString('The persona folder, relative to the config file.') },
              { additionalProperties: false },
            ),
          ),
        ],
        { description: 'Folders whose tools are scoped to one persona.' },
      ),
    ),
    store: Type.Optional(
      Type.Union(
        [
          Type.Object({ path: PathString('An SQLite file, relative to the config file.') }, { additionalProperties: false }),
          Type.Object({ url: Type.String({ pattern: POSTGRES_PATTERN, description: 'A PostgreSQL URL.' }) }, { additionalProperties: false }),
        ],
        { description: `Where health, approvals and audit are kept. Default: { path: ${DEFAULT_STORE_PATH} }.` },
      ),
    ),
    server: Type.Optional(
      Type.Object(
        {
          host: Type.Optional(Type.String({ minLength: 1, pattern: '^\\S+$', default: '127.0.0.1' })),
          port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 4317 })),
        },
        { additionalProperties: false },
      ),
    ),
    ranking: Type.Optional(RankingSchema),
    approvals: Type.Optional(ApprovalsSchema),
    mcp: Type.Optional(McpSchema),
    limits: Type.Optional(
      Type.Object(
        {
          maxBytes: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxBytes })),
          maxDepth: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxDepth })),
          maxAliasCount: Type.Optional(Type.Integer({ minimum: 0, default: DEFAULT_LIMITS.maxAliasCount })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'toolcap.config.yaml: see docs/config.md.' },
);

/**
 * The JSON Schema (2020-12) of a config file.
 * @example writeFileSync('toolcap.config.schema.json', JSON.stringify(configJsonSchema(), null, 2))
 */
export function configJsonSchema(): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(ConfigFileSchema as TSchema)) as Record<string, unknown>;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...plain };
}

/**
 * The layers a config names, in order: its sources (with their dialects),
 * then its persona folders (each scoping its tools to its persona), then
 * `extra` paths (e.g. given on the command line).
 * @example buildCatalog(configLayers(config), { limits: config.limits })
 */
export function configLayers(config: Config, extra: readonly string[] = []): LayerSpec[] {
  const cache = mcpCacheDir(config);
  return [
    // what MCP servers report comes first: every reviewed layer overrides it (floors aside)
    ...(config.mcp.enabled && existsSync(cache) ? [{ path: cache, discovered: true }] : []),
    ...config.sources.map((s): LayerSpec => ({ path: s.path, ...(s.dialect !== undefined ? { dialect: s.dialect } : {}) })),
    ...config.personas.map((p): LayerSpec => ({ path: p.path, persona: p.persona })),
    ...extra.map((path): LayerSpec => ({ path })),
  ];
}

/** Where discovered MCP tools are cached (one `mcp.<server>.json` per server): `.toolcap/mcp` beside the config. */
export function mcpCacheDir(config: Pick<Config, 'root'>): string {
  return resolve(config.root, '.toolcap', 'mcp');
}

const TOP_LEVEL_FIELDS = Object.keys(ConfigFileSchema.properties);

/**
 * Read and validate a config file. Never throws.
 * @example
 * const { config, diagnostics } = loadConfig('toolcap.config.yaml');
 * if (config) buildCatalog(config.sources.map((s) => s.path), { limits: config.limits });
 */
export function loadConfig(path: string): ConfigResult {
  const shown = displayPath(resolve(path));
  const sources = new Map<string, string>();
  let text: string;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) {
      return failed(diagnostic('FILE_UNREADABLE', `The config ${shown} is not a regular file.`, { file: shown, hint: 'Give --config a YAML or JSON file.' }), true);
    }
    if (stat.size > MAX_CONFIG_BYTES) {
      return failed(
        diagnostic('FILE_TOO_LARGE', `The config is ${stat.size} bytes, over the limit of ${MAX_CONFIG_BYTES}.`, { file: shown, hint: 'A config names sources; it never needs to be this large.' }),
        false,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch {
    return failed(diagnostic('PATH_NOT_FOUND', `No such config file: ${path}`, { file: path, hint: 'Check the path; it is relative to the current folder.' }), true);
  }
  sources.set(shown, text);
  const parsed = parseSource(shown, text, { ...DEFAULT_LIMITS, maxBytes: MAX_CONFIG_BYTES });
  if (!parsed.file) return { diagnostics: parsed.diagnostics, unreadable: false, sources };
  const { config, diagnostics } = readConfig(parsed.file, dirname(resolve(path)));
  return { ...(config ? { config } : {}), diagnostics: [...parsed.diagnostics, ...diagnostics], unreadable: false, sources };
}

function failed(d: Diagnostic, unreadable: boolean): ConfigResult {
  return { diagnostics: [d], unreadable, sources: new Map() };
}

/**
 * Validate a parsed config document. `root` is the folder relative paths
 * resolve from. The config is returned only when there is no error.
 */
export function readConfig(file: SourceFile, root: string): { config?: Config; diagnostics: Diagnostic[] } {
  const context = createImportContext(file, { root });
  if (file.value === null || file.value === undefined) {
    // a file of comments, or a bare `null`
    context.report('FILE_EMPTY', 'The config holds no settings.', '', { hint: 'Name the layers at least: sources: [manifests/].' });
    return { diagnostics: context.diagnostics };
  }
  const top = ObjectReader.of(context, file.value, '', 'A toolcap config');
  if (!top) return { diagnostics: context.diagnostics };
  const report = context.report.bind(context);

  const exists = (path: string, pointer: string, what: string): 'file' | 'folder' | undefined => {
    try {
      return statSync(path).isDirectory() ? 'folder' : 'file';
    } catch {
      report('PATH_NOT_FOUND', `The ${what} ${displayPath(path)} does not exist.`, pointer, { hint: 'Paths in a config are relative to the folder of the config file.' });
      return undefined;
    }
  };
  const pathString = (value: unknown, pointer: string, what: string): string | undefined => {
    if (typeof value !== 'string') {
      report('TYPE_MISMATCH', `The ${what} must be a path (a string), not ${jsonType(value)}.`, pointer, { hint: 'Write the path relative to the config file.' });
      return undefined;
    }
    if (value.trim() === '' || value.includes('\u0000')) {
      report('INVALID_VALUE', `The ${what} "${value}" is not a usable path.`, pointer, { hint: 'Write the path relative to the config file.' });
      return undefined;
    }
    return resolve(root, value);
  };

  // sources
  const sources: ConfigSource[] = [];
  if (!top.has('sources')) {
    report('MISSING_FIELD', 'Missing required field "sources".', '', { hint: 'List the manifest files or folders, in layer order: sources: [manifests/, overrides/].' });
  }
  const rawSources = top.array('sources');
  if (rawSources?.length === 0) {
    report('INVALID_VALUE', '"sources" is empty.', top.at('sources'), { hint: 'Name at least one manifest file or folder.' });
  }
  rawSources?.forEach((item, i) => {
    const pointer = joinPointer(top.at('sources'), i);
    if (isPlainObject(item)) {
      const entry = new ObjectReader(context, item, pointer);
      if (!entry.has('path')) report('MISSING_FIELD', 'A source needs a "path".', pointer, { hint: 'Write { path: manifests/, dialect: atlas }.' });
      const path = entry.has('path') ? pathString(entry.raw('path'), entry.at('path'), 'source path') : undefined;
      const dialect = entry.enumValue('dialect', DIALECT_IDS);
      entry.rest({ where: 'a source' });
      if (path !== undefined && exists(path, entry.at('path'), 'source')) sources.push({ path, location: at(file, entry.at('path')), ...(dialect ? { dialect } : {}) });
    } else if (typeof item === 'string') {
      const path = pathString(item, pointer, 'source path');
      if (path !== undefined && exists(path, pointer, 'source')) sources.push({ path, location: at(file, pointer) });
    } else {
      report('TYPE_MISMATCH', `A source must be a path or { path, dialect }, not ${jsonType(item)}.`, pointer, { hint: 'Write the path relative to the config file.' });
    }
  });

  // personas: a map persona -> path, or a list of { persona, path }
  const personas: PersonaFolder[] = [];
  const addPersona = (persona: unknown, personaPointer: string, rawPath: unknown, pathPointer: string) => {
    if (typeof persona !== 'string' || !PERSONA_NAME.test(persona)) {
      report(typeof persona === 'string' ? 'INVALID_VALUE' : 'TYPE_MISMATCH', `A persona must be a name of letters, digits, "_", "." or "-", not ${JSON.stringify(persona) ?? 'nothing'}.`, personaPointer, {
        hint: 'Name the persona as agents and jobs refer to it, e.g. atlas.',
      });
      return;
    }
    const path = pathString(rawPath, pathPointer, `folder of persona "${persona}"`);
    if (path === undefined) return;
    const kind = exists(path, pathPointer, `folder of persona "${persona}"`);
    if (kind === 'file') {
      report('INVALID_VALUE', `The path of persona "${persona}" is a file; a persona's tools live in a folder.`, pathPointer, { hint: 'Point at the folder holding the persona\'s manifests.' });
    } else if (kind === 'folder') {
      if (personas.some((p) => p.persona === persona)) {
        report('DUPLICATE_ENTRY', `The persona "${persona}" is named twice.`, personaPointer, { hint: 'Name each persona once.' });
      } else personas.push({ persona, path, location: at(file, pathPointer) });
    }
  };
  const rawPersonas = top.raw('personas');
  if (Array.isArray(rawPersonas)) {
    rawPersonas.forEach((item, i) => {
      const pointer = joinPointer(top.at('personas'), i);
      const entry = ObjectReader.of(context, item, pointer, 'A persona entry');
      if (!entry) return;
      entry.consume('persona', 'path');
      for (const key of ['persona', 'path']) {
        if (!entry.has(key)) report('MISSING_FIELD', `A persona entry needs "${key}".`, pointer, { hint: 'Write { persona: atlas, path: personas/atlas/ }.' });
      }
      if (entry.has('persona') && entry.has('path')) addPersona(entry.raw('persona'), entry.at('persona'), entry.raw('path'), entry.at('path'));
      entry.rest({ where: 'a persona entry' });
    });
  } else if (isPlainObject(rawPersonas)) {
    for (const [persona, rawPath] of Object.entries(rawPersonas)) {
      const pointer = joinPointer(top.at('personas'), persona);
      addPersona(persona, pointer, rawPath, pointer);
    }
  } else if (rawPersonas !== undefined) {
    report('TYPE_MISMATCH', `"personas" must be a map of persona to folder, or a list of { persona, path }, not ${jsonType(rawPersonas)}.`, top.at('personas'), {
      hint: 'Write personas: { atlas: personas/atlas/ }.',
    });
  }

  // store: { path } (SQLite) or { url } (PostgreSQL)
  let store: StoreConfig | undefined;
  const storeReader = top.object('store');
  if (storeReader) {
    const path = storeReader.has('path') ? pathString(storeReader.raw('path'), storeReader.at('path'), 'store path') : undefined;
    const url = storeReader.string('url');
    storeReader.rest({ where: 'store' });
    if (storeReader.has('path') && storeReader.has('url')) {
      report('INVALID_VALUE', 'The store has both "path" and "url"; it is one or the other.', storeReader.pointer, {
        hint: 'Keep path for an SQLite file, or url for a PostgreSQL server.',
      });
    } else if (url !== undefined) {
      if (POSTGRES_URL.test(url)) store = { kind: 'postgres', url };
      else report('INVALID_VALUE', 'The store url must start with postgres:// or postgresql://.', storeReader.at('url'), { hint: 'Write url: postgres://user@host:5432/toolcap.' });
    } else if (path !== undefined) store = { kind: 'sqlite', path };
  }

  // server
  let server: Partial<ServerConfig> = {};
  const serverReader = top.object('server');
  if (serverReader) {
    const host = serverReader.string('host');
    if (host !== undefined && (host.trim() === '' || /\s/.test(host))) {
      report('INVALID_VALUE', `The server host "${host}" is not a host name or address.`, serverReader.at('host'), { hint: 'Write host: 127.0.0.1 (or 0.0.0.0 to listen on every interface).' });
    }
    const port = serverReader.number('port', { integer: true, min: 1, max: 65535 });
    serverReader.rest({ where: 'server' });
    server = { ...(host !== undefined && host.trim() !== '' && !/\s/.test(host) ? { host } : {}), ...(port !== undefined ? { port } : {}) };
  }

  // limits: overrides of DEFAULT_LIMITS
  let limits: Partial<ParseLimits> = {};
  const limitsReader = top.object('limits');
  if (limitsReader) {
    for (const key of Object.keys(DEFAULT_LIMITS) as Array<keyof ParseLimits>) {
      const n = limitsReader.number(key, { integer: true, min: key === 'maxAliasCount' ? 0 : 1 });
      if (n !== undefined) limits = { ...limits, [key]: n };
    }
    limitsReader.rest({ where: 'limits' });
  }

  const ranking = readRankingSection(top);
  const approvals = readApprovalsSection(top, context);
  const mcp = readMcpSection(top, context, file, root);

  top.rest({ where: `the config (known fields: ${TOP_LEVEL_FIELDS.join(', ')})` });
  const diagnostics = context.diagnostics.map((d) => (d.code === 'UNKNOWN_FIELD' ? { ...d, message: d.message.replace('; it is kept as an extension.', '; it is ignored.') } : d));
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const defaults = {
    file: file.path,
    root,
    sources: [],
    personas: [],
    store: { kind: 'sqlite', path: resolve(root, DEFAULT_STORE_PATH) },
    server: DEFAULT_SERVER,
    limits: DEFAULT_LIMITS,
    ranking: {},
    approvals: {},
    mcp: { enabled: false, allowTools: [], denyTools: [], servers: [] },
  } satisfies Config;
  const config = {
    ...defaults,
    sources,
    personas,
    ...(store ? { store } : {}),
    server: { ...DEFAULT_SERVER, ...server },
    limits: { ...DEFAULT_LIMITS, ...limits },
    ranking,
    approvals,
    mcp,
  } satisfies Config;
  return { config, diagnostics };
}
