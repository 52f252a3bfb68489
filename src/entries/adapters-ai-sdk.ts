/**
 * `toolcap/adapters/ai-sdk`: toolcap's tools for the Vercel AI SDK (`ai` 6,
 * an optional peer dependency), with the manifests' approval rule as
 * `needsApproval` and execution through toolcap (docs/adapters.md).
 * @example
 * import { toolcapAiTools, httpClient } from 'toolcap/adapters/ai-sdk';
 * const { tools, approvalResponses } = await toolcapAiTools(httpClient({ url: 'http://127.0.0.1:4317' }));
 * @module
 */
export { toolcapAiTools } from '../adapters/ai-sdk.js';
export type { ToolcapAiTools, ToolcapAiToolsOptions, PendingAiApproval } from '../adapters/ai-sdk.js';
export { inProcessClient, httpClient, ToolcapClientError } from '../adapters/client.js';
export type { ToolcapClient, AdapterIdentity, InProcessToolcap, HttpClientOptions } from '../adapters/client.js';
export { adapterTools, adapterToolName } from '../adapters/catalog.js';
export type { AdapterTool, AdapterCatalogOptions } from '../adapters/catalog.js';
export { ApprovalLedger } from '../adapters/approvals.js';
