/**
 * Containment of http tools, against real servers on 127.0.0.1: the egress
 * policy on the first request, every redirect hop and every DNS answer;
 * credentials that stay on their origin; a hop limit; capped bodies (one
 * server streams forever); and a code identity that follows the request.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/model/schema.js';
import { httpProviderType, MAX_REDIRECTS } from '../../../src/runtime/providers/http.js';
import type { ProviderEnvironment, ProviderInstance } from '../../../src/runtime/providers/types.js';
import { contextFor, rejection } from './contract.js';

interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Local {
  base: string;
  hits: Hit[];
  /** Responses closed by the client before they ended. */
  cut: number;
  close: () => Promise<void>;
}

async function serve(handle: (hit: Hit, res: ServerResponse, local: Local) => void): Promise<Local> {
  const local: Local = { base: '', hits: [], cut: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const hit = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      local.hits.push(hit);
      res.on('close', () => {
        if (!res.writableEnded) local.cut += 1;
      });
      handle(hit, res, local);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  local.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  local.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return local;
}

const json = (res: ServerResponse, value: unknown, status = 200) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

let origin: Local;
let other: Local;
const SECRET = 'sk-live-0123456789abcdef';
const ENV = { API_KEY: SECRET };
const LOOPBACK = { allow: ['127.0.0.1'] };
const made: ProviderInstance[] = [];

function make(config: Record<string, unknown>, environment: Partial<ProviderEnvironment> = { egress: LOOPBACK }, tool: Tool = { name: 'http.contained' }): ProviderInstance {
  const p = httpProviderType.create({ name: 'api', config }, tool, { env: ENV, baseDir: '/', ...environment });
  made.push(p);
  return p;
}

beforeAll(async () => {
  other = await serve((hit, res) => json(res, { landed: hit.url }));
  origin = await serve((hit, res) => {
    const url = new URL(hit.url, 'http://x');
    const redirect = (status: number, location: string) => res.writeHead(status, { location }).end();
    if (url.pathname === '/cross') return redirect(302, `${other.base}/landed${url.search}`);
    if (url.pathname === '/same') return redirect(302, `/inspect${url.search}`);
    if (url.pathname === '/see-other') return redirect(303, `${other.base}/landed`);
    if (url.pathname === '/temporary') return redirect(307, '/inspect');
    if (url.pathname === '/metadata') return redirect(302, 'http://169.254.169.254/latest/meta-data/');
    if (url.pathname === '/elsewhere') return redirect(302, 'https://example.com/');
    if (url.pathname === '/file') return redirect(302, 'file:///etc/passwd');
    if (url.pathname === '/loop') return redirect(302, '/loop');
    if (url.pathname === '/big') return res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(2 << 20) }).end('x'.repeat(2 << 20));
    if (url.pathname === '/forever') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      return pump();
    }
    return json(res, { url: hit.url, method: hit.method, headers: hit.headers, body: hit.body });
  });
});
afterAll(async () => {
  for (const p of made) await p.close?.();
  await origin.close();
  await other.close();
});

describe('http provider: credentials stay on their origin', () => {
  it.each([
    ['header', { type: 'header', env: 'API_KEY', name: 'x-api-key' }],
    ['bearer', { type: 'bearer', env: 'API_KEY' }],
    ['query', { type: 'query', env: 'API_KEY', name: 'key' }],
  ])('a 302 to another origin is followed without the %s credential', async (_label, auth) => {
    other.hits.length = 0;
    const p = make({ baseUrl: origin.base, path: '/cross', auth, headers: { cookie: 'session=abc' } });
    await expect(p.call({}, contextFor())).resolves.toMatchObject({ landed: expect.stringMatching(/^\/landed/) });
    expect(other.hits).toHaveLength(1);
    const landed = other.hits[0] as Hit;
    expect(JSON.stringify(landed)).not.toContain(SECRET);
    expect(landed.headers['x-api-key']).toBeUndefined();
    expect(landed.headers['authorization']).toBeUndefined();
    expect(landed.headers['cookie']).toBeUndefined();
  });

  it('a same-origin redirect keeps the credential', async () => {
    const seen = (await make({ baseUrl: origin.base, path: '/same', auth: { type: 'header', env: 'API_KEY', name: 'x-api-key' } }).call({}, contextFor())) as Hit;
    expect(seen.url).toBe('/inspect');
    expect(seen.headers['x-api-key']).toBe(SECRET);
  });

  it('crossOriginRedirects: refuse refuses the hop: EGRESS_DENIED, after the first request', async () => {
    other.hits.length = 0;
    const p = make({ baseUrl: origin.base, path: '/cross', auth: { type: 'bearer', env: 'API_KEY' } }, { egress: { ...LOOPBACK, crossOriginRedirects: 'refuse' } });
    const err = await rejection(p.call({}, contextFor()));
    expect(err).toMatchObject({ code: 'EGRESS_DENIED', beforeEffect: false, fault: 'provider' });
    expect(other.hits).toHaveLength(0);
  });

  it('303 turns a POST into a GET without its body; 307 keeps both', async () => {
    other.hits.length = 0;
    await make({ baseUrl: origin.base, method: 'POST', path: '/see-other' }).call({ a: 1 }, contextFor());
    expect(other.hits[0]).toMatchObject({ method: 'GET', body: '' });
    const kept = (await make({ baseUrl: origin.base, method: 'POST', path: '/temporary' }).call({ a: 1 }, contextFor())) as Hit;
    expect(kept).toMatchObject({ method: 'POST', body: JSON.stringify({ a: 1 }) });
  });
});

describe('http provider: egress on every request, hop and DNS answer', () => {
  it.each([
    ['the metadata address', '/metadata'],
    ['a host not in egress.allow', '/elsewhere'],
    ['a non-http scheme', '/file'],
  ])('a redirect to %s is refused', async (_label, path) => {
    const err = await rejection(make({ baseUrl: origin.base, path }).call({}, contextFor()));
    expect(err.code).toBe('EGRESS_DENIED');
    expect(err.beforeEffect).toBe(false);
  });

  it(`follows at most ${MAX_REDIRECTS} redirects`, async () => {
    const before = origin.hits.length;
    const err = await rejection(make({ baseUrl: origin.base, path: '/loop' }).call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.message).toContain(`more than ${MAX_REDIRECTS} redirects`);
    expect(origin.hits.length - before).toBe(MAX_REDIRECTS + 1);
  });

  it.each([
    ['the unspecified address, by default', () => 'http://0.0.0.0:9', {}],
    ['link-local', () => 'http://169.254.10.10', {}],
    ['the metadata address, even inside a listed CIDR', () => 'http://169.254.169.254', { egress: { allow: ['169.254.0.0/16'] } }],
    ['the metadata host name', () => 'http://metadata.google.internal', {}],
    ['a host another entry does not list', () => 'https://api.example.com', { egress: { allow: ['other.example.com'] } }],
  ])('refuses %s before sending anything: not ready, EGRESS_DENIED before effect', async (_label, baseUrl, environment) => {
    const before = origin.hits.length;
    const p = make({ baseUrl: baseUrl(), path: '/inspect', auth: { type: 'bearer', env: 'API_KEY' } }, environment);
    expect(p.ready?.()).toMatchObject({ healthy: false, reason: expect.stringContaining('egress refused') });
    const err = await rejection(p.call({}, contextFor()));
    expect(err).toMatchObject({ code: 'EGRESS_DENIED', beforeEffect: true });
    expect(origin.hits.length).toBe(before);
  });

  it('a loopback address the manifest names itself is allowed by default (its author chose it)', async () => {
    const before = origin.hits.length;
    const p = make({ baseUrl: origin.base, path: '/inspect' });
    expect(p.ready?.()).toMatchObject({ healthy: true });
    await expect(p.call({}, contextFor())).resolves.toBeDefined();
    expect(origin.hits.length).toBe(before + 1);
  });

  it('checks DNS answers: a listed host name resolving to loopback is refused', async () => {
    const before = origin.hits.length;
    const port = new URL(origin.base).port;
    const err = await rejection(make({ baseUrl: `http://localhost:${port}`, path: '/inspect' }, { egress: { allow: ['localhost'] } }).call({}, contextFor()));
    expect(err).toMatchObject({ code: 'EGRESS_DENIED', beforeEffect: true });
    expect(err.message).toContain('loopback');
    expect(origin.hits.length).toBe(before);
  });

  it('an invalid egress.allow entry makes create() fail', () => {
    expect(() => make({ baseUrl: origin.base }, { egress: { allow: ['not a host!'] } })).toThrow(/egress\.allow/);
  });
});

describe('http provider: response bodies are capped', () => {
  it('a body over maxResponseBytes is RESPONSE_TOO_LARGE (Content-Length)', async () => {
    const err = await rejection(make({ baseUrl: origin.base, path: '/big' }, { egress: LOOPBACK, maxResponseBytes: 1 << 20 }).call({}, contextFor()));
    expect(err).toMatchObject({ code: 'RESPONSE_TOO_LARGE', beforeEffect: false, fault: 'provider' });
    expect(err.detail).toMatchObject({ limit: 1 << 20 });
  });

  it('a response that streams forever stops at the limit and the connection is cut', async () => {
    const cut = origin.cut;
    const err = await rejection(make({ baseUrl: origin.base, path: '/forever' }, { egress: LOOPBACK, maxResponseBytes: 1 << 20 }).call({}, contextFor()));
    expect(err.code).toBe('RESPONSE_TOO_LARGE');
    expect((err.detail as { received: number }).received).toBeLessThan((1 << 20) + (1 << 17));
    await expect.poll(() => origin.cut, { timeout: 5_000 }).toBeGreaterThan(cut);
  }, 15_000);
});

describe('http provider: code identity', () => {
  const base = { baseUrl: 'https://api.example.com/v1', method: 'GET', path: '/items/{id}' };
  const identity = (config: Record<string, unknown>) => make(config, {}).codeIdentity?.() as Promise<string>;

  it('is stable for the same request, whatever else the config holds', async () => {
    const a = await identity(base);
    expect(a).toMatch(/^http:sha256:[0-9a-f]{64}$/);
    expect(await identity({ ...base, healthCheckIntervalSec: 30 })).toBe(a);
  });

  it.each([
    ['method', { method: 'DELETE' }],
    ['URL template', { path: '/items/{id}/purge' }],
    ['origin', { baseUrl: 'https://api.evil.example/v1' }],
    ['port', { baseUrl: 'https://api.example.com:8443/v1' }],
  ])('changes with the %s', async (_label, change) => {
    expect(await identity({ ...base, ...change })).not.toBe(await identity(base));
  });
});
