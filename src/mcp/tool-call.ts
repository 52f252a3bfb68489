/**
 * One `tools/call` through a connected MCP server, for the `mcp` provider
 * type: refused at once (retryable) when the server is unknown, down or
 * connecting, or the call was aborted before it started; the server's answer
 * and failures are mapped by ./call-outcome.ts.
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ProviderError } from '../runtime/providers/types.js';
import { callFailure, callValue, serverRedaction } from './call-outcome.js';
import { downReason, type ClientsContext, type ServerEntry } from './server-entry.js';

/** The SDK's own request timeout for calls: the caller's signal is the real timeout. */
const CALL_TIMEOUT_MS = 2_147_483_647;

/** Call `tool` on the server of entry `e` (undefined: `server` is not configured). */
export async function callServerTool(
  ctx: ClientsContext,
  e: ServerEntry | undefined,
  server: string,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const what = `MCP tool "${tool}" on server "${server}"`;
  if (!e) throw new ProviderError('PROVIDER_UNAVAILABLE', `${what}: no MCP server "${server}" is configured`, true);
  if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted before it started`, true, { cause: signal.reason });
  const client = e.client;
  if (e.state !== 'up' || !client) {
    throw new ProviderError('PROVIDER_UNAVAILABLE', `${what}: ${downReason(ctx, e)}`, true);
  }
  // a failure text is cut: what the server was given (its env and headers) and token shapes are redacted before the cut
  const redact = serverRedaction(e.config);
  let result: Awaited<ReturnType<Client['callTool']>>;
  try {
    result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: CALL_TIMEOUT_MS });
  } catch (err) {
    const oversize = e.upstream?.oversizeAnswer(err);
    throw callFailure(err, { what, signal, stderr: e.stderr, redact, ...(e.closedBy !== undefined ? { closedBy: e.closedBy } : {}), ...(oversize !== undefined ? { oversize } : {}) });
  }
  return callValue(result, what, redact);
}
