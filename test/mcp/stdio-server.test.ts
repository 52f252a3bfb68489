/**
 * The bounded stdio server transport of `toolcap mcp serve`: an over-long
 * line (the real 10 MiB limit, and a small one), a line that is not JSON and
 * one that is not JSON-RPC are each answered with a JSON-RPC error and
 * skipped; the next line is served. Deeply nested arguments over stdio get
 * the nesting error, not a stack overflow.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import { BoundedStdioServerTransport, MAX_STDIO_LINE_BYTES, type BoundedStdioOptions } from '../../src/mcp/stdio-server.js';
import { closeAll, examplesEnv } from './gateway-helpers.js';
import { waitFor } from './helpers.js';

afterEach(closeAll);

interface Answer {
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/** A gateway on the bounded transport over two in-process streams, spoken to line by line. */
async function serve(options: BoundedStdioOptions = {}) {
  const { env } = await examplesEnv();
  const gateway = createGatewayServer({ registry: env.registry, runtime: env.runtime });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new BoundedStdioServerTransport(stdin, stdout, options);
  const errors: string[] = [];
  let closed = false;
  await gateway.server.connect(transport);
  // alongside the server's own handlers, which connect() installed
  const { onerror, onclose } = transport;
  transport.onerror = (error) => {
    errors.push(error.message);
    onerror?.(error);
  };
  transport.onclose = () => {
    closed = true;
    onclose?.();
  };
  const answers: Answer[] = [];
  let pending = '';
  stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) answers.push(JSON.parse(line) as Answer);
  });
  const send = (text: string) => stdin.write(text + '\n');
  let read = 0;
  const next = async (): Promise<Answer> => {
    expect(await waitFor(() => answers.length > read, 400, 10)).toBe(true);
    return answers[read++]!;
  };
  send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }));
  expect((await next()).result).toHaveProperty('serverInfo');
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const listTools = async (id: number) => {
    send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }));
    const answer = await next();
    expect(answer).toMatchObject({ id, result: { tools: expect.any(Array) } });
  };
  return { stdin, send, next, listTools, errors, isClosed: () => closed, close: () => gateway.close() };
}

describe('BoundedStdioServerTransport', () => {
  it(`a line over ${MAX_STDIO_LINE_BYTES} bytes is answered with REQUEST_TOO_LARGE and the next line is served`, { timeout: 30_000 }, async () => {
    const s = await serve();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'text.reverse', arguments: { text: 'x'.repeat(MAX_STDIO_LINE_BYTES) } } });
    // in pieces, as a pipe delivers it
    for (let i = 0; i < big.length; i += 1 << 16) s.stdin.write(big.slice(i, i + (1 << 16)));
    s.stdin.write('\n');
    expect(await s.next()).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest, data: { code: 'REQUEST_TOO_LARGE', maxBytes: MAX_STDIO_LINE_BYTES } } });
    await s.listTools(2);
    expect(s.isClosed()).toBe(false);
    expect(s.errors).toEqual([expect.stringContaining('Request too large')]);
    await s.close();
  });

  it('a small limit: the same, with the next line in the same chunk', async () => {
    const s = await serve({ maxLineBytes: 256 });
    s.stdin.write(`${'y'.repeat(1000)}\n${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })}\n`);
    expect(await s.next()).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } });
    expect(await s.next()).toMatchObject({ id: 3, result: { tools: expect.any(Array) } });
    await s.close();
  });

  it('a line that is not JSON: Parse error; not JSON-RPC: Invalid Request with its id; blank lines: nothing', async () => {
    const s = await serve();
    s.send('{"jsonrpc": "2.0", "id": 4, ');
    expect(await s.next()).toMatchObject({ id: null, error: { code: ErrorCode.ParseError } });
    s.send('');
    s.send(JSON.stringify({ id: 5, method: 42 }));
    expect(await s.next()).toMatchObject({ id: 5, error: { code: ErrorCode.InvalidRequest } });
    await s.listTools(6);
    expect(s.isClosed()).toBe(false);
    await s.close();
  });

  it('5,000 levels of arguments over stdio: InvalidParams, and the server goes on', async () => {
    const s = await serve();
    // written by hand: JSON.stringify itself overflows the stack on 5,000 levels
    const value = '{"a":'.repeat(5_000) + '"x"' + '}'.repeat(5_000);
    s.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"text.reverse","arguments":{"text":${value}}}}`);
    expect(await s.next()).toMatchObject({ id: 7, error: { code: ErrorCode.InvalidParams, data: { code: 'ARGUMENTS_TOO_DEEP' } } });
    await s.listTools(8);
    await s.close();
  });
});
