/**
 * The Streamable HTTP client's fetch gives each request a private signal:
 * the transport's shared signal ends every request with no listener left
 * (undici's own listener per request would stay until garbage collection),
 * an event stream keeps its bridge while it is read, and aborting the shared
 * signal still aborts a request or a stream in flight; a call the SDK
 * client gives up on takes its request with it. Against real node:http
 * servers.
 */
import { createServer, type Server } from 'node:http';
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isolatedSignalFetch } from '../../src/mcp/isolated-fetch.js';
import { upstreamFetch } from '../../src/mcp/upstream-fetch.js';
import { waitFor } from './helpers.js';

let server: Server;
let url: string;
/** Open event streams, so a test can end one. */
const streams: Array<() => void> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/json') {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    } else if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      streams.push(() => res.end('data: two\n\n'));
    } else if (req.url === '/slow') {
      // never answers: only an abort ends it
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('isolatedSignalFetch', () => {
  it('leaves no listener on the shared signal after JSON answers (plain fetch leaves one per request)', async () => {
    const fetchOwn = isolatedSignalFetch();
    const shared = new AbortController();
    for (let i = 0; i < 200; i++) {
      const r = await fetchOwn(`${url}/json`, { method: 'POST', body: '{}', signal: shared.signal });
      expect(await r.json()).toEqual({ ok: true });
    }
    expect(listeners(shared.signal)).toBe(0);
    const plain = new AbortController();
    for (let i = 0; i < 20; i++) await (await fetch(`${url}/json`, { method: 'POST', body: '{}', signal: plain.signal })).json();
    // what the wrapper avoids: undici's listeners stay on a shared signal until collected
    expect(listeners(plain.signal)).toBeGreaterThan(0);
  });

  it('keeps the bridge while an event stream is read and drops it when the stream ends', async () => {
    const shared = new AbortController();
    const r = await isolatedSignalFetch()(`${url}/sse`, { signal: shared.signal });
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const reader = r.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('one');
    expect(listeners(shared.signal)).toBe(1);
    streams.shift()?.();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('two');
    expect(listeners(shared.signal)).toBe(0);
  });

  it('aborting the shared signal aborts a stream being read and a request in flight', async () => {
    const shared = new AbortController();
    const fetchOwn = isolatedSignalFetch();
    const r = await fetchOwn(`${url}/sse`, { signal: shared.signal });
    const reader = r.body!.getReader();
    await reader.read();
    const pending = fetchOwn(`${url}/slow`, { method: 'POST', body: '{}', signal: shared.signal });
    shared.abort(new Error('transport closed'));
    await expect(pending).rejects.toThrow();
    await expect(reader.read()).rejects.toThrow();
    expect(listeners(shared.signal)).toBe(0);
    streams.splice(0).forEach((end) => end());
  });

  it('an already aborted signal fails at once', async () => {
    const shared = new AbortController();
    shared.abort();
    await expect(isolatedSignalFetch()(`${url}/json`, { signal: shared.signal })).rejects.toThrow();
  });
});

describe('isolatedSignalFetch and the answer it passes on', () => {
  it('leaves a JSON answer’s body unread (a lightweight Response builds its native one the first time its body is read)', async () => {
    let reads = 0;
    const answer = new Response('{"a":1}', { headers: { 'content-type': 'application/json' } });
    const nativeBody = Object.getOwnPropertyDescriptor(Response.prototype, 'body')!.get!;
    Object.defineProperty(answer, 'body', {
      get() {
        reads++;
        return nativeBody.call(this);
      },
    });
    const got = await isolatedSignalFetch(async () => answer)('http://127.0.0.1:1/mcp', { method: 'POST', body: '{}', signal: new AbortController().signal });
    expect(reads).toBe(0);
    expect(await got.json()).toEqual({ a: 1 });
  });
});

describe('a call the SDK client gives up on', () => {
  it('has its request aborted by the cancellation the client sends, though the server trickles its answer for ever', async () => {
    let openPosts = 0;
    const slow = createServer((req, res) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const m = JSON.parse(text) as { id?: number; method: string; params?: { protocolVersion?: string } };
        if (m.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
          return void res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } } }));
        }
        if (m.id === undefined) return void res.writeHead(202).end();
        // a call: the head, then a byte now and then, never the whole declared body (undici's idle timeout never fires)
        openPosts++;
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
        const trickle = setInterval(() => res.write(' '), 100);
        res.on('close', () => {
          clearInterval(trickle);
          openPosts--;
        });
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const address = slow.address();
    const mcpUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
    const up = upstreamFetch('slow', mcpUrl);
    const client = new Client({ name: 'c', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { fetch: up.fetch }));
      const caller = new AbortController();
      const call = client.callTool({ name: 'x', arguments: {} }, undefined, { signal: caller.signal, timeout: 2 ** 31 - 1 });
      await waitFor(() => openPosts === 1);
      caller.abort(new Error('the caller gave up'));
      await expect(call).rejects.toThrow('the caller gave up');
      // the request goes with the call, not when the server chooses to end it
      expect(await waitFor(() => openPosts === 0, 40)).toBe(true);
    } finally {
      await client.close();
      await up.close();
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
