/**
 * MCP servers in the configuration (`mcp:` in toolcap.config.yaml): which
 * servers toolcap discovers tools from and calls through, and the
 * conservative defaults their tools get (seed 000: side effects `network`,
 * timeout 30 s, no parallel calls, consent required, no idempotency key).
 * @module
 */
import type { Location } from '../model/diagnostics.js';
import type { SideEffect } from '../model/vocabulary.js';

/** What a discovered tool gets unless the server config says otherwise. */
export interface McpDefaults {
  /** @default 'network' */
  sideEffects: SideEffect;
  /** @default 30 */
  timeoutSec: number;
  /** @default false */
  allowParallel: boolean;
  /** Each call needs the user's consent (approval). @default true */
  consent: boolean;
  /** Calls carry an idempotency key. @default false */
  idempotencyKey: boolean;
}

export const MCP_DEFAULTS: Readonly<McpDefaults> = Object.freeze({ sideEffects: 'network', timeoutSec: 30, allowParallel: false, consent: true, idempotencyKey: false });

/** What `tools/list` shows: every callable tool (`full`), or the search meta-tools and what they found (`search`). */
export const GATEWAY_TOOLS_MODES = ['full', 'search'] as const;
/** A gateway's `tools` mode. */
export type GatewayToolsMode = (typeof GATEWAY_TOOLS_MODES)[number];

/** Seconds a server's tool list is trusted before it is asked again. @default 300 */
export const DEFAULT_MCP_HEALTH_CHECK_INTERVAL_SEC = 300;

export interface McpServerConfig {
  /** The server's name: discovered tools are `mcp.<name>.<tool>`. */
  name: string;
  /** `http`: Streamable HTTP; `sse`: the older HTTP+SSE transport (config `transport: sse`). */
  transport: 'stdio' | 'http' | 'sse';
  /** stdio: the program (no shell), its arguments, folder and extra environment. */
  command?: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** http: the Streamable HTTP endpoint and extra request headers. */
  url?: string;
  headers: Record<string, string>;
  /** Scope every discovered tool to this persona; absent: shared. */
  persona?: string;
  /** Tool names (the server's own names; `*` wildcards) to keep / drop, after the global lists. */
  allowTools: string[];
  denyTools: string[];
  healthCheckIntervalSec: number;
  defaults: McpDefaults;
  location: Location;
}

export interface McpConfig {
  /** `mcp.enabled`: discovery and MCP calls on. @default true when servers are configured */
  enabled: boolean;
  /** Global allow / deny lists, applied to every server before its own. */
  allowTools: string[];
  denyTools: string[];
  servers: McpServerConfig[];
  /**
   * `mcp.maxResponseBytes`: the largest answer an HTTP server's request may
   * get (a JSON body), and the largest single message of its event streams,
   * in bytes; past it the request fails and its connection is dropped.
   * @default DEFAULT_MAX_BODY_BYTES (10 MiB, the http provider's limit)
   */
  maxResponseBytes?: number;
}

/** A name matches a pattern list entry: exact, or `*` as a wildcard. */
export function nameMatches(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => (p.includes('*') ? new RegExp(`^${p.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(name) : p === name));
}

/**
 * Does a server's tool pass the global and the server's allow/deny lists? An
 * empty allow list allows all. An entry matches the server's own name, that
 * name as `mcp.<server>.<tool>`, or `listed`, the name toolcap lists the tool
 * under (`mcp.fs.delete_file` for `deleteFile`): an operator denies what
 * `toolcap list` shows, and the server, not trusted, picks the case and shape
 * of its own names.
 */
export function toolAllowed(config: McpConfig, server: McpServerConfig, tool: string, listed?: string): boolean {
  const qualified = `mcp.${server.name}.${tool}`;
  const hit = (list: readonly string[]) => nameMatches(list, tool) || nameMatches(list, qualified) || (listed !== undefined && nameMatches(list, listed));
  if (config.allowTools.length > 0 && !hit(config.allowTools)) return false;
  if (hit(config.denyTools)) return false;
  if (server.allowTools.length > 0 && !hit(server.allowTools)) return false;
  return !hit(server.denyTools);
}
