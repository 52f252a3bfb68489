/**
 * The MCP gateway server: the registry's tools served to MCP clients (Claude
 * Desktop, IDE agents, the SDK's `Client`) over any SDK transport.
 *
 * - `tools/list`: the persona's callable tools, paged (./tool-list.ts), each
 *   projected to an MCP tool (./projection.ts).
 * - `tools/call`: `runtime.call`, so persona scope, argument validation,
 *   approvals, provider failover, timeouts, retries and audit all apply. A
 *   call that needs approval is put to the user through elicitation when the
 *   client supports it (./elicitation.ts), else answered with a tool error
 *   naming the approval id (./call-results.ts).
 * - `notifications/tools/list_changed` after every registry reload that
 *   swapped in a new catalog: the server subscribes to the registry itself.
 *
 * Streamable HTTP sessions are in ./http.ts. See docs/mcp.md.
 * @module
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../model/errors.js';
import { toolcapVersion } from '../model/version.js';
import type { Registry } from '../registry/registry.js';
import { CallError } from '../runtime/errors.js';
import type { Runtime } from '../runtime/runtime.js';
import { callErrorResult, errorResult, okResult, pendingApprovalResult } from './call-results.js';
import { decideByElicitation, MCP_APPROVER } from './elicitation.js';
import { listToolsPage } from './tool-list.js';

/** What a gateway serves, and to whom. */
export interface GatewayOptions {
  registry: Registry;
  runtime: Runtime;
  /** The persona whose tools are served; none: the shared tools only. */
  persona?: string;
  /** Who calls, for the audit log. @default "mcp:<client name>" from the client's initialize, else "mcp-client" */
  caller?: string;
  /** Server name in `initialize`. @default "toolcap" */
  name?: string;
  /** Server version in `initialize`. @default the toolcap version */
  version?: string;
  /** How long to wait for the user to answer an approval elicitation. @default 600000 (10 min) */
  elicitationTimeoutMs?: number;
}

/** One gateway server and its controls. */
export interface Gateway {
  server: Server;
  /** Send `notifications/tools/list_changed` now (nothing when not connected). Never throws. Reloads send it on their own. */
  notifyToolsChanged(): void;
  /** Close the server and stop listening to the registry. */
  close(): Promise<void>;
}

const INSTRUCTIONS =
  'Tools from the toolcap registry. Each tool carries MCP annotations and a _meta["toolcap.dev/capability"] block (mode, side effects, risk, reversibility, approval). Calls that need human approval ask through elicitation when supported, else fail with an approval id to approve out of band.';

/**
 * One MCP server over the registry and runtime. Connect it to a transport;
 * it tells its client when a reload changes the catalog, until closed.
 * @example
 * const gateway = createGatewayServer({ registry, runtime, persona: 'ops' });
 * await gateway.server.connect(new StdioServerTransport());
 */
export function createGatewayServer(options: GatewayOptions): Gateway {
  const { registry, runtime, persona } = options;
  const server = new Server(
    { name: options.name ?? 'toolcap', version: options.version ?? toolcapVersion() },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );
  const elicitationTimeoutMs = options.elicitationTimeoutMs ?? 600_000;
  const callerOf = () => options.caller ?? (server.getClientVersion()?.name ? `mcp:${server.getClientVersion()?.name}` : MCP_APPROVER);

  server.setRequestHandler(ListToolsRequestSchema, (request) => listToolsPage(registry, persona, request.params?.cursor));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    try {
      const result = await runtime.call(name, args, { ...(persona !== undefined ? { persona } : {}), caller: callerOf(), signal: extra.signal });
      if (result.status === 'ok') return okResult(result);
      const decided = await decideByElicitation(result.approval, { server, runtime, timeoutMs: elicitationTimeoutMs, signal: extra.signal }).catch(
        (error: unknown) => (error instanceof CallError ? callErrorResult(error) : undefined),
      );
      return decided ?? pendingApprovalResult(result.approval);
    } catch (error) {
      if (error instanceof CallError) {
        // unknown (or hidden, or disabled) tool: a protocol error, as the MCP spec asks
        if (error.code === 'TOOL_NOT_FOUND') throw new McpError(ErrorCode.InvalidParams, error.message, { code: error.code, tool: name });
        // everything else, invalid arguments included: a tool error the model can read and act on
        return callErrorResult(error);
      }
      return errorResult('INTERNAL', errorMessage(error));
    }
  });

  // The catalog version the client last heard of: a caller that still sends the
  // notice from its own reload hook (it runs first) does not make the client hear it twice.
  let told: number | undefined;
  const notifyToolsChanged = () => {
    if (!server.transport) return;
    told = registry.status().version;
    server.sendToolListChanged().catch(() => undefined);
  };
  const unsubscribe = registry.subscribe((event) => {
    if (event.kind === 'reloaded' && event.version !== told) notifyToolsChanged();
  });
  // a transport that closes on its own (stdin ends, an HTTP session is deleted) ends the subscription too
  server.onclose = unsubscribe;

  return {
    server,
    notifyToolsChanged,
    close: async () => {
      unsubscribe();
      await server.close();
    },
  };
}
