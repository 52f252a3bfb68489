/**
 * `toolcap/mcp`: MCP both ways. Clients that discover and call the tools of
 * MCP servers, and the gateway that serves a registry as an MCP server over
 * stdio or Streamable HTTP.
 * @example
 * import { createGatewayServer } from 'toolcap/mcp';
 * const gateway = createGatewayServer({ registry, runtime });
 * await gateway.server.connect(transport);
 * @module
 */
export { McpClients } from '../mcp/clients.js';
export type { McpClientsOptions, McpServerStatus } from '../mcp/clients.js';
export { translateTools } from '../mcp/discovery.js';
export { createGatewayServer } from '../mcp/server.js';
export type { Gateway, GatewayOptions } from '../mcp/server.js';
export { GATEWAY_TOOLS_MODES, SEARCH_TOOL, CALL_TOOL } from '../mcp/search-mode.js';
export type { GatewayToolsMode } from '../mcp/search-mode.js';
export { mcpHttpHandler } from '../mcp/http.js';
export type { McpHttpHandler, McpHttpOptions, McpRequestContext } from '../mcp/http.js';
export { BoundedStdioServerTransport, MAX_STDIO_LINE_BYTES } from '../mcp/stdio-server.js';
export { ContainedStdioClientTransport } from '../mcp/stdio-client.js';
export { mcpToolOf, CAPABILITY_META_KEY } from '../mcp/projection.js';
export type { McpCapabilityMeta } from '../mcp/projection.js';
export type { McpConfig, McpServerConfig } from '../mcp/config.js';
