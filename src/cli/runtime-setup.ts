/**
 * What the commands that run tools share (`serve`, `call`, `approvals`):
 * the registry, the store the config names (SQLite in `.toolcap/` by
 * default) and the runtime over both.
 * @module
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { McpClients } from '../mcp/clients.js';
import type { HealthSource, HealthSummary } from '../service/views.js';
import { toolcapVersion } from '../version.js';
import { fileTracer } from '../runtime/trace-file.js';
import { DEFAULT_STORE_PATH, mcpCacheDir, type StoreConfig } from '../load/config.js';
import { Registry } from '../registry/registry.js';
import { ProviderTypes } from '../runtime/providers/registry.js';
import { Runtime } from '../runtime/runtime.js';
import { openStore } from '../store/open.js';
import type { Store } from '../store/types.js';
import type { CliIO } from './io.js';
import { renderDiagnostic } from './render.js';
import type { LoadPlan } from './shared.js';

export interface RuntimeSetup {
  registry: Registry;
  store: Store;
  runtime: Runtime;
  /** The MCP servers of the config, when MCP is enabled. */
  mcp: McpClients | undefined;
  /** Observed health, with the tools of MCP servers that are down shown as down. */
  health: HealthSource;
  /** Where spans are written (JSON lines), when they are. */
  traceFile: string | undefined;
  close(): Promise<void>;
}

/** The store of a plan: the config's, else `.toolcap/toolcap.db` in the current folder. */
export function storeConfigOf(plan: LoadPlan): StoreConfig {
  return plan.config?.store ?? { kind: 'sqlite', path: resolve(DEFAULT_STORE_PATH) };
}

/**
 * Build the catalog, open the store and make the runtime. Resolves to a
 * setup, or to an exit code after printing why not (1: the catalog has
 * errors; 2: the store cannot be opened).
 */
/** Where traces go: `traces.jsonl` beside an SQLite store, else `.toolcap/traces.jsonl` in the config (or current) folder. */
export function traceFileOf(plan: LoadPlan): string {
  const store = storeConfigOf(plan);
  return store.kind === 'sqlite' ? join(dirname(store.path), 'traces.jsonl') : resolve(plan.config?.root ?? '.', '.toolcap', 'traces.jsonl');
}

export async function openRuntime(
  plan: LoadPlan,
  io: CliIO,
  options: {
    watch?: boolean;
    onReload?: ConstructorParameters<typeof Registry>[0]['onReload'];
    traces?: boolean;
    /** Connect to the config's MCP servers (false: their cached tools are still listed, but not callable). @default true */
    mcp?: boolean;
  } = {},
): Promise<RuntimeSetup | 1 | 2> {
  // MCP servers first: their tools (cached per server) are the first layer of the catalog
  const mcpConfig = plan.config?.mcp;
  let mcp: McpClients | undefined;
  let registry: Registry | undefined;
  let layers = plan.layers;
  if (plan.config && mcpConfig?.enabled && mcpConfig.servers.length > 0 && options.mcp !== false) {
    const cacheDir = mcpCacheDir(plan.config);
    mkdirSync(cacheDir, { recursive: true });
    if (!layers.some((l) => typeof l !== 'string' && l.discovered)) layers = [{ path: cacheDir, discovered: true }, ...layers];
    mcp = new McpClients(mcpConfig, {
      cacheDir,
      clientInfo: { name: 'toolcap', version: toolcapVersion() },
      warn: (m) => io.stderr(`toolcap: mcp: ${m}\n`),
      // a changed tool list rewrites the cache file; reload now rather than wait for the watcher
      onToolsChanged: () => void registry?.refresh(),
    });
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
    io.stderr(`toolcap: cannot open the store ${storeConfig.kind === 'sqlite' ? storeConfig.path : '(PostgreSQL)'}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const approvals = plan.config?.approvals;
  const traces = options.traces === false ? undefined : fileTracer(traceFileOf(plan));
  const runtime = new Runtime({
    ...(traces ? { tracer: traces.tracer } : {}),
    registry,
    store,
    providers: new ProviderTypes(mcp ? { mcpConnector: mcp } : {}),
    ...(approvals?.rules ? { rules: approvals.rules } : {}),
    ...(approvals?.ttlSec !== undefined ? { approvalTtlSec: approvals.ttlSec } : {}),
    environment: { baseDir: plan.config?.root ?? process.cwd() },
    onWarning: (m) => io.stderr(`toolcap: ${m}\n`),
  });
  try {
    await runtime.loadHealth();
  } catch (error) {
    io.stderr(`toolcap: could not read past call health from the store: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  const clients = mcp;
  const health: HealthSource = clients
    ? {
        version: () => runtime.health.version(),
        lookup: (name) => {
          const observed = runtime.health.lookup(name);
          const server = /^mcp\.([a-z0-9_-]+)\./.exec(name)?.[1];
          const status = server === undefined ? undefined : clients.status().find((s) => s.server === server);
          if (!status || status.state === 'up') return observed;
          return { ...(observed ?? {}), status: 'down', server: { state: status.state, ...(status.lastError !== undefined ? { lastError: status.lastError } : {}) } } as HealthSummary;
        },
      }
    : runtime.health;
  return {
    registry,
    store,
    runtime,
    mcp: clients,
    health,
    traceFile: traces ? traceFileOf(plan) : undefined,
    close: async () => {
      await runtime.close();
      await clients?.close();
      await traces?.shutdown();
      await registry.close();
      await store.close();
    },
  };
}
