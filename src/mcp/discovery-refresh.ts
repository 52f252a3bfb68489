/**
 * Keeping a connected MCP server's tool list current: `tools/list` read page
 * by page (./tool-pages.ts), translated (./discovery.ts), and written to the
 * cache folder when the translated list differs from the cached one (or there
 * is no cache file yet); `onToolsChanged(server)` is called then. A list is
 * trusted for the server's `healthCheckIntervalSec` and asked again by an
 * unref'd timer.
 * @module
 */
import type { Diagnostic } from '../model/diagnostics.js';
import type { Tool } from '../model/schema.js';
import { errorMessage } from '../model/errors.js';
import { failureExcerpt, serverRedaction } from './call-outcome.js';
import { translateTools, writeDiscoveryCache, type McpToolDefinition } from './discovery.js';
import { cacheSignature, downReason, type ClientsContext, type ServerEntry } from './server-entry.js';
import { listAllTools } from './tool-pages.js';

/** What one discovery of one server gave. */
export interface DiscoveryOutcome {
  server: string;
  ok: boolean;
  /** The server's tools now (unchanged from the cache when discovery failed). */
  tools: Tool[];
  diagnostics: Diagnostic[];
  /** The cache file was rewritten (and onToolsChanged called). */
  changed: boolean;
  error?: string;
}

/** Discoveries of one server run one after another, so the last one reads the newest list. */
export function queueDiscovery(ctx: ClientsContext, e: ServerEntry): Promise<DiscoveryOutcome> {
  const run = e.discovery.then(() => discoverOnce(ctx, e));
  e.discovery = run.catch(() => {});
  return run;
}

async function discoverOnce(ctx: ClientsContext, e: ServerEntry): Promise<DiscoveryOutcome> {
  const server = e.config.name;
  const client = e.client;
  const warn = (text: string): void => ctx.options.warn?.(text);
  const failed = (error: string): DiscoveryOutcome => ({ server, ok: false, tools: [...e.tools], diagnostics: [], changed: false, error });
  if (!client || e.state !== 'up') return failed(downReason(ctx, e));
  let listed: McpToolDefinition[];
  let truncated: string | undefined;
  try {
    ({ tools: listed, truncated } = await listAllTools(client));
  } catch (err) {
    // the server's words (an HTTP error's body among them): redacted, then cut, before a warning and lastError keep them
    const why = `tools/list failed: ${failureExcerpt(errorMessage(err), serverRedaction(e.config))}`;
    if (e.client === client) e.lastError = why;
    warn(`MCP server "${server}": ${why}`);
    scheduleRefresh(ctx, e);
    return failed(why);
  }
  if (truncated !== undefined) warn(`MCP server "${server}": ${truncated}`);
  const { tools, diagnostics } = translateTools(ctx.config, e.config, listed);
  const json = cacheSignature(tools, e.serverInfo);
  const discoveredAt = new Date(ctx.clock()).toISOString();
  let changed = false;
  if (json !== e.written) {
    try {
      writeDiscoveryCache(ctx.options.cacheDir, server, tools, discoveredAt, e.serverInfo);
      e.written = json;
      changed = true;
    } catch (err) {
      warn(`MCP server "${server}": could not write the discovery cache: ${errorMessage(err)}`);
    }
  }
  e.tools = tools;
  e.discoveredAt = discoveredAt;
  scheduleRefresh(ctx, e);
  if (changed) {
    try {
      ctx.options.onToolsChanged?.(server);
    } catch (err) {
      warn(`onToolsChanged("${server}") threw: ${errorMessage(err)}`);
    }
  }
  return { server, ok: true, tools: [...tools], diagnostics, changed };
}

/** Ask for the list again after the server's health-check interval (at least a second), unless closed. */
function scheduleRefresh(ctx: ClientsContext, e: ServerEntry): void {
  clearTimeout(e.refreshTimer);
  if (ctx.closed) return;
  e.refreshTimer = setTimeout(() => {
    e.refreshTimer = undefined;
    if (e.state === 'up') void queueDiscovery(ctx, e);
  }, Math.max(1, e.config.healthCheckIntervalSec) * 1000);
  e.refreshTimer.unref();
}
