/**
 * `toolcap/adapters/openai-agents`: toolcap's tools for the OpenAI Agents SDK
 * (`@openai/agents`, an optional peer dependency), with `needsApproval` from
 * the manifests and approvals decided in toolcap (docs/adapters.md).
 * @example
 * import { toolcapAgentTools, inProcessClient } from 'toolcap/adapters/openai-agents';
 * const { tools, pendingApprovals, settle } = await toolcapAgentTools(inProcessClient(toolcap, { persona: 'ops' }));
 * @module
 */
export { toolcapAgentTools } from '../adapters/openai-agents.js';
export type { ToolcapAgentTools, ToolcapAgentToolsOptions, PendingToolcapApproval, SettledApprovals, InterruptedState } from '../adapters/openai-agents.js';
export { inProcessClient, httpClient, ToolcapClientError } from '../adapters/client.js';
export type { ToolcapClient, AdapterIdentity, InProcessToolcap, HttpClientOptions } from '../adapters/client.js';
export { adapterTools, adapterToolName } from '../adapters/catalog.js';
export type { AdapterTool, AdapterCatalogOptions } from '../adapters/catalog.js';
export { ApprovalLedger } from '../adapters/approvals.js';
