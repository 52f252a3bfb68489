/**
 * The MCP client side of toolcap: one SDK `Client` per configured server
 * (stdio child process or Streamable HTTP), tool discovery into cache files
 * (see ./discovery.ts), and the {@link McpConnector} the `mcp` provider type
 * calls tools through.
 *
 * Lifecycle. `start()` connects every server and never throws: a server that
 * cannot be reached is `down`, its last error is kept (with the tail of a
 * stdio server's stderr), and it is retried in the background with
 * exponential backoff (`backoffDelay()`: the wait doubles per failure up to
 * the cap, and a random share of up to half of it is taken off).
 * A server that was up and drops (its process exits, its transport closes)
 * goes `down` the same way and is restarted. A down server keeps its cache
 * file, so its tools stay listed; `ready()` reports it unhealthy with the
 * reason and when the next reconnect is.
 *
 * Discovery. `tools/list` is read page by page (at most {@link MAX_PAGES}
 * pages and {@link MAX_TOOLS} tools), translated, and written to the cache
 * folder when the translated list differs from the cached one (or there is
 * no cache file yet); `onToolsChanged(server)` is called then. A list is
 * trusted for the server's `healthCheckIntervalSec` and asked again by an
 * unref'd timer; a `notifications/tools/list_changed` re-discovers at once.
 *
 * Call errors: see ./call-outcome.ts. Stdio servers run contained (their
 * own process group, an allow-listed environment): see ./stdio-client.ts.
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import type { McpConnector, McpServerIdentity } from '../runtime/providers/mcp.js';
import { contentHash } from '../model/hash.js';
import { ProviderError, type HealthCheckResult } from '../runtime/providers/types.js';
import type { McpConfig, McpServerConfig } from './config.js';
import { readDiscoveryCache, translateTools, writeDiscoveryCache, type McpServerInfo, type McpToolDefinition } from './discovery.js';
import { errorMessage } from '../model/errors.js';
import { backoffDelay, type BackoffPolicy } from '../runtime/backoff.js';
import { callFailure, callValue, lastLines } from './call-outcome.js';
import { ContainedStdioClientTransport, serverEnv } from './stdio-client.js';
import { listAllTools } from './tool-pages.js';

export { listAllTools, MAX_PAGES, MAX_TOOLS } from './tool-pages.js';

/** How much of a stdio server's stderr is kept for error messages, in characters. */
export const STDERR_TAIL = 4096;
/** Longest wait for a server's `initialize` answer. */
const CONNECT_TIMEOUT_MS = 30_000;
/** The SDK's own request timeout for calls: the caller's signal is the real timeout. */
const CALL_TIMEOUT_MS = 2_147_483_647;

export interface McpClientsOptions {
  /** Folder the discovery cache files (`mcp.<server>.json`) are written to. */
  cacheDir: string;
  /** A server's translated tool list changed (its cache file was rewritten). */
  onToolsChanged?: (server: string) => void;
  /** Where connection problems are reported. @default nothing */
  warn?: (message: string) => void;
  /** Milliseconds since the epoch. @default Date.now */
  clock?: () => number;
  /** How toolcap introduces itself to servers. @default { name: 'toolcap', version: '0' } */
  clientInfo?: { name: string; version: string };
  /** Reconnect backoff: first delay and cap, milliseconds. @default { initialMs: 1000, maxMs: 60000 } */
  backoff?: { initialMs?: number; maxMs?: number };
  /** SIGTERM -> SIGKILL delay when a stdio server's process group is ended. @default DEFAULT_KILL_GRACE_MS (2 s) */
  killGraceMs?: number;
}

export type McpServerState = 'up' | 'connecting' | 'down';

export interface McpServerStatus {
  server: string;
  state: McpServerState;
  /** Tools listed for the server (from the last discovery, or its cache file). */
  tools: number;
  lastError?: string;
  /** When the next reconnect attempt is (ms since the epoch), while down. */
  backoffUntil?: number;
  discoveredAt?: string;
}

/** What one discovery of one server gave. */
export interface DiscoveryOutcome {
  server: string;
  ok: boolean;
  /** The server's tools now (unchanged from the cache when discovery failed). */
  tools: Tool[];
  diagnostics: Diagnostic[];
  /** The cache file was rewritten (and onToolsChanged called). */
  changed: boolean;
  error?: string;
}

interface Entry {
  config: McpServerConfig;
  state: McpServerState;
  client?: Client | undefined;
  /** The client of a connect in progress. */
  pending?: Client | undefined;
  stderr: string;
  lastError?: string;
  failures: number;
  backoffUntil?: number;
  retryTimer?: NodeJS.Timeout | undefined;
  refreshTimer?: NodeJS.Timeout | undefined;
  tools: Tool[];
  /** The tools and serverInfo as last written (JSON), to tell whether a discovery changed anything; undefined: no cache file. */
  written?: string;
  /** `serverInfo` of the last `initialize` answer (or the cache file): kept while down. */
  serverInfo?: McpServerInfo;
  discoveredAt?: string;
  connecting?: Promise<void> | undefined;
  discovery: Promise<unknown>;
}

const message = (err: unknown): string => errorMessage(err);

/**
 * The reconnect policy: the wait for failure n is `initialMs * 2^(n-1)`,
 * capped at `maxMs`, times 1 ± 0.5; drawn with {@link halfRandom}, only the
 * lower half of that spread is used, so the wait lies in [full/2, full] and
 * never passes the cap.
 */
function reconnectPolicy(backoff: McpClientsOptions['backoff']): BackoffPolicy {
  return { baseMs: backoff?.initialMs ?? 1000, factor: 2, capMs: backoff?.maxMs ?? 60_000, jitter: 0.5, threshold: 1 };
}

/** A uniform draw in [0, 0.5): jitter that only ever shortens a wait. */
const halfRandom = () => Math.random() / 2;

/** MCP clients for every configured server. */
export class McpClients implements McpConnector {
  readonly #config: McpConfig;
  readonly #options: McpClientsOptions;
  readonly #clock: () => number;
  readonly #reconnect: BackoffPolicy;
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  constructor(config: McpConfig, options: McpClientsOptions) {
    this.#config = config;
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#reconnect = reconnectPolicy(options.backoff);
    for (const server of config.servers) {
      const cached = readDiscoveryCache(options.cacheDir, server.name);
      const entry: Entry = { config: server, state: 'down', stderr: '', failures: 0, tools: cached?.tools ?? [], discovery: Promise.resolve() };
      if (cached) {
        entry.written = cacheSignature(cached.tools, cached.serverInfo);
        if (cached.serverInfo !== undefined) entry.serverInfo = cached.serverInfo;
        if (cached.discoveredAt !== undefined) entry.discoveredAt = cached.discoveredAt;
      }
      this.#entries.set(server.name, entry);
    }
  }

  /** Connect (and discover) every server. Never throws; failed servers are retried in the background. */
  async start(): Promise<void> {
    if (!this.#config.enabled) return;
    await Promise.all([...this.#entries.values()].map((e) => this.#connect(e)));
  }

  /** Discover one server's tools, or every connected server's. */
  async discover(serverName?: string): Promise<DiscoveryOutcome[]> {
    const entries = serverName === undefined ? [...this.#entries.values()] : [this.#entry(serverName)];
    return Promise.all(entries.map((e) => this.#queueDiscovery(e)));
  }

  /** The tools currently listed for a server (last discovery or cache file). */
  tools(server: string): Tool[] {
    return [...this.#entry(server).tools];
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const entry = this.#entries.get(server);
    const what = `MCP tool "${tool}" on server "${server}"`;
    if (!entry) throw new ProviderError('PROVIDER_UNAVAILABLE', `${what}: no MCP server "${server}" is configured`, true);
    if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted before it started`, true, { cause: signal.reason });
    const client = entry.client;
    if (entry.state !== 'up' || !client) {
      throw new ProviderError('PROVIDER_UNAVAILABLE', `${what}: ${this.#downReason(entry)}`, true);
    }
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: CALL_TIMEOUT_MS });
    } catch (err) {
      throw callFailure(err, { what, signal, stderr: entry.stderr });
    }
    return callValue(result, what);
  }

  /**
   * Who `server` is, for approvals bound to code: its configured command and
   * args (stdio) or URL, the name and version it reported at `initialize`,
   * and the content hash of `tool`'s listed input schema. The last known
   * values, kept while the server is down and across restarts (the cache
   * file holds them), so a reconnect does not void approvals; a server that
   * reports a new version or lists a changed schema does.
   */
  identity(server: string, tool: string): McpServerIdentity | undefined {
    const e = this.#entries.get(server);
    if (!e) return undefined;
    const cfg = e.config;
    const id: McpServerIdentity = cfg.transport === 'stdio' ? { ...(cfg.command !== undefined ? { command: cfg.command } : {}), args: [...cfg.args] } : { ...(cfg.url !== undefined ? { url: cfg.url } : {}) };
    if (e.serverInfo !== undefined) Object.assign(id, e.serverInfo);
    const listed = e.tools.find((t) => (t.id ?? t.name) === tool);
    if (listed !== undefined) id.inputSchema = contentHash(listed.inputSchema ?? null);
    return id;
  }

  ready(server: string): HealthCheckResult {
    const entry = this.#entries.get(server);
    if (!entry) return { healthy: false, reason: `no MCP server "${server}" is configured` };
    if (entry.state === 'up' && entry.client) return { healthy: true };
    return { healthy: false, reason: this.#downReason(entry) };
  }

  status(): McpServerStatus[] {
    return [...this.#entries.values()].map((e) => {
      const s: McpServerStatus = { server: e.config.name, state: e.state, tools: e.tools.length };
      if (e.lastError !== undefined) s.lastError = e.lastError;
      if (e.state !== 'up' && e.backoffUntil !== undefined) s.backoffUntil = e.backoffUntil;
      if (e.discoveredAt !== undefined) s.discoveredAt = e.discoveredAt;
      return s;
    });
  }

  /** Close every client and stop every child process; no reconnects after this. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      [...this.#entries.values()].map(async (e) => {
        clearTimeout(e.retryTimer);
        clearTimeout(e.refreshTimer);
        // A connect in progress is cut short: closing its client rejects the pending initialize.
        await e.pending?.close().catch(() => {});
        await e.connecting?.catch(() => {});
        const client = e.client;
        delete e.client;
        e.state = 'down';
        await client?.close().catch(() => {});
      }),
    );
  }

  #entry(server: string): Entry {
    const e = this.#entries.get(server);
    if (!e) throw new Error(`no MCP server "${server}" is configured`);
    return e;
  }

  #downReason(e: Entry): string {
    const name = `MCP server "${e.config.name}"`;
    if (!this.#config.enabled) return `${name}: MCP is disabled (mcp.enabled is false)`;
    if (e.state === 'connecting') return `${name} is connecting`;
    const why = e.lastError ?? (this.#closed ? 'closed' : 'not connected');
    const next = e.backoffUntil !== undefined && !this.#closed ? `; next reconnect at ${new Date(e.backoffUntil).toISOString()}` : '';
    return `${name} is down: ${why}${next}`;
  }

  #warn(text: string): void {
    this.#options.warn?.(text);
  }

  #connect(e: Entry): Promise<void> {
    if (this.#closed) return Promise.resolve();
    e.connecting ??= this.#doConnect(e).finally(() => {
      e.connecting = undefined;
    });
    return e.connecting;
  }

  async #doConnect(e: Entry): Promise<void> {
    clearTimeout(e.retryTimer);
    e.retryTimer = undefined;
    e.state = 'connecting';
    e.stderr = '';
    const cfg = e.config;
    const client = new Client(this.#options.clientInfo ?? { name: 'toolcap', version: '0' }, { capabilities: {} });
    try {
      let transport: ContainedStdioClientTransport | StreamableHTTPClientTransport;
      if (cfg.transport === 'stdio') {
        if (cfg.command === undefined || cfg.command === '') throw new Error('no command is configured');
        transport = new ContainedStdioClientTransport({
          command: cfg.command,
          args: cfg.args,
          env: serverEnv(cfg),
          ...(cfg.cwd !== undefined ? { cwd: cfg.cwd } : {}),
          onStderr: (text) => {
            e.stderr = (e.stderr + text).slice(-STDERR_TAIL);
          },
          ...(this.#options.killGraceMs !== undefined ? { killGraceMs: this.#options.killGraceMs } : {}),
        });
      } else {
        if (cfg.url === undefined || cfg.url === '') throw new Error('no url is configured');
        transport = new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers: { ...cfg.headers } } });
      }
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (e.client === client) void this.#queueDiscovery(e);
      });
      client.onclose = () => this.#onClose(e, client);
      e.pending = client;
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      e.pending = undefined;
      if (this.#closed) {
        await client.close().catch(() => {});
        return;
      }
      const info = client.getServerVersion();
      if (info !== undefined) e.serverInfo = { name: info.name, version: info.version };
      e.client = client;
      e.state = 'up';
      e.failures = 0;
      delete e.backoffUntil;
      delete e.lastError;
    } catch (err) {
      e.pending = undefined;
      await client.close().catch(() => {});
      this.#failed(e, `could not connect: ${this.#describe(e, err)}`);
      return;
    }
    await this.#queueDiscovery(e);
  }

  #describe(e: Entry, err: unknown): string {
    let text = message(err);
    const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
    if (code === 'ENOENT' && e.config.transport === 'stdio') text = `command not found: ${e.config.command} (${text})`;
    else if (err instanceof Error && err.cause instanceof Error && !text.includes(err.cause.message)) text += ` (${err.cause.message})`;
    const tail = e.stderr.trim();
    return tail === '' ? text : `${text}; stderr: ${lastLines(tail)}`;
  }

  #onClose(e: Entry, client: Client): void {
    if (e.client !== client || this.#closed) return;
    e.client = undefined;
    clearTimeout(e.refreshTimer);
    this.#failed(e, e.config.transport === 'stdio' ? `server exited${e.stderr.trim() === '' ? '' : `; stderr: ${lastLines(e.stderr)}`}` : 'connection closed');
  }

  /** Mark a server down and schedule the next attempt. */
  #failed(e: Entry, why: string): void {
    e.state = 'down';
    e.lastError = why;
    if (this.#closed) return;
    e.failures += 1;
    const delay = backoffDelay(e.failures, this.#reconnect, halfRandom);
    e.backoffUntil = this.#clock() + delay;
    this.#warn(`MCP server "${e.config.name}" is down (${why}); retrying in ${delay} ms`);
    clearTimeout(e.retryTimer);
    e.retryTimer = setTimeout(() => {
      e.retryTimer = undefined;
      void this.#connect(e);
    }, delay);
    e.retryTimer.unref();
  }

  /** Discoveries of one server run one after another, so the last one reads the newest list. */
  #queueDiscovery(e: Entry): Promise<DiscoveryOutcome> {
    const run = e.discovery.then(() => this.#discoverOnce(e));
    e.discovery = run.catch(() => {});
    return run;
  }

  async #discoverOnce(e: Entry): Promise<DiscoveryOutcome> {
    const server = e.config.name;
    const client = e.client;
    const failed = (error: string): DiscoveryOutcome => ({ server, ok: false, tools: [...e.tools], diagnostics: [], changed: false, error });
    if (!client || e.state !== 'up') return failed(this.#downReason(e));
    let listed: McpToolDefinition[];
    let truncated: string | undefined;
    try {
      ({ tools: listed, truncated } = await listAllTools(client));
    } catch (err) {
      const why = `tools/list failed: ${message(err)}`;
      if (e.client === client) e.lastError = why;
      this.#warn(`MCP server "${server}": ${why}`);
      this.#scheduleRefresh(e);
      return failed(why);
    }
    if (truncated !== undefined) this.#warn(`MCP server "${server}": ${truncated}`);
    const { tools, diagnostics } = translateTools(this.#config, e.config, listed);
    const json = cacheSignature(tools, e.serverInfo);
    const discoveredAt = new Date(this.#clock()).toISOString();
    let changed = false;
    if (json !== e.written) {
      try {
        writeDiscoveryCache(this.#options.cacheDir, server, tools, discoveredAt, e.serverInfo);
        e.written = json;
        changed = true;
      } catch (err) {
        this.#warn(`MCP server "${server}": could not write the discovery cache: ${message(err)}`);
      }
    }
    e.tools = tools;
    e.discoveredAt = discoveredAt;
    this.#scheduleRefresh(e);
    if (changed) {
      try {
        this.#options.onToolsChanged?.(server);
      } catch (err) {
        this.#warn(`onToolsChanged("${server}") threw: ${message(err)}`);
      }
    }
    return { server, ok: true, tools: [...tools], diagnostics, changed };
  }

  #scheduleRefresh(e: Entry): void {
    clearTimeout(e.refreshTimer);
    if (this.#closed) return;
    e.refreshTimer = setTimeout(() => {
      e.refreshTimer = undefined;
      if (e.state === 'up') void this.#queueDiscovery(e);
    }, Math.max(1, e.config.healthCheckIntervalSec) * 1000);
    e.refreshTimer.unref();
  }
}

/** What a cache file says, to tell whether a discovery changed it. */
function cacheSignature(tools: readonly Tool[], serverInfo: McpServerInfo | undefined): string {
  return JSON.stringify({ tools, serverInfo: serverInfo ?? null });
}
