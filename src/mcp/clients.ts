/**
 * The MCP client side of toolcap: one SDK `Client` per configured server
 * (stdio child process or Streamable HTTP), tool discovery into cache files
 * (see ./discovery.ts), and the {@link McpConnector} the `mcp` provider type
 * calls tools through.
 *
 * Lifecycle (./connection.ts). `start()` connects every server and never
 * throws: a server that cannot be reached is `down`, its last error is kept,
 * and it is retried in the background with exponential backoff. A down
 * server keeps its cache file, so its tools stay listed; `ready()` reports
 * it unhealthy with the reason and when the next reconnect is.
 *
 * Discovery (./discovery-refresh.ts). `tools/list` is read page by page (at
 * most {@link MAX_PAGES} pages and {@link MAX_TOOLS} tools), cached, and
 * refreshed on a timer and on `notifications/tools/list_changed`.
 *
 * Calls (./tool-call.ts); call errors: see ./call-outcome.ts. Stdio servers
 * run contained (their own process group, an allow-listed environment): see
 * ./stdio-client.ts; HTTP servers' requests go under the egress policy and
 * the answer size limit (`mcp.maxResponseBytes`): see ./upstream-fetch.ts.
 * @module
 */
import type { Tool } from '../model/schema.js';
import type { McpConnector, McpServerIdentity } from '../runtime/providers/mcp.js';
import type { HealthCheckResult } from '../runtime/providers/types.js';
import type { McpConfig } from './config.js';
import { connect, disconnect, reconnectPolicy } from './connection.js';
import { queueDiscovery, type DiscoveryOutcome } from './discovery-refresh.js';
import { downReason, newEntry, serverIdentity, serverStatus, type ClientsContext, type McpClientsOptions, type McpServerStatus, type ServerEntry } from './server-entry.js';
import { callServerTool } from './tool-call.js';

export { listAllTools, MAX_PAGES, MAX_TOOLS } from './tool-pages.js';
export { STDERR_TAIL } from './connection.js';
export type { DiscoveryOutcome } from './discovery-refresh.js';
export type { McpClientsOptions, McpServerState, McpServerStatus } from './server-entry.js';

/** MCP clients for every configured server. */
export class McpClients implements McpConnector {
  readonly #ctx: ClientsContext;
  readonly #entries = new Map<string, ServerEntry>();

  constructor(config: McpConfig, options: McpClientsOptions) {
    this.#ctx = { config, options, clock: options.clock ?? Date.now, reconnect: reconnectPolicy(options.backoff), closed: false };
    for (const server of config.servers) this.#entries.set(server.name, newEntry(server, options.cacheDir));
  }

  /** Connect (and discover) every server. Never throws; failed servers are retried in the background. */
  async start(): Promise<void> {
    if (!this.#ctx.config.enabled) return;
    await Promise.all([...this.#entries.values()].map((e) => connect(this.#ctx, e)));
  }

  /** Discover one server's tools, or every connected server's. */
  async discover(serverName?: string): Promise<DiscoveryOutcome[]> {
    const entries = serverName === undefined ? [...this.#entries.values()] : [this.#entry(serverName)];
    return Promise.all(entries.map((e) => queueDiscovery(this.#ctx, e)));
  }

  /** The tools currently listed for a server (last discovery or cache file). */
  tools(server: string): Tool[] {
    return [...this.#entry(server).tools];
  }

  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    return callServerTool(this.#ctx, this.#entries.get(server), server, tool, args, signal);
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
    return e ? serverIdentity(e, tool) : undefined;
  }

  ready(server: string): HealthCheckResult {
    const entry = this.#entries.get(server);
    if (!entry) return { healthy: false, reason: `no MCP server "${server}" is configured` };
    if (entry.state === 'up' && entry.client) return { healthy: true };
    return { healthy: false, reason: downReason(this.#ctx, entry) };
  }

  status(): McpServerStatus[] {
    return [...this.#entries.values()].map(serverStatus);
  }

  /** Close every client and stop every child process; no reconnects after this. */
  async close(): Promise<void> {
    this.#ctx.closed = true;
    await Promise.all([...this.#entries.values()].map(disconnect));
  }

  #entry(server: string): ServerEntry {
    const e = this.#entries.get(server);
    if (!e) throw new Error(`no MCP server "${server}" is configured`);
    return e;
  }
}
