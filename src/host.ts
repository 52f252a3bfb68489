/**
 * The composition root: from a config to a running toolcap. It reads the
 * config once, hands each stage its own section (the registry its layers,
 * limits and trusted module folders; the store its StoreConfig; the runtime
 * its approvals, identity settings and provider environment: egress, module
 * isolation, response size; the MCP clients their McpConfig), builds who is
 * asking (the local principal, the Authenticator over the store's keys),
 * wires them together and returns them with one `close()` that stops
 * everything in order. The commands that run tools
 * start here, and so can a program that embeds toolcap.
 *
 * Nothing here prints or exits: messages go to the `warn` callback, and what
 * prevents opening is one {@link ToolcapOpenError}.
 * @module
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { configCatalogOptions, configLayers, loadConfig, mcpCacheDir, providerEnvironment, type Config } from './config/config.js';
import { createIdentity, identityRuntimeOptions, LOCAL_MODE, type Identity } from './config/identity.js';
import { sameMcpSettings } from './config/sections/mcp.js';
import { defaultStoreConfig } from './config/sections/store.js';
import { diagnosticLine, toolServicesOptions, toolSettingsDiagnostics } from './config/tool-settings.js';
import { ToolServices } from './runtime/tool-services.js';
import { watchConfig, type ConfigWatcher } from './config/watch.js';
import type { DialectId } from './dialects/types.js';
import type { LayerInput } from './load/loader.js';
import { McpClients } from './mcp/clients.js';
import type { McpConfig } from './mcp/config.js';
import { discoveryCachePath } from './mcp/discovery.js';
import type { Diagnostic } from './model/diagnostics.js';
import { errorMessage } from './model/errors.js';
import type { HealthSource, HealthSummary } from './model/health.js';
import { toolcapVersion } from './model/version.js';
import { Registry } from './registry/registry.js';
import { withProbeFiles } from './runtime/probes/file-provider.js';
import { ProviderTypes } from './runtime/providers/provider-types.js';
import type { McpConnector } from './runtime/providers/mcp.js';
import { ProviderError } from './runtime/providers/types.js';
import { Runtime } from './runtime/runtime.js';
import { DEFAULT_SECRET_KEY_ENV } from './runtime/oauth/sealed-box.js';
import { OAuthVault } from './runtime/oauth/vault.js';
import { createTracing, type Tracing } from './runtime/tracing.js';
import { traceSettings } from './runtime/trace-settings.js';
import { createRedactor, type Redactor } from './runtime/containment/redact.js';
import { openStore, type StoreConfig } from './store/open.js';
import type { KeyStore, Store } from './store/types.js';
import type { OAuthTokenStore } from './store/oauth-tokens.js';
import type { LearnedToolStore } from './store/learned-tools.js';
import { LearnedTools } from './runtime/learned/learned-tools.js';
import { withLearnedLayer } from './config/learned-layer.js';
import { clusterBusOf } from './store/cluster-bus.js';
import { catalogKnows, ClusterSync, newInstanceId } from './runtime/cluster/cluster-sync.js';
import { HealthBook, type BackoffPolicy } from './runtime/health.js';

export type { ConfigWatcher, Identity };

/** How to open a toolcap. Every field is optional. */
export interface ToolcapOptions {
  /** Layers after the config's (or, without a config, the only layers). @default [] */
  paths?: readonly string[];
  /** Read every file as this dialect instead of detecting it (a layer's own dialect wins). */
  dialect?: DialectId;
  /** Compile every input/output schema while loading (stricter, slower). @default false */
  compileSchemas?: boolean;
  /** Reload when the manifests change, and reconnect MCP servers when the config's `mcp` section changes. @default false */
  watch?: boolean;
  /** Quiet time after the last change before a reload (manifests and config alike). @default 200 */
  debounceMs?: number;
  /** Connect to the config's MCP servers (false: their cached tools are still listed, but not callable). @default true */
  mcp?: boolean;
  /** Export spans: the JSON-lines file beside the store (`traces.jsonl`), and OTLP as the OTEL_* variables and the config's `telemetry` say (docs/observability.md). @default true */
  traces?: boolean;
  /** The environment the OTEL_* variables are read from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Seed observed health from the store's recent calls (what a long-running server shows). @default false */
  seedHealth?: boolean;
  /** Told what an operator should know (MCP servers down, settings applied, store hiccups). @default process.emitWarning */
  warn?: (message: string) => void;
  /** The providers' circuit policy (runtime/backoff.ts). @default DEFAULT_BACKOFF */
  backoff?: Partial<BackoffPolicy>;
  /** How often, in ms, the circuits other instances share are re-read besides their notices, and their calls read into observed health (PostgreSQL store only; docs/deploy.md). @default 5000 */
  clusterRereadMs?: number;
}

/** A running toolcap: its parts, and the one way to stop them. */
export interface Toolcap {
  /** The config it was opened with; undefined when opened from paths alone. */
  readonly config: Config | undefined;
  readonly registry: Registry;
  /** The store, which keeps the API keys too. */
  readonly store: Store & KeyStore & LearnedToolStore;
  readonly runtime: Runtime;
  /** OAuth connections of the store (docs/oauth.md), sealed with the key `store.secretKeyEnv` names. */
  readonly oauth: OAuthVault;
  /** Who is asking: the local principal, and how a server authenticates (from the config's `auth`; local mode without a config). */
  readonly identity: Identity;
  /** The connected MCP servers; undefined when none are (MCP off, or `mcp: false`). Changes when the config's `mcp` section does. */
  readonly mcp: McpClients | undefined;
  /** Observed health, with the tools of MCP servers that are down shown as down. */
  readonly health: HealthSource;
  /** The layers the registry loads, in order (the MCP discovery cache first, when there is one). */
  readonly layers: readonly LayerInput[];
  /** Tools written at run time, kept in the store (the learned layer, runtime/learned). */
  readonly learned: LearnedTools;
  /** Where spans are written (JSON lines), when they are. */
  readonly traceFile: string | undefined;
  /** Circuits, learned tools, observed calls and settled approvals shared with the other instances on the store (PostgreSQL, docs/deploy.md); undefined on SQLite (one instance). */
  readonly cluster: ClusterSync | undefined;
  /** Where spans are exported: the file, the OTLP URL (docs/observability.md). */
  readonly tracing: Pick<Tracing, 'file' | 'otlpUrl' | 'flush'>;
  /** The watch of the config file (with `watch` and connected MCP servers), else undefined. */
  readonly configWatcher: ConfigWatcher | undefined;
  /** Stop watching, let calls in flight end, disconnect MCP servers, flush traces, close the store. Safe to call twice. */
  close(): Promise<void>;
}

/** What kept a toolcap from opening. */
export type ToolcapOpenFailure = 'config' | 'catalog' | 'store';

/** Thrown by {@link createToolcap}: the config or the first catalog has errors, or the store cannot be opened. */
export class ToolcapOpenError extends Error {
  override readonly name = 'ToolcapOpenError' as const;
  readonly reason: ToolcapOpenFailure;
  /** The config's or the catalog's diagnostics (empty for the store). */
  readonly diagnostics: readonly Diagnostic[];
  /** A path (the config file, a layer) could not be read at all: a usage problem rather than bad content. */
  readonly unreadable: boolean;
  /** Text of the config file by display path, for excerpts (reason `config`). */
  readonly sources: ReadonlyMap<string, string>;
  constructor(reason: ToolcapOpenFailure, message: string, details: { diagnostics?: readonly Diagnostic[]; unreadable?: boolean; sources?: ReadonlyMap<string, string> } = {}, options?: ErrorOptions) {
    super(message, options);
    this.reason = reason;
    this.diagnostics = details.diagnostics ?? [];
    this.unreadable = details.unreadable ?? false;
    this.sources = details.sources ?? new Map();
  }
}

/**
 * Where traces go: `traces.jsonl` beside an SQLite store, else
 * `.toolcap/traces.jsonl` in `root` (the config's folder, or the current one).
 */
export function traceFileFor(store: StoreConfig, root: string): string {
  return store.kind === 'sqlite' ? join(dirname(store.path), 'traces.jsonl') : resolve(root, '.toolcap', 'traces.jsonl');
}

/**
 * Open a toolcap: load the catalog, connect the MCP servers, open the store
 * and make the runtime. `config` is a loaded {@link Config}, the path of a
 * config file, or undefined (then `options.paths` are the layers and the
 * store is `.toolcap/toolcap.db` in the current folder).
 * @throws {ToolcapOpenError} when it cannot open; nothing is left running then.
 * @example
 * const toolcap = await createToolcap('toolcap.config.yaml', { warn: console.warn });
 * try {
 *   await toolcap.runtime.call('text.reverse', { text: 'hello' });
 * } finally {
 *   await toolcap.close();
 * }
 */
export async function createToolcap(config: Config | string | undefined, options: ToolcapOptions = {}): Promise<Toolcap> {
  const warn = options.warn ?? ((message: string) => process.emitWarning(message, 'ToolcapWarning'));
  const cfg = typeof config === 'string' ? readConfigFile(config) : config;
  const root = cfg?.root ?? process.cwd();

  // MCP servers first: what they report (cached per server) is the first layer of the catalog
  const cacheDir = cfg ? mcpCacheDir(cfg) : undefined;
  const connect = cfg !== undefined && cacheDir !== undefined && cfg.mcp.enabled && cfg.mcp.servers.length > 0 && options.mcp !== false;
  // the cache folder must exist before the layers are listed: configLayers names it only then
  if (connect) mkdirSync(cacheDir, { recursive: true });
  const named: LayerInput[] = cfg ? configLayers(cfg, options.paths) : [...(options.paths ?? [])];
  // tools written at run time (runtime/learned): after the files, before the overrides; read from the store once it is open
  const learned = new LearnedTools({ warn });
  const layers = withLearnedLayer(named, learned.layer(), cfg ? named.length - cfg.personas.length - (options.paths?.length ?? 0) : undefined);
  // spans, warnings and MCP servers' errors are redacted with the runtime's redactor of the moment (it follows the serving catalog's secrets)
  // until the runtime exists (MCP servers start first): token shapes and the MCP servers' own env values
  const early = createRedactor({ secrets: (cfg?.mcp.servers ?? []).flatMap((server) => Object.values(server.env ?? {})) });
  let redactorOf: () => Redactor = () => early;
  const liveRedactor: Redactor = {
    redact: (value) => redactorOf().redact(value),
    redactText: (text) => redactorOf().redactText(text),
  };
  const connector = new SwitchableConnector();
  let registry: Registry | undefined;
  const makeClients = (mcp: McpConfig, dir: string) =>
    new McpClients(mcp, {
      cacheDir: dir,
      clientInfo: { name: 'toolcap', version: toolcapVersion() },
      // HTTP servers' connections and redirects go under the same egress policy as every other outbound request
      ...(cfg?.egress ? { egress: { allow: [...cfg.egress.allow], ...(cfg.egress.crossOriginRedirects ? { crossOriginRedirects: cfg.egress.crossOriginRedirects } : {}) } } : {}),
      // a server's stderr tail may carry secrets: warnings go through the runtime's redactor
      warn: (m) => warn(`mcp: ${liveRedactor.redactText(m)}`),
      // a changed tool list rewrites the cache file; reload now rather than wait for the watcher
      onToolsChanged: () => void registry?.refresh(),
    });
  if (connect) {
    connector.current = makeClients(cfg.mcp, cacheDir);
    await connector.current.start();
  }

  registry = new Registry({
    paths: layers,
    ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
    ...(options.compileSchemas ? { compileSchemas: true } : {}),
    // the trusted module folders too: a module outside them fails the load (MODULE_PATH_REFUSED)
    ...(cfg ? configCatalogOptions(cfg) : {}),
    watch: options.watch ?? false,
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
  });
  const first = await registry.start();
  if (first.kind !== 'reloaded') {
    await registry.close();
    await connector.current?.close();
    const failed = first.kind === 'failed' ? first : undefined;
    throw new ToolcapOpenError('catalog', 'The catalog has errors; nothing to serve or run.', { diagnostics: failed?.diagnostics ?? [], unreadable: failed?.unreadable ?? false });
  }

  const storeConfig = cfg?.store ?? defaultStoreConfig(root);
  let store: Store & KeyStore & OAuthTokenStore & LearnedToolStore;
  try {
    store = await openStore(storeConfig);
  } catch (error) {
    await registry.close();
    await connector.current?.close();
    throw new ToolcapOpenError('store', `cannot open the store ${storeConfig.kind === 'sqlite' ? storeConfig.path : '(PostgreSQL)'}: ${errorMessage(error)}`, {}, { cause: error });
  }

  try {
    const loaded = await learned.load(store, registry);
    if (loaded?.kind === 'failed') warn(`the learned tools in the store do not fit the catalog now; serving without them (see /health): ${loaded.diagnostics.map(diagnosticLine).slice(0, 3).join('; ')}`);
  } catch (error) {
    warn(`could not read the learned tools from the store: ${errorMessage(error)}`);
  }

  // the file is the zero-set-up default; OTLP when the OTEL_* variables or the config's telemetry section ask for it
  const settings = traceSettings(options.env ?? process.env, cfg?.telemetry, toolcapVersion());
  for (const w of settings.warnings) warn(`telemetry: ${w}`);
  const traces = options.traces === false ? undefined : createTracing(settings, { file: traceFileFor(storeConfig, root), redactor: liveRedactor });
  const traceFile = traces?.file;
  const approvals = cfg?.approvals;
  const identitySections = cfg ?? LOCAL_MODE;
  const environment = { baseDir: root, ...(cfg ? providerEnvironment(cfg) : {}) };
  const secretKeyEnv = storeConfig.secretKeyEnv ?? DEFAULT_SECRET_KEY_ENV;
  const oauth = new OAuthVault({ store, secretKey: process.env[secretKeyEnv], secretKeyEnv, ...(environment.egress ? { egress: environment.egress } : {}) });
  const runtime = new Runtime({
    ...identityRuntimeOptions(identitySections),
    oauth,
    ...(traces?.tracer ? { tracer: traces.tracer } : {}),
    registry,
    store,
    ...(options.backoff !== undefined ? { health: new HealthBook({ backoff: options.backoff }) } : {}),
    // task-source tools whose tasks are a file (metadata.probe.file) get the probe-file provider
    providers: withProbeFiles(new ProviderTypes({ mcpConnector: connector })),
    ...(approvals?.rules ? { rules: approvals.rules } : {}),
    ...(approvals?.ttlSec !== undefined ? { approvalTtlSec: approvals.ttlSec } : {}),
    // egress, response size, trusted module folders, module isolation: what the providers contain code with
    environment,
    // configurations, tools' own SQL databases (in the store's place), result checks
    services: new ToolServices(toolServicesOptions(cfg, storeConfig)),
    onWarning: (message) => warn(runtime.redactor.redactText(message)),
  });
  redactorOf = () => runtime.redactor;
  // a tool whose configuration does not check out is unavailable (with the reason); the others run
  if (cfg) for (const d of toolSettingsDiagnostics(cfg.tools, registry.snapshot().tools, process.env)) warn(diagnosticLine(d));
  // what a crash left behind: calls started without an outcome, approvals approved but never run, marked interrupted (never re-run)
  try {
    const recovered = await runtime.recoverInterrupted();
    const n = recovered.calls.length + recovered.approvals.length;
    if (n > 0) warn(`marked ${recovered.calls.length} call(s) and ${recovered.approvals.length} approval(s) interrupted by an earlier stop; see /audit and /approvals?status=interrupted`);
  } catch (error) {
    warn(`could not check the store for interrupted calls: ${errorMessage(error)}`);
  }
  if (options.seedHealth) {
    try {
      await runtime.loadHealth();
    } catch (error) {
      warn(`could not read past call health from the store: ${errorMessage(error)}`);
    }
  }

  // several instances on one PostgreSQL store share circuits and learned tools (runtime/cluster); SQLite has one instance
  let cluster: ClusterSync | undefined;
  const bus = clusterBusOf(store, newInstanceId());
  if (bus) {
    try {
      cluster = await ClusterSync.start({ bus, health: runtime.health, learned, calls: store, approvals: runtime.approvalSignals, warn, knows: catalogKnows(() => registry.snapshot()), ...(options.clusterRereadMs !== undefined ? { rereadMs: options.clusterRereadMs } : {}) });
    } catch (error) {
      await bus.close();
      warn(`could not listen for the other instances on the store; circuits and learned tools are not shared until a restart: ${errorMessage(error)}`);
    }
  }

  // a change to the config's mcp section reconnects; other changes need a restart
  let configWatcher: ConfigWatcher | undefined;
  if (options.watch && connect) {
    const opened = registry;
    let current = cfg.mcp;
    const reconnect = async (next: McpConfig) => {
      if (sameMcpSettings(next, current)) return;
      current = next;
      const previous = connector.current;
      const clients = makeClients(next, cacheDir);
      await clients.start();
      connector.current = clients;
      await previous?.close();
      // servers no longer configured: their cached tools go
      const kept = new Set(next.enabled ? next.servers.map((s) => discoveryCachePath(cacheDir, s.name)) : []);
      for (const f of readdirSync(cacheDir)) if (f.endsWith('.json') && !kept.has(join(cacheDir, f))) rmSync(join(cacheDir, f), { force: true });
      warn(`the MCP settings changed; servers: ${clients.status().map((s) => `${s.server} ${s.state}`).join(', ') || 'none'}`);
      await opened.refresh({ force: true });
    };
    configWatcher = await watchConfig(
      resolve(cfg.file),
      async ({ config: next }) => {
        if (!next) return warn('the config has errors; keeping the MCP servers as they are');
        await reconnect(next.mcp).catch((error: unknown) => warn(`could not apply the MCP settings: ${errorMessage(error)}`));
      },
      options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {},
    );
  }

  const opened = registry;
  let closing: Promise<void> | undefined;
  return {
    config: cfg,
    registry: opened,
    store,
    runtime,
    oauth,
    identity: createIdentity(identitySections, store),
    get mcp() {
      return connector.current;
    },
    // a server's last error may quote its stderr: it is shown through the runtime's redactor
    health: connect ? withServerState(runtime.health, connector, liveRedactor) : runtime.health,
    layers,
    learned,
    traceFile,
    cluster,
    tracing: { file: traceFile, otlpUrl: traces?.otlpUrl, flush: () => traces?.flush() ?? Promise.resolve() },
    configWatcher,
    close() {
      // the order matters: no new config or file events, then no new calls, then what calls used
      closing ??= (async () => {
        await configWatcher?.close();
        await cluster?.close();
        await runtime.close();
        await connector.current?.close();
        await traces?.shutdown();
        await opened.close();
        await store.close();
      })();
      return closing;
    },
  };
}

/** Load a config file, or throw its diagnostics as one error. */
function readConfigFile(path: string): Config {
  const loaded = loadConfig(path);
  if (loaded.config) return loaded.config;
  throw new ToolcapOpenError('config', `The config ${path} has errors.`, { diagnostics: loaded.diagnostics, unreadable: loaded.unreadable, sources: loaded.sources });
}

/**
 * The connector the `mcp` provider type holds: it calls whichever client
 * manager is current, so a config change can swap the manager under a
 * running runtime.
 */
class SwitchableConnector implements McpConnector {
  current: McpClients | undefined;
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    if (!this.current) return Promise.reject(new ProviderError('PROVIDER_UNAVAILABLE', `no MCP client for server "${server}"`, true));
    return this.current.callTool(server, tool, args, signal);
  }
  ready(server: string) {
    return this.current?.ready(server) ?? { healthy: false, reason: `no MCP client for server "${server}"` };
  }
  // the server's identity and the tool's listed schema: what an approval of an MCP tool is bound to
  identity(server: string, tool: string) {
    return this.current?.identity(server, tool);
  }
}

/** Observed health, with the tools of an MCP server that is not up shown as down (and why). */
function withServerState(observed: HealthSource, connector: SwitchableConnector, redactor: Redactor): HealthSource {
  return {
    // a server going down or coming back changes answers too (cached bodies are keyed by this)
    version: () => {
      let h = observed.version();
      for (const st of connector.current?.status() ?? []) for (const ch of `${st.server}:${st.state}:${st.tools}`) h = (h * 31 + ch.charCodeAt(0)) % 2_147_483_647;
      return h;
    },
    lookup: (name) => {
      const seen = observed.lookup(name);
      const server = /^mcp\.([a-z0-9_-]+)\./.exec(name)?.[1];
      const status = server === undefined ? undefined : connector.current?.status().find((s) => s.server === server);
      if (!status || status.state === 'up') return seen;
      return { ...(seen ?? {}), status: 'down', server: { state: status.state, ...(status.lastError !== undefined ? { lastError: redactor.redactText(status.lastError) } : {}) } } as HealthSummary;
    },
  };
}
