/**
 * leanFetch (src/mcp/lean-fetch.ts): the gateway's upstream requests on
 * undici's request() answer as fetch would for what the SDK's Streamable
 * HTTP transport does (JSON bodies, event streams, 202, errors, aborts),
 * follow redirects by fetch's rules without sending a POST twice, hand
 * stream bodies to fetch, and decode a content coding a server sends anyway
 * (and pass one it cannot decode through).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leanFetch } from '../../src/mcp/lean-fetch.js';

let server: Server;
let base: string;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
/** Ends the open event stream of /sse. */
let endStream: (() => void) | undefined;

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
  switch (req.url) {
    case '/json':
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1', 'set-cookie': ['a=1', 'b=2'] }).end(JSON.stringify({ echoed: body }));
      return;
    case '/accepted':
      res.writeHead(202).end();
      return;
    case '/gzip':
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON.stringify({ zipped: true })));
      return;
    case '/moved':
      res.writeHead(307, { location: '/json' }).end('moved');
      return;
    case '/posted':
      // the answer to a POST that ran: see the result elsewhere
      res.writeHead(303, { location: '/json' }).end();
      return;
    case '/elsewhere':
      res.writeHead(307, { location: base.replace('127.0.0.1', 'localhost') + '/json' }).end();
      return;
    case '/zstd':
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'zstd' }).end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]));
      return;
    case '/stacked':
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip, br' }).end(brotliCompressSync(gzipSync(JSON.stringify({ stacked: true }))));
      return;
    case '/latin1':
      res.setHeader('x-name', Buffer.from('caf\u00e9', 'latin1').toString('latin1'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    case '/sse':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"first":true}\n\n');
      endStream = () => res.end('event: message\ndata: {"last":true}\n\n');
      return;
    case '/answer':
      // the SDK server's way: headers first, a priming event, the response, and the end only later
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: p\ndata:\n\n');
      res.write(`event: message\nid: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, result: { ok: true } })}\n\n`);
      endStream = () => res.end();
      return;
    case '/notify-first':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}\n\n');
      endStream = () => res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(body).id, result: { ok: true } })}\n\n`);
      return;
    case '/hang':
      return; // never answers: the client aborts
    default:
      res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => route(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('leanFetch', () => {
  const lean = leanFetch();

  it('POSTs a string body with the caller’s headers and fetch’s user-agent; answers status, headers and JSON', async () => {
    const response = await lean(new URL(`${base}/json`), { method: 'POST', headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer t' }), body: '{"a":1}' });
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ echoed: '{"a":1}' });
    const sent = seen.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(sent.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer t', 'user-agent': 'node', 'accept-encoding': 'identity' });
  });

  it('a 202 has no body', async () => {
    const response = await lean(`${base}/accepted`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
  });

  it('a 404 answer is a Response, not an error', async () => {
    const response = await lean(`${base}/missing`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('nope');
  });

  it('an event stream is passed through as it comes: the first event is read before the server ends it', async () => {
    const response = await lean(`${base}/sse`, { headers: { accept: 'text/event-stream' } });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"first"')) text += decoder.decode((await reader.read()).value);
    expect(text).not.toContain('"last"');
    endStream?.();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value);
    expect(text).toContain('"last"');
  });

  it('the answer to a POSTed request alone on its event stream is a JSON answer, handed over before the server ends the stream', async () => {
    const response = await lean(`${base}/answer`, { method: 'POST', headers: { accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"x"}}' });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 41, result: { ok: true } });
    endStream?.();
  });

  it('a notification before the answer: the event stream is passed on, its first event readable before the server ends it', async () => {
    const response = await lean(`${base}/notify-first`, { method: 'POST', headers: { accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"x"}}' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('working')) text += decoder.decode((await reader.read()).value);
    endStream?.();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value);
    expect(text).toContain('"id":42');
  });

  it('a gzip body a server sends anyway is decoded', async () => {
    const response = await lean(`${base}/gzip`);
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(await response.json()).toEqual({ zipped: true });
  });

  /** What the server was sent from index `from` on. */
  const sentSince = (from: number) => seen.slice(from).map((r) => ({ method: r.method, url: r.url, headers: r.headers, body: r.body }));

  it('a 307 repeats the request at the new location, without asking the first URL again', async () => {
    const before = seen.length;
    const response = await lean(`${base}/moved`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"b":2}' });
    expect(sentSince(before).map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', '/moved', '{"b":2}'],
      ['POST', '/json', '{"b":2}'],
    ]);
    expect(await response.json()).toEqual({ echoed: '{"b":2}' });
  });

  it('a 303 after a POST is followed by a GET without the body: the POST is never sent twice', async () => {
    const before = seen.length;
    const response = await lean(`${base}/posted`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer t' }, body: '{"run":1}' });
    const sent = sentSince(before);
    expect(sent.map((r) => [r.method, r.url])).toEqual([
      ['POST', '/posted'],
      ['GET', '/json'],
    ]);
    expect(sent[1]!.headers['content-type']).toBeUndefined();
    // same origin: the credentials go on
    expect(sent[1]!.headers.authorization).toBe('Bearer t');
    expect(await response.json()).toEqual({ echoed: '' });
  });

  it('a redirect to another origin does not carry the credentials', async () => {
    const before = seen.length;
    await lean(`${base}/elsewhere`, { method: 'POST', headers: { authorization: 'Bearer secret', cookie: 'c=1', 'mcp-session-id': 's' }, body: '{}' });
    const sent = sentSince(before);
    expect(sent.map((r) => r.url)).toEqual(['/elsewhere', '/json']);
    expect(sent[1]!.headers.host).toMatch(/^localhost:/);
    expect(sent[1]!.headers.authorization).toBeUndefined();
    expect(sent[1]!.headers.cookie).toBeUndefined();
    expect(sent[1]!.headers['mcp-session-id']).toBe('s');
  });

  it("redirect: 'manual' (what the SDK's transports ask for) returns the redirect answer unfollowed", async () => {
    const before = seen.length;
    const response = await lean(`${base}/moved`, { method: 'POST', body: '{}', redirect: 'manual' });
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe('/json');
    expect(sentSince(before).map((r) => r.url)).toEqual(['/moved']);
  });

  it('a content coding it cannot decode passes through undecoded, and nothing is left to fail later', async () => {
    const response = await lean(`${base}/zstd`);
    expect(response.headers.get('content-encoding')).toBe('zstd');
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3]);
  });

  it('stacked codings are decoded in reverse order', async () => {
    const response = await lean(`${base}/stacked`);
    expect(await response.json()).toEqual({ stacked: true });
  });

  it('a header fetch would not send as given (host) is left out; a response header past ASCII does not fail the answer', async () => {
    const before = seen.length;
    const response = await lean(`${base}/latin1`, { headers: { host: 'evil.example' } });
    expect(seen[before]!.headers.host).toBe(new URL(base).host);
    // undici's request() has already decoded the byte as UTF-8 (lost); what matters is that the answer is read, not thrown
    expect(response.status).toBe(200);
    expect(response.headers.get('x-name')).toMatch(/^caf/);
  });

  it('a body that is not a string or bytes goes to fetch', async () => {
    const calls: string[] = [];
    const viaFetch = leanFetch({
      fallback: (url, init) => {
        calls.push(String(url));
        return fetch(url, init);
      },
    });
    const response = await viaFetch(`${base}/json`, { method: 'POST', body: new URLSearchParams({ x: '1' }) });
    expect(calls).toHaveLength(1);
    expect(await response.json()).toEqual({ echoed: 'x=1' });
  });

  it('the request’s signal aborts it, as an AbortError', async () => {
    const controller = new AbortController();
    const pending = lean(`${base}/hang`, { signal: controller.signal });
    while (!seen.some((s) => s.url === '/hang')) await new Promise((r) => setImmediate(r));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a refused connection rejects with its system code (McpClients reads it as never sent)', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(lean(`http://127.0.0.1:${port}/x`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
