/**
 * The gateway's `tools/call` handler, registered on the SDK's `Protocol`
 * with the checks the SDK's `Server` wraps around it, less one.
 *
 * Why by hand: `Server.setRequestHandler` wraps a `tools/call` handler in a
 * second parse of the request with `CallToolRequestSchema`, although the
 * `Protocol` under it has just parsed the request with that same schema (a
 * request it refuses never reaches the wrapper) and hands the wrapper the
 * parsed value: parsing it again cannot fail and gives an equal value, and
 * it was a zod pass over every call's arguments for nothing. What else the
 * wrapper does is done here as it does it: the result is validated against
 * `CallToolResultSchema` (`CreateTaskResultSchema` when the request asks for
 * a task), answered as parsed, and refused with its `InvalidParams` error
 * and words. The method's capability is asserted as before (the `Protocol`'s
 * `setRequestHandler` calls the server's own check).
 * @module
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What a request handler of the server is given besides the request. */
type Extra = Parameters<Parameters<Server['setRequestHandler']>[1]>[1];

/** The words of a failed validation, as the SDK's wrapper gives them. */
const failure = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Register `handler` for `tools/call` on `server`: what
 * `server.setRequestHandler(CallToolRequestSchema, handler)` registers,
 * without its repeated parse of the request.
 * @example setCallToolHandler(server, async (request) => ({ content: [] }));
 */
export function setCallToolHandler(server: Server, handler: (request: CallToolRequest, extra: Extra) => Promise<CallToolResult>): void {
  const register = Protocol.prototype.setRequestHandler as (this: Server, schema: typeof CallToolRequestSchema, handler: (request: CallToolRequest, extra: Extra) => Promise<unknown>) => void;
  register.call(server, CallToolRequestSchema, async (request, extra) => {
    const result = await handler(request, extra);
    if (request.params.task) {
      const created = safeParse(CreateTaskResultSchema, result);
      if (!created.success) throw new McpError(ErrorCode.InvalidParams, `Invalid task creation result: ${failure(created.error)}`);
      return created.data;
    }
    const checked = safeParse(CallToolResultSchema, result);
    if (!checked.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${failure(checked.error)}`);
    return checked.data;
  });
}
