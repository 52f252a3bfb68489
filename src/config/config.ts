/**
 * The project configuration file, `toolcap.config.yaml` (or `.json`): which
 * sources are layers, which folders belong to a persona, where the store and
 * the server live, the parse limits, ranking, approvals, MCP servers,
 * who may use a served toolcap (`auth`), and how the code of tools is
 * contained (`egress`, `runtime`). It
 * is read like a manifest: through {@link parseSource} (so hostile input
 * meets the same limits), and every problem is a located diagnostic, never
 * an exception. Each section has its own reader and schema in `sections/`;
 * this module reads the file and hands each section its part. See
 * docs/config.md.
 * @module
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { diagnostic, type Diagnostic } from '../model/diagnostics.js';
import { createImportContext } from '../source/context.js';
import { displayPath } from '../source/paths.js';
import { ObjectReader } from '../source/reader.js';
import { DEFAULT_LIMITS, parseSource, type ParseLimits, type SourceFile } from '../source/source.js';
import { configReading } from './reading.js';
import { CONFIG_FIELDS } from './schema.js';
import { readApprovals, type ApprovalsConfig } from './sections/approvals.js';
import { readAuth, type AuthSection, type LocalPrincipalConfig } from './sections/auth.js';
import { readEgress, type EgressConfig } from './sections/egress.js';
import { readLimits } from './sections/limits.js';
import { readMcp, type McpSection, type McpSessionsConfig } from './sections/mcp.js';
import { readPersonas, type PersonaFolder } from './sections/personas.js';
import { readRanking, type RankingConfig } from './sections/ranking.js';
import { readRuntime, type RuntimeSection } from './sections/runtime.js';
import { readServer, type ServerConfig } from './sections/server.js';
import { readSources, type ConfigSource } from './sections/sources.js';
import { readStore, type StoreConfig } from './sections/store.js';
import { readWebhooks, type WebhooksConfig } from './sections/webhooks.js';
import { readTools, type ToolsSection } from './sections/tools.js';
import { readTelemetry, type TelemetryConfig } from './sections/telemetry.js';

// the names commands, tests and scripts have imported from here since before the split
export { configJsonSchema, ConfigFileSchema } from './schema.js';
export { configCatalogOptions, configLayers, mcpCacheDir } from './layers.js';
export { DEFAULT_RUNTIME, providerEnvironment } from './sections/runtime.js';
export { DEFAULT_SERVER } from './sections/server.js';
export { DEFAULT_STORE_PATH } from './sections/store.js';
export type { ToolsSection } from './sections/tools.js';
export type { ApprovalsConfig, AuthSection, ConfigSource, EgressConfig, LocalPrincipalConfig, McpSection, McpSessionsConfig, PersonaFolder, RankingConfig, RuntimeSection, ServerConfig, StoreConfig };

export { DEFAULT_CONFIG_FILE } from './file-name.js';

/** Largest config file read, in bytes; a config is small. @default 1048576 (1 MiB) */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** A configuration, validated, with defaults applied and paths made absolute: one typed section per stage. */
export interface Config {
  /** Display path of the config file. */
  file: string;
  /** Absolute path of the folder holding it: every relative path resolves from here. */
  root: string;
  /** The registry's layers. */
  sources: ConfigSource[];
  /** The registry's persona layers. @default [] */
  personas: PersonaFolder[];
  /** The store's. @default { kind: 'sqlite', path: '<root>/.toolcap/toolcap.db' } */
  store: StoreConfig;
  /** The HTTP server's. @default { host: '127.0.0.1', port: 4317 } */
  server: ServerConfig;
  /** The registry's parse limits. @default DEFAULT_LIMITS */
  limits: ParseLimits;
  /** The ranker's: penalty weights over DEFAULT_RANK_WEIGHTS, and the task risk. @default {} */
  ranking: RankingConfig;
  /** The runtime's: rules adding approval beyond the manifests, and how long an approval stays valid. @default {} */
  approvals: ApprovalsConfig;
  /** The MCP clients': servers to discover tools from and call through; and the gateway's session limits. @default { enabled: false, servers: [] } */
  mcp: McpSection;
  /** Who may use a served toolcap: credentials, grants, the call limit, the local principal. @default local mode */
  auth: AuthSection;
  /** The http providers': the hosts they may reach and cross-origin redirects. @default absent: each provider's own baseUrl host */
  egress?: EgressConfig;
  /** The registry's and the providers': trusted module folders, module isolation, the response size limit. @default DEFAULT_RUNTIME */
  runtime: RuntimeSection;
  /** The runtime's: settings of single tools (configurations, SQL). @default { settings: {} } */
  tools: ToolsSection;
  /** The webhooks of tools with workflowRoutes, and their dispatcher. @default absent: no webhooks */
  webhooks?: WebhooksConfig;
  /** Where spans go (JSON-lines file, OTLP); the OTEL_* variables win (docs/observability.md). @default {}: the file only */
  telemetry?: TelemetryConfig;
}

/** What reading a config file gave. */
export interface ConfigResult {
  /** The config, when it has no error. */
  config?: Config;
  diagnostics: Diagnostic[];
  /** The config file itself could not be read (CLI exit 2). */
  unreadable: boolean;
  /** Text of the config file by display path, for rendering excerpts. */
  sources: Map<string, string>;
}

/**
 * Read and validate a config file. Never throws.
 * @example
 * const { config, diagnostics } = loadConfig('toolcap.config.yaml');
 * if (config) buildCatalog(configLayers(config), { limits: config.limits });
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
  const reading = configReading(top, context, file, root);
  // sections are read in this order (not the schema's): diagnostics keep the order they have always had
  const config: Config = {
    file: file.path,
    root,
    sources: readSources(reading),
    personas: readPersonas(reading),
    store: readStore(reading),
    server: readServer(reading),
    limits: readLimits(reading),
    ranking: readRanking(reading),
    approvals: readApprovals(reading),
    mcp: readMcp(reading),
    auth: readAuth(reading),
    runtime: readRuntime(reading),
    tools: readTools(reading),
  };
  const egress = readEgress(reading);
  if (egress) config.egress = egress;
  const webhooks = readWebhooks(reading);
  if (webhooks) config.webhooks = webhooks;
  const telemetry = readTelemetry(reading);
  if (Object.keys(telemetry).length > 0) config.telemetry = telemetry;
  top.rest({ where: `the config (known fields: ${CONFIG_FIELDS.join(', ')})` });
  // unknown fields of a config are not extensions as they are in a manifest
  const diagnostics = context.diagnostics.map((d) => (d.code === 'UNKNOWN_FIELD' ? { ...d, message: d.message.replace('; it is kept as an extension.', '; it is ignored.') } : d));
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  return { config, diagnostics };
}
