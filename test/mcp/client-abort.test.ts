/**
 * Clients that go away are not toolcap bugs: a slow client that disconnects
 * mid-body, or mid-call, leaves at most one quiet line per request on
 * `warn`, and nothing on the onError paths (the handler's and the HTTP
 * app's) nor on the console; a real failure still reaches onError.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientGone } from '../../src/mcp/client-abort.js';
import { mcpHttpHandler } from '../../src/mcp/http.js';
import { createApi } from '../../src/server/app.js';
import { listen } from '../../src/server/listen.js';
import { closeAll, examplesEnv, slowToolEnv } from './gateway-helpers.js';
import { waitFor } from './helpers.js';

afterEach(() => vi.restoreAllMocks());
afterEach(closeAll);

describe('clientGone', () => {
  const aborted = new AbortController();
  aborted.abort();
  it.each<[string, unknown, Request | undefined, boolean]>([
    ['an aborted request', new Error('whatever'), new Request('http://x/mcp', { signal: aborted.signal }), true],
    ['an AbortError', new DOMException('The operation was aborted', 'AbortError'), undefined, true],
    ['ECONNRESET in the cause', new Error('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) }), undefined, true],
    ['the SDK answering a closed request', new Error('Failed to send response: Error: No connection established for request ID: 1'), undefined, true],
    ['a toolcap failure', new TypeError("Cannot read properties of undefined (reading 'x')"), new Request('http://x/mcp'), false],
  ])('%s: %s', (_what, error, req, gone) => {
    expect(clientGone(error, req)).toBe(gone);
  });
});

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'slow', version: '1' } } });

/** POST to /mcp; `partial`: declare the length, send 10 bytes, then hang up after `hangUpMs`. */
function post(port: number, body: string, headers: Record<string, string>, opts: { hangUpMs?: number; partial?: boolean } = {}): Promise<{ status?: number; session?: string }> {
  return new Promise((resolve) => {
    const length = opts.partial ? { 'content-length': String(body.length) } : {};
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers, ...length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ ...(res.statusCode !== undefined ? { status: res.statusCode } : {}), session: String(res.headers['mcp-session-id']) }));
        res.on('error', () => resolve({}));
      },
    );
    req.on('error', () => resolve({}));
    if (opts.partial) req.write(body.slice(0, 10));
    else req.end(body);
    if (opts.hangUpMs !== undefined)
      setTimeout(() => {
        req.destroy();
        resolve({});
      }, opts.hangUpMs);
  });
}

describe('a slow client that hangs up', () => {
  it('mid-body and mid-call: one quiet line per request at most, no stack trace, no onError', { timeout: 20_000 }, async () => {
    const env = await slowToolEnv(300);
    const lines: string[] = [];
    const handlerError = vi.fn();
    const appError = vi.fn();
    const consoleError = vi.spyOn(console, 'error');
    const emitWarning = vi.spyOn(process, 'emitWarning');
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime, warn: (line) => lines.push(line), onError: handlerError });
    const server = await listen(createApi(env.registry, { runtime: env.runtime, mcp: handler, onError: appError }), { port: 0 });
    try {
      const { session } = await post(server.port, INIT, {});
      const headers = { 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' };
      await post(server.port, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers);
      const call = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow.wait', arguments: {} } });
      for (let i = 1; i <= 5; i++) await post(server.port, call(i), headers, { partial: true, hangUpMs: 50 });
      for (let i = 6; i <= 10; i++) await post(server.port, call(i), headers, { hangUpMs: 50 });
      expect(await waitFor(() => lines.length >= 5)).toBe(true);
      // the calls cut off mid-call finish, and the session still serves
      await new Promise((r) => setTimeout(r, 400));
      expect(await post(server.port, call(11), headers)).toMatchObject({ status: 200 });
    } finally {
      await handler.close();
      await server.close();
    }
    expect(lines.length).toBeLessThanOrEqual(10);
    for (const line of lines) {
      expect(line).toMatch(/^mcp: the client went away during POST \/mcp/);
      expect(line).not.toContain('\n');
    }
    expect(handlerError).not.toHaveBeenCalled();
    expect(appError).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
    expect(emitWarning).not.toHaveBeenCalled();
  });

  it('a failure that is not the client’s still reaches onError and is a 500', async () => {
    const { env } = await examplesEnv();
    const onError = vi.fn();
    const lines: string[] = [];
    const handler = mcpHttpHandler({ registry: env.registry, runtime: env.runtime, onError, warn: (line) => lines.push(line) });
    const body = new ReadableStream<Uint8Array>({ pull: (c) => c.error(new TypeError('disk on fire')) });
    const response = await handler(new Request('http://x/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit));
    expect(response.status).toBe(500);
    expect(onError).toHaveBeenCalledOnce();
    expect(lines).toEqual([]);
    await handler.close();
  });
});
