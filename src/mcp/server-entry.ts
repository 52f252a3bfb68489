/**
 * What the MCP clients (./clients.ts) know about each configured MCP
 * server, and the context the connection (./connection.ts) and discovery
 * refresh (./discovery-refresh.ts) modules share: the options, the clock,
 * the reconnect policy and whether the clients are closed.
 *
 * An entry starts from the server's discovery cache file, so a server that
 * never connects still lists its last known tools and identity.
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '../model/schema.js';
import type { McpServerIdentity } from '../runtime/providers/mcp.js';
import type { BackoffPolicy } from '../runtime/backoff.js';
import type { Resolver } from '../runtime/containment/egress.js';
import type { ProviderEgress } from '../runtime/providers/types.js';
import type { UpstreamFetch } from './upstream-fetch.js';
import type { UpstreamTooLargeError } from './upstream-errors.js';
import { contentHash } from '../model/hash.js';
import type { McpConfig, McpServerConfig } from './config.js';
import { readDiscoveryCache, type McpServerInfo } from './discovery.js';

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
  /**
   * The config's `egress` section: HTTP servers' DNS answers and redirects
   * are checked against it (their own URL's host is always allowed; see ./upstream-fetch.ts).
   * @default only each server's own host
   */
  egress?: ProviderEgress;
  /** DNS lookup for HTTP servers' hosts (tests inject one). @default node:dns/promises lookup */
  resolver?: Resolver;
  /** SIGTERM -> SIGKILL delay when a stdio server's process group is ended. @default DEFAULT_KILL_GRACE_MS (2 s) */
  killGraceMs?: number;
}

/** Where a server's connection is: `down` servers are retried with backoff. */
export type McpServerState = 'up' | 'connecting' | 'down';

/** One server as `McpClients.status()` reports it. */
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

/** The mutable state of one configured server. */
export interface ServerEntry {
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
  /** Why toolcap closed the connection itself (an HTTP+SSE message past the size limit); cleared by the next connect. */
  closedBy?: UpstreamTooLargeError;
  /** An HTTP server's guarded fetch and its connection pool (closed by disconnect). */
  upstream?: UpstreamFetch | undefined;
  discovery: Promise<unknown>;
}

/** What every server's connection and refresh share; `closed` is set once, by `close()`. */
export interface ClientsContext {
  readonly config: McpConfig;
  readonly options: McpClientsOptions;
  readonly clock: () => number;
  readonly reconnect: BackoffPolicy;
  closed: boolean;
}

/** A server's entry, seeded from its discovery cache file when there is one. */
export function newEntry(server: McpServerConfig, cacheDir: string): ServerEntry {
  const cached = readDiscoveryCache(cacheDir, server.name);
  const entry: ServerEntry = { config: server, state: 'down', stderr: '', failures: 0, tools: cached?.tools ?? [], discovery: Promise.resolve() };
  if (cached) {
    entry.written = cacheSignature(cached.tools, cached.serverInfo);
    if (cached.serverInfo !== undefined) entry.serverInfo = cached.serverInfo;
    if (cached.discoveredAt !== undefined) entry.discoveredAt = cached.discoveredAt;
  }
  return entry;
}

/** What a cache file says, to tell whether a discovery changed it. */
export function cacheSignature(tools: readonly Tool[], serverInfo: McpServerInfo | undefined): string {
  return JSON.stringify({ tools, serverInfo: serverInfo ?? null });
}

/** Why a server cannot take calls now, with the next reconnect time when one is scheduled. */
export function downReason(ctx: ClientsContext, e: ServerEntry): string {
  const name = `MCP server "${e.config.name}"`;
  if (!ctx.config.enabled) return `${name}: MCP is disabled (mcp.enabled is false)`;
  if (e.state === 'connecting') return `${name} is connecting`;
  const why = e.lastError ?? (ctx.closed ? 'closed' : 'not connected');
  const next = e.backoffUntil !== undefined && !ctx.closed ? `; next reconnect at ${new Date(e.backoffUntil).toISOString()}` : '';
  return `${name} is down: ${why}${next}`;
}

/** The entry as {@link McpServerStatus}: the backoff time only while not up. */
export function serverStatus(e: ServerEntry): McpServerStatus {
  const s: McpServerStatus = { server: e.config.name, state: e.state, tools: e.tools.length };
  if (e.lastError !== undefined) s.lastError = e.lastError;
  if (e.state !== 'up' && e.backoffUntil !== undefined) s.backoffUntil = e.backoffUntil;
  if (e.discoveredAt !== undefined) s.discoveredAt = e.discoveredAt;
  return s;
}

/**
 * Who the server is, for approvals bound to code: its configured command and
 * args (stdio) or URL, the name and version it reported at `initialize`, and
 * the content hash of `tool`'s listed input schema.
 */
export function serverIdentity(e: ServerEntry, tool: string): McpServerIdentity {
  const cfg = e.config;
  const id: McpServerIdentity = cfg.transport === 'stdio' ? { ...(cfg.command !== undefined ? { command: cfg.command } : {}), args: [...cfg.args] } : { ...(cfg.url !== undefined ? { url: cfg.url } : {}) };
  if (e.serverInfo !== undefined) Object.assign(id, e.serverInfo);
  const listed = e.tools.find((t) => (t.id ?? t.name) === tool);
  if (listed !== undefined) id.inputSchema = contentHash(listed.inputSchema ?? null);
  return id;
}
