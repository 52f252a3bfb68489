/**
 * Request bodies: Hono's bodyLimit counts a streamed body without
 * Content-Length as well as it refuses a declared one, on the JSON routes and
 * on /mcp; the JSON reader refuses what is not a JSON object.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { Registry } from '../../src/registry/registry.js';
import { createApi } from '../../src/server/app.js';
import { jsonBody, readJsonObject } from '../../src/server/json-body.js';
import { ApiProblem } from '../../src/server/problem.js';
import { BASE } from './helpers.js';

const LIMIT = 64;

/** A body sent in chunks, without Content-Length (as `Transfer-Encoding: chunked` arrives). */
function chunked(chunks: string[], headers: Record<string, string> = {}): RequestInit {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
  return { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit;
}

describe('jsonBody()', () => {
  const app = new Hono();
  app.post('/', jsonBody(LIMIT), async (c) => c.json(await readJsonObject(c)));
  app.onError((error) => (error instanceof ApiProblem ? error.getResponse() : new Response(String(error), { status: 500 })));
  const send = (init: RequestInit) => app.fetch(new Request(`${BASE}/`, init));
  const json = { 'content-type': 'application/json' };

  it.each([
    ['a chunked body over the limit, no Content-Length', chunked(['{"a":"', 'x'.repeat(LIMIT), '"}'], json), 413, 'PAYLOAD_TOO_LARGE'],
    ['a declared Content-Length over the limit', { method: 'POST', headers: { ...json, 'content-length': String(LIMIT + 1) }, body: 'x'.repeat(LIMIT + 1) }, 413, 'PAYLOAD_TOO_LARGE'],
    ['a body that is not JSON', { method: 'POST', headers: json, body: '{"a":' }, 400, 'BAD_BODY'],
    ['a JSON array', { method: 'POST', headers: json, body: '[1]' }, 400, 'BAD_BODY'],
    ['text/plain, over the limit: the media type is refused first', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(LIMIT * 2) }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('%s -> %i %s', async (_, init, status, code) => {
    const res = await send(init);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ status, code });
  });

  it('a chunked body within the limit arrives whole', async () => {
    const res = await send(chunked(['{"a":', '"b"', '}'], json));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: 'b' });
  });

  it('an empty body is {}', async () => {
    const res = await send({ method: 'POST', headers: json });
    expect(await res.json()).toEqual({});
  });
});

describe('/mcp is behind the same limit', () => {
  let registry: Registry;
  const seen: string[] = [];
  let app: Hono;
  beforeAll(async () => {
    registry = new Registry({ paths: ['examples/manifests'] });
    await registry.start();
    app = createApi(registry, { maxBodyBytes: LIMIT, mcp: async (request) => new Response(seen[seen.push(await request.text()) - 1]) });
  });
  afterAll(async () => {
    await registry.close();
  });

  it('a chunked body over the limit is 413 and never reaches the handler', async () => {
    const res = await app.fetch(new Request(`${BASE}/mcp`, chunked(['x'.repeat(LIMIT), 'y'], { 'content-type': 'application/json' })));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(seen).toEqual([]);
  });

  it('a declared length over the limit is 413', async () => {
    const res = await app.fetch(new Request(`${BASE}/mcp`, { method: 'POST', headers: { 'content-length': String(LIMIT + 1) }, body: 'x'.repeat(LIMIT + 1) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', detail: expect.stringContaining(`${LIMIT + 1} bytes`) });
  });

  it('a body within the limit and a GET pass through', async () => {
    expect(await (await app.fetch(new Request(`${BASE}/mcp`, chunked(['{"jsonrpc":', '"2.0"}'])))).text()).toBe('{"jsonrpc":"2.0"}');
    expect((await app.fetch(new Request(`${BASE}/mcp`))).status).toBe(200);
  });
});

describe('a client that goes away mid-body', () => {
  let registry: Registry;
  beforeAll(async () => {
    registry = new Registry({ paths: ['examples/manifests'] });
    await registry.start();
  });
  afterAll(async () => {
    await registry.close();
  });

  it('is one quiet line, not an error with a stack', async () => {
    const errors: unknown[] = [];
    const lines: string[] = [];
    const app = createApi(registry, { mcp: async (request) => new Response(await request.text()), onError: (e) => errors.push(e), warn: (l) => lines.push(l) });
    const hangUp = new AbortController();
    // the body stream fails the way the node adapter fails it when the socket closes
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0",'));
        setImmediate(() => {
          hangUp.abort();
          const gone = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
          controller.error(gone);
        });
      },
    });
    const res = await app.fetch(new Request(`${BASE}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half', signal: hangUp.signal } as RequestInit));
    expect(res.status).toBe(499);
    expect(errors).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^http: the client went away during POST \/mcp/);
    expect(lines[0]).not.toContain('\n');
  });
});
