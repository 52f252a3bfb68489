/**
 * The `mcp` provider type: run a tool through an MCP server. The MCP client
 * itself arrives with the MCP gateway; until then the type takes an injected
 * {@link McpConnector}, and without one every instance is unavailable.
 *
 * Config: `{ server: string, tool?: string }` (the ATLAS static wrapper
 * shape `{ name: "mcp", config: { server, tool } }`). `tool` defaults to the
 * tool's `id` (the source name, when it differs from the toolcap name), else
 * its `name`.
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import {
  ProviderConfigError,
  ProviderError,
  type HealthCheckResult,
  type ProviderCallContext,
  type ProviderEnvironment,
  type ProviderInstance,
  type ProviderType,
} from './types.js';
import { errorMessage } from '../../model/errors.js';
import { raceAbort } from '../abort.js';
import { codeIdentityOf } from './identity.js';

/**
 * Who an MCP server is, for approvals bound to code: how it is started or
 * reached, and what it said it is.
 */
export interface McpServerIdentity {
  /** A stdio server's program and arguments. */
  command?: string;
  args?: readonly string[];
  /** A Streamable HTTP server's URL. */
  url?: string;
  /** `serverInfo` from the server's `initialize` answer, when connected. */
  name?: string;
  version?: string;
  /** The tool's `inputSchema` as the server lists it, when known. */
  inputSchema?: unknown;
}

/** What the MCP provider needs from an MCP client. */
export interface McpConnector {
  /** Call `tool` on `server`; resolve to its result, reject on failure (a ProviderError passes through as is). */
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Whether the server is connected/known. Absent: healthy. */
  ready?(server: string): HealthCheckResult;
  /**
   * The server's identity and the tool's listed schema (see
   * {@link McpServerIdentity}); undefined for a server it does not know.
   * The last known values, also while the server is down (from the
   * discovery cache), so an identity does not change with the connection
   * state and void approvals for nothing. Absent: the code identity rests
   * on the server's name, the tool and the manifest's schema only.
   */
  identity?(server: string, tool: string): McpServerIdentity | undefined;
}

export interface McpProviderConfig {
  server: string;
  tool: string;
  healthCheckIntervalSec?: number;
}

function readMcpConfig(entry: Provider, tool: Tool): McpProviderConfig {
  const c = entry.config ?? {};
  const fail = (msg: string): never => {
    throw new ProviderConfigError(`provider "${entry.name}" of tool "${tool.name}": ${msg}`);
  };
  const server = c['server'];
  if (typeof server !== 'string' || server === '') return fail('config.server must name an MCP server');
  const toolName = c['tool'] ?? tool.id ?? tool.name;
  if (typeof toolName !== 'string' || toolName === '') return fail('config.tool must be a non-empty string');
  const out: McpProviderConfig = { server, tool: toolName };
  const interval = c['healthCheckIntervalSec'];
  if (interval !== undefined) {
    if (typeof interval !== 'number' || !(interval > 0)) fail('config.healthCheckIntervalSec must be a positive number');
    out.healthCheckIntervalSec = interval as number;
  }
  return out;
}

/** Why an instance without a connector is unavailable. */
function noMcpClientReason(server: string): string {
  return `no MCP client is configured for server "${server}" (MCP support arrives with the MCP gateway)`;
}

class McpInstance implements ProviderInstance {
  readonly type = 'mcp';
  declare readonly healthCheckIntervalSec?: number;

  constructor(
    readonly name: string,
    readonly config: McpProviderConfig,
    private readonly connector: McpConnector | undefined,
    private readonly inputSchema: unknown,
  ) {
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
  }

  /**
   * The server (its command and args or URL, its reported name and
   * version, the tool's listed schema: whatever the connector knows), the
   * tool, and the manifest's input schema.
   */
  async codeIdentity(): Promise<string> {
    return codeIdentityOf('mcp', {
      server: this.config.server,
      tool: this.config.tool,
      identity: this.connector?.identity?.(this.config.server, this.config.tool) ?? null,
      inputSchema: this.inputSchema ?? null,
    });
  }

  ready(): HealthCheckResult {
    if (!this.connector) return { healthy: false, reason: noMcpClientReason(this.config.server) };
    return this.connector.ready?.(this.config.server) ?? { healthy: true };
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const { signal } = context;
    const what = `MCP tool "${this.config.tool}" on server "${this.config.server}"`;
    if (!this.connector) throw new ProviderError('PROVIDER_UNAVAILABLE', noMcpClientReason(this.config.server), true);
    if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted before it started`, true, { cause: signal.reason });
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(this.connector.callTool(this.config.server, this.config.tool, args, signal));
    } catch (err) {
      pending = Promise.reject(err);
    }
    try {
      // callTool has been invoked by now, so an abort never counts as before any effect
      return await raceAbort(pending, signal, () => new ProviderError('ABORTED', `${what}: aborted`, false, { cause: signal.reason }));
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted`, false, { cause: err });
      throw new ProviderError('PROVIDER_ERROR', `${what}: ${errorMessage(err)}`, false, { cause: err });
    }
  }
}

/** An `mcp` provider type using `connector` (none: every instance is unavailable). */
export function createMcpProviderType(connector?: McpConnector): ProviderType {
  return {
    type: 'mcp',
    create(entry: Provider, tool: Tool, _environment: ProviderEnvironment): ProviderInstance {
      return new McpInstance(entry.name, readMcpConfig(entry, tool), connector, tool.inputSchema);
    },
  };
}

/** The `mcp` type without a client. */
export const mcpProviderType: ProviderType = createMcpProviderType();
