/**
 * setCallToolHandler (src/mcp/call-handler.ts) answers every tools/call as
 * the SDK's own Server.setRequestHandler does: the same handler behind both,
 * the same raw JSON-RPC requests (good, malformed, asking for a task, with
 * results good and bad), the same responses, word for word.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { setCallToolHandler } from '../../src/mcp/call-handler.js';

/** A result per tool name: good ones, one the schema refuses, one with keys the schema does not know. */
const results: Record<string, unknown> = {
  ok: { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 } },
  bare: {},
  extra: { content: [], isError: false, _meta: { x: 1 }, more: 'kept?' },
  bad: { content: [{ type: 'nope' }] },
  throws: undefined,
};

async function answers(register: (server: Server, handler: (r: { params: { name: string } }) => Promise<CallToolResult>) => void, requests: JSONRPCMessage[]): Promise<unknown[]> {
  const server = new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } });
  register(server, async (request) => {
    if (request.params.name === 'throws') throw new Error('the tool broke');
    return results[request.params.name] as CallToolResult;
  });
  const [client, side] = InMemoryTransport.createLinkedPair();
  await server.connect(side);
  const got: unknown[] = [];
  client.onmessage = (m) => void got.push(m);
  await client.start();
  for (const r of requests) await client.send(r);
  for (let i = 0; i < 50 && got.length < requests.length; i++) await new Promise((r) => setTimeout(r, 10));
  await server.close();
  return got;
}

describe('setCallToolHandler', () => {
  it('answers as Server.setRequestHandler(CallToolRequestSchema, …) does', async () => {
    const call = (id: number, params: unknown) => ({ jsonrpc: '2.0' as const, id, method: 'tools/call', params }) as JSONRPCMessage;
    const requests = [
      call(1, { name: 'ok', arguments: { a: 1 } }),
      call(2, { name: 'bare' }),
      call(3, { name: 'extra', arguments: {} }),
      call(4, { name: 'bad' }),
      call(5, { name: 'throws' }),
      call(6, {}),
      call(7, { name: 42 }),
      call(8, { name: 'ok', arguments: 'not an object' }),
      call(9, { name: 'ok', task: { ttl: 1000 } }),
      call(10, { name: 'ok', _meta: { progressToken: 't' } }),
    ];
    const sdk = await answers((server, handler) => server.setRequestHandler(CallToolRequestSchema, handler), requests);
    const ours = await answers((server, handler) => setCallToolHandler(server, handler as never), requests);
    expect(sdk).toHaveLength(requests.length);
    expect(ours).toEqual(sdk);
  });
});
