/**
 * What the commands that run tools share (`serve`, `call`, `approvals`):
 * the registry, the store the config names (SQLite in `.toolcap/` by
 * default) and the runtime over both.
 * @module
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { watch as watchPaths, type FSWatcher } from 'chokidar';
import { discoveryCachePath } from '../mcp/discovery.js';
import type { McpConfig } from '../mcp/config.js';
import type { McpConnector } from '../runtime/providers/mcp.js';
import { ProviderError } from '../runtime/providers/types.js';
import { dirname, join, resolve } from 'node:path';
import { McpClients } from '../mcp/clients.js';
import type { HealthSource, HealthSummary } from '../model/health.js';
import { toolcapVersion } from '../model/version.js';
import { fileTracer } from '../runtime/trace-file.js';
import { DEFAULT_STORE_PATH, loadConfig, mcpCacheDir, type StoreConfig } from '../config/config.js';
import { Registry } from '../registry/registry.js';
import { ProviderTypes } from '../runtime/providers/provider-types.js';
import { Runtime } from '../runtime/runtime.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/types.js';
import type { CliIO } from './io.js';
import { renderDiagnostic } from './render.js';
import type { LoadPlan } from './shared.js';
import { errorMessage } from '../model/errors.js';

export interface RuntimeSetup {
  registry: Registry;
  store: Store;
  runtime: Runtime;
  /** The MCP servers of the config, when MCP is enabled. */
  mcp: McpClients | undefined;
  /** Observed health, with the tools of MCP servers that are down shown as down. */
  health: HealthSource;
  /** How many layers the registry loads (the MCP cache included). */
  layers: number;
  /** Where spans are written (JSON lines), when they are. */
  traceFile: string | undefined;
  close(): Promise<void>;
}

/** The store of a plan: the config's, else `.toolcap/toolcap.db` in the current folder. */
export function storeConfigOf(plan: LoadPlan): StoreConfig {
  return plan.config?.store ?? { kind: 'sqlite', path: resolve(DEFAULT_STORE_PATH) };
}

/** Where traces go: `traces.jsonl` beside an SQLite store, else `.toolcap/traces.jsonl` in the config (or current) folder. */
export function traceFileOf(plan: LoadPlan): string {
  const store = storeConfigOf(plan);
  return store.kind === 'sqlite' ? join(dirname(store.path), 'traces.jsonl') : resolve(plan.config?.root ?? '.', '.toolcap', 'traces.jsonl');
}

/** The MCP settings that matter for connections, without source positions: equal means nothing to redo. */
const mcpSignature = (mcp: McpConfig) => JSON.stringify({ ...mcp, servers: mcp.servers.map(({ location: _l, ...rest }) => rest) });

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
}

/**
 * Build the catalog, open the store and make the runtime. Resolves to a
 * setup, or to an exit code after printing why not (1: the catalog has
 * errors; 2: the store cannot be opened). With `watch`, a change to the
 * config's `mcp` section reconnects the MCP servers and re-discovers their
 * tools (other config changes need a restart).
 */

export async function openRuntime(
  plan: LoadPlan,
  io: CliIO,
  options: {
    watch?: boolean;
    onReload?: ConstructorParameters<typeof Registry>[0]['onReload'];
    traces?: boolean;
    /** Connect to the config's MCP servers (false: their cached tools are still listed, but not callable). @default true */
    mcp?: boolean;
    /** Seed observed health from the store's recent calls (what a long-running server shows in /tools). @default false */
    seedHealth?: boolean;
  } = {},
): Promise<RuntimeSetup | 1 | 2> {
  // MCP servers first: their tools (cached per server) are the first layer of the catalog
  const mcpConfig = plan.config?.mcp;
  let mcp: McpClients | undefined;
  let registry: Registry | undefined;
  let layers = plan.layers;
  const connector = new SwitchableConnector();
  const cacheDir = plan.config ? mcpCacheDir(plan.config) : undefined;
  const makeClients = (config: McpConfig, dir: string) =>
    new McpClients(config, {
      cacheDir: dir,
      clientInfo: { name: 'toolcap', version: toolcapVersion() },
      warn: (m) => io.stderr(`toolcap: mcp: ${m}\n`),
      // a changed tool list rewrites the cache file; reload now rather than wait for the watcher
      onToolsChanged: () => void registry?.refresh(),
    });
  if (cacheDir && mcpConfig?.enabled && mcpConfig.servers.length > 0 && options.mcp !== false) {
    mkdirSync(cacheDir, { recursive: true });
    if (!layers.some((l) => typeof l !== 'string' && l.discovered)) layers = [{ path: cacheDir, discovered: true }, ...layers];
    mcp = makeClients(mcpConfig, cacheDir);
    connector.current = mcp;
    await mcp.start();
  }
  registry = new Registry({ paths: layers, ...plan.options, watch: options.watch ?? false, ...(options.onReload ? { onReload: options.onReload } : {}) });
  const first = await registry.start();
  if (first.kind !== 'reloaded') {
    await registry.close();
    await mcp?.close();
    for (const d of first.kind === 'failed' ? first.diagnostics : []) if (d.severity === 'error') io.stderr(`${renderDiagnostic(d, new Map())}\n`);
    io.stderr('toolcap: the catalog has errors; nothing to serve or run. Fix them (toolcap validate shows them with excerpts).\n');
    return first.kind === 'failed' && first.unreadable ? 2 : 1;
  }
  const storeConfig = storeConfigOf(plan);
  let store: Store;
  try {
    store = await openStore(storeConfig);
  } catch (error) {
    await registry.close();
    await mcp?.close();
    io.stderr(`toolcap: cannot open the store ${storeConfig.kind === 'sqlite' ? storeConfig.path : '(PostgreSQL)'}: ${errorMessage(error)}\n`);
    return 2;
  }
  const approvals = plan.config?.approvals;
  const traces = options.traces === false ? undefined : fileTracer(traceFileOf(plan));
  const runtime = new Runtime({
    ...(traces ? { tracer: traces.tracer } : {}),
    registry,
    store,
    providers: new ProviderTypes({ mcpConnector: connector }),
    ...(approvals?.rules ? { rules: approvals.rules } : {}),
    ...(approvals?.ttlSec !== undefined ? { approvalTtlSec: approvals.ttlSec } : {}),
    environment: { baseDir: plan.config?.root ?? process.cwd() },
    onWarning: (m) => io.stderr(`toolcap: ${m}\n`),
  });
  if (options.seedHealth) {
    try {
      await runtime.loadHealth();
    } catch (error) {
      io.stderr(`toolcap: could not read past call health from the store: ${errorMessage(error)}\n`);
    }
  }
  const health: HealthSource = mcp
    ? {
        // a server going down or coming back changes answers too (cached bodies are keyed by this)
        version: () => {
          let h = runtime.health.version();
          for (const st of connector.current?.status() ?? []) for (const ch of `${st.server}:${st.state}:${st.tools}`) h = (h * 31 + ch.charCodeAt(0)) % 2_147_483_647;
          return h;
        },
        lookup: (name) => {
          const observed = runtime.health.lookup(name);
          const server = /^mcp\.([a-z0-9_-]+)\./.exec(name)?.[1];
          const status = server === undefined ? undefined : connector.current?.status().find((s) => s.server === server);
          if (!status || status.state === 'up') return observed;
          return { ...(observed ?? {}), status: 'down', server: { state: status.state, ...(status.lastError !== undefined ? { lastError: status.lastError } : {}) } } as HealthSummary;
        },
      }
    : runtime.health;
  // config changes: reconnect MCP servers when their settings change
  let configWatcher: FSWatcher | undefined;
  let signature = mcpConfig ? mcpSignature(mcpConfig) : '';
  if (options.watch && mcp && plan.config && cacheDir) {
    const configPath = resolve(plan.config.file);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reconfigure = async () => {
      const loaded = loadConfig(configPath);
      if (!loaded.config) return io.stderr('toolcap: the config has errors; keeping the MCP servers as they are\n');
      const next = loaded.config.mcp;
      if (mcpSignature(next) === signature) return;
      signature = mcpSignature(next);
      const previous = connector.current;
      const clients = makeClients(next, cacheDir);
      await clients.start();
      connector.current = clients;
      await previous?.close();
      // servers no longer configured: their cached tools go
      const kept = new Set(next.enabled ? next.servers.map((s) => discoveryCachePath(cacheDir, s.name)) : []);
      for (const f of readdirSync(cacheDir)) if (f.endsWith('.json') && !kept.has(join(cacheDir, f))) rmSync(join(cacheDir, f), { force: true });
      io.stderr(`toolcap: the MCP settings changed; servers: ${clients.status().map((s) => `${s.server} ${s.state}`).join(', ') || 'none'}\n`);
      await registry?.refresh({ force: true });
    };
    configWatcher = watchPaths(configPath, { ignoreInitial: true });
    configWatcher.on('all', () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void reconfigure().catch((e: unknown) => io.stderr(`toolcap: could not apply the MCP settings: ${errorMessage(e)}\n`)), 200);
    });
    await new Promise<void>((ready) => configWatcher?.once('ready', () => ready()));
  }
  return {
    registry,
    store,
    runtime,
    get mcp() {
      return connector.current;
    },
    health,
    layers: layers.length,
    traceFile: traces ? traceFileOf(plan) : undefined,
    close: async () => {
      await configWatcher?.close();
      await runtime.close();
      await connector.current?.close();
      await traces?.shutdown();
      await registry.close();
      await store.close();
    },
  };
}
