/**
 * The MCP gateway's public names, where the CLI, the package entry and the
 * benchmarks import them from. The gateway itself is split by job:
 * ./projection.ts (a tool as MCP lists it), ./tool-list.ts (paging),
 * ./server.ts (the MCP server: list, call, list_changed),
 * ./elicitation.ts and ./call-results.ts (approvals and answers), and
 * ./http.ts (Streamable HTTP sessions). See docs/mcp.md.
 * @module
 */
export { CALL_META_KEY, ERROR_META_KEY, pendingApprovalResult } from './call-results.js';
export { MCP_APPROVER } from './elicitation.js';
export { mcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from './http.js';
export { CAPABILITY_META_KEY, capabilityMetaOf, mcpToolOf, type McpCapabilityMeta } from './projection.js';
export { createGatewayServer, type Gateway, type GatewayOptions } from './server.js';
export { gatewayTools, MCP_PAGE_SIZE } from './tool-list.js';
