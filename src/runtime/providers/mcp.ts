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

/** What the MCP provider needs from an MCP client. */
export interface McpConnector {
  /** Call `tool` on `server`; resolve to its result, reject on failure (a ProviderError passes through as is). */
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Whether the server is connected/known. Absent: healthy. */
  ready?(server: string): HealthCheckResult;
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
  ) {
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
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
      return new McpInstance(entry.name, readMcpConfig(entry, tool), connector);
    },
  };
}

/** The `mcp` type without a client. */
export const mcpProviderType: ProviderType = createMcpProviderType();
