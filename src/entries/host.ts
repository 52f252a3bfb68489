/**
 * `toolcap/host`: everything wired from a config, as the `toolcap` command
 * runs it: the registry, the store, the runtime, the MCP clients and merged
 * health, with one `close()`.
 * @example
 * import { createToolcap } from 'toolcap/host';
 * const toolcap = await createToolcap('toolcap.config.yaml');
 * const result = await toolcap.runtime.call('text.reverse', { text: 'abc' }, {});
 * await toolcap.close();
 * @module
 */
export { createToolcap, ToolcapOpenError } from '../host.js';
export type { Toolcap, ToolcapOptions, ToolcapOpenFailure } from '../host.js';
/** Circuits, learned tools and settled approvals shared between instances on one PostgreSQL store (docs/deploy.md). */
export type { ClusterSync, ClusterSyncStatus } from '../runtime/cluster/cluster-sync.js';
