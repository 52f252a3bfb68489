import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiDialect } from '../../../src/dialects/openapi.js';
import type { Provider, Tool } from '../../../src/model/schema.js';
import { buildHttpRequest, httpProviderType, readHttpConfig } from '../../../src/runtime/providers/http.js';
import { ProviderConfigError, type ProviderEnvironment } from '../../../src/runtime/providers/types.js';
import { importFile } from '../../dialects/contract.js';
import { contextFor, rejection, runProviderContract } from './contract.js';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A local server: /echo answers the JSON body; /inspect answers what it got; /status/<n> answers n; /hang never answers. */
async function startServer(): Promise<{ base: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      if (url.pathname === '/echo') return json(200, body === '' ? {} : JSON.parse(body));
      if (url.pathname === '/fail') return json(500, { error: 'boom' });
      if (url.pathname === '/hang') return; // never answers
      if (url.pathname === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('plain words');
      }
      if (url.pathname === '/badjson') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{not json');
      }
      if (url.pathname === '/empty') {
        res.writeHead(204);
        return res.end();
      }
      if (url.pathname === '/health') return json(200, { ok: true });
      if (url.pathname.startsWith('/status/')) {
        const status = Number(url.pathname.slice('/status/'.length));
        const retryAfter = url.searchParams.get('retryAfter');
        return json(status, { status }, retryAfter ? { 'retry-after': retryAfter } : {});
      }
      const seen: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      return json(200, seen);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A URL nothing listens on (a port just released). */
async function deadUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

const TOOL: Tool = { name: 'http.test' };

/** The local test servers listen on loopback, which egress refuses unless listed. */
const LOOPBACK: ProviderEnvironment['egress'] = { allow: ['127.0.0.1'] };

function make(config: Record<string, unknown>, env: Record<string, string> = {}, tool: Tool = TOOL, name = 'api', egress: ProviderEnvironment['egress'] | null = LOOPBACK) {
  const environment: ProviderEnvironment = { env, baseDir: '/', ...(egress ? { egress } : {}) };
  return httpProviderType.create({ name, config }, tool, environment);
}

let closeContract: (() => Promise<void>) | undefined;
runProviderContract('http', async () => {
  const { base, close } = await startServer();
  closeContract = close;
  return {
    type: 'http',
    succeed: make({ baseUrl: base, method: 'POST', path: '/echo' }),
    fail: make({ baseUrl: base, method: 'POST', path: '/fail' }),
    hang: make({ baseUrl: base, method: 'GET', path: '/hang' }),
    unavailable: make({ baseUrl: await deadUrl(), method: 'POST', path: '/echo' }),
    cleanup: async () => closeContract?.(),
  };
});

describe('http provider', () => {
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ base, close } = await startServer());
  });
  afterAll(async () => close());

  const seen = async (config: Record<string, unknown>, args: Record<string, unknown>, env: Record<string, string> = {}) =>
    (await make({ baseUrl: base, ...config }, env).call(args, contextFor())) as Seen;

  it.each([
    {
      label: 'GET: unrouted args go to the query, path params substituted and encoded',
      config: { method: 'GET', path: '/items/{id}' },
      args: { id: 'a/b c', q: 'x y', tags: ['t1', 't2'] },
      url: '/items/a%2Fb%20c?q=x+y&tags=t1&tags=t2',
      body: '',
    },
    {
      label: 'DELETE: unrouted args go to the query',
      config: { method: 'DELETE', path: '/items/{id}' },
      args: { id: 7, force: true },
      url: '/items/7?force=true',
      body: '',
    },
    {
      label: 'POST: unrouted args become the JSON body',
      config: { method: 'POST', path: '/items' },
      args: { name: 'n', count: 2 },
      url: '/items',
      body: JSON.stringify({ name: 'n', count: 2 }),
    },
    {
      label: 'routed (OpenAPI in): path, query, header, body',
      config: {
        method: 'PUT',
        path: '/pets/{petId}',
        parameters: {
          petId: { in: 'path', name: 'petId' },
          dryRun: { in: 'query', name: 'dry_run' },
          trace: { in: 'header', name: 'X-Trace' },
          body: { in: 'body', name: 'body' },
        },
      },
      args: { petId: 5, dryRun: false, trace: 't-1', body: { name: 'Rex' } },
      url: '/pets/5?dry_run=false',
      body: JSON.stringify({ name: 'Rex' }),
      header: ['x-trace', 't-1'],
    },
    {
      label: 'routed query on a POST stays in the query',
      config: { method: 'POST', path: '/search', parameters: { q: { in: 'query', name: 'q' } } },
      args: { q: 'cats', extra: 1 },
      url: '/search?q=cats',
      body: JSON.stringify({ extra: 1 }),
    },
    {
      label: 'form-encoded body',
      config: { method: 'POST', path: '/form', contentType: 'application/x-www-form-urlencoded', parameters: { body: { in: 'body', name: 'body' } } },
      args: { body: { a: '1', b: 'two words' } },
      url: '/form',
      body: 'a=1&b=two+words',
      header: ['content-type', 'application/x-www-form-urlencoded'],
    },
  ])('builds the request: $label', async ({ config, args, url, body, header }) => {
    const s = await seen(config, args);
    expect(s.method).toBe(config.method);
    expect(s.url).toBe(url);
    expect(s.body).toBe(body);
    if (body.startsWith('{')) expect(s.headers['content-type']).toBe('application/json');
    if (header) expect(s.headers[header[0] as string]).toBe(header[1]);
  });

  it('a missing path parameter rejects before anything is sent', async () => {
    const err = await rejection(make({ baseUrl: base, path: '/items/{id}' }).call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.beforeEffect).toBe(true);
    expect(err.message).toContain('id');
  });

  it.each([
    ['..', '..'],
    ['.', '..'],
    ['x', '..'],
  ])('a path argument that is a dot segment (%s, %s) is refused before anything is sent: it would climb out of the declared path on the same origin, with its credentials', async (owner, repo) => {
    const p = make({ baseUrl: base, path: '/repos/{owner}/{repo}/inspect', auth: { type: 'bearer', env: 'TEST_API_TOKEN' } }, { TEST_API_TOKEN: 's3cret' });
    const err = await rejection(p.call({ owner, repo }, contextFor()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.beforeEffect).toBe(true);
    expect(err.fault).toBe('caller');
    expect(err.message).toMatch(/dot segment/);
    // a dot inside a segment is just a character
    expect(((await p.call({ owner: '..a', repo: 'b..' }, contextFor())) as Seen).url).toBe('/repos/..a/b../inspect');
  });

  it.each([
    ['CR LF', 'a\r\nx-injected: 1'],
    ['a lone LF', 'a\nb'],
    ['NUL', 'a\u0000b'],
    ['a character past Latin-1', 'caf\u0101'],
  ])('a header argument holding %s is the caller\'s fault, refused before anything is sent (not a failed request that trips the circuit)', async (_label, tag) => {
    const p = make({ baseUrl: base, path: '/inspect', parameters: { tag: { in: 'header', name: 'X-Tag' } } });
    const err = await rejection(p.call({ tag }, contextFor()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.beforeEffect).toBe(true);
    expect(err.fault).toBe('caller');
    expect(err.message).toMatch(/X-Tag/i);
  });

  it('an idempotency key fetch cannot send is refused the same way', async () => {
    const err = await rejection(make({ baseUrl: base, path: '/inspect' }).call({}, { ...contextFor(), idempotencyKey: 'k\r\nx-injected: 1' }));
    expect([err.code, err.beforeEffect, err.fault]).toEqual(['PROVIDER_ERROR', true, 'caller']);
    expect(err.message).toMatch(/idempotency-key/i);
  });

  it.each([
    { type: 'bearer', name: undefined, header: ['authorization', 'Bearer s3cret'], query: '' },
    { type: 'header', name: 'X-Api-Key', header: ['x-api-key', 's3cret'], query: '' },
    { type: 'query', name: 'key', header: undefined, query: '?key=s3cret' },
  ])('auth $type takes the credential from the environment', async ({ type, name, header, query }) => {
    const auth = { type, env: 'TEST_API_TOKEN', ...(name ? { name } : {}) };
    const withEnv = make({ baseUrl: base, path: '/inspect', auth }, { TEST_API_TOKEN: 's3cret' });
    expect(withEnv.ready?.()).toEqual({ healthy: true });
    const s = (await withEnv.call({}, contextFor())) as Seen;
    expect(s.url).toBe(`/inspect${query}`);
    if (header) expect(s.headers[header[0] as string]).toBe(header[1]);
    else expect(s.headers['authorization']).toBeUndefined();

    const without = make({ baseUrl: base, path: '/inspect', auth }, {});
    expect(without.ready?.()).toEqual({ healthy: false, reason: 'TEST_API_TOKEN is not set' });
    const err = await rejection(without.call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.beforeEffect).toBe(true);
  });

  it('sends no credential when no auth is configured', async () => {
    const s = await seen({ path: '/inspect' }, {}, { TEST_API_TOKEN: 's3cret' });
    expect(s.headers['authorization']).toBeUndefined();
    expect(JSON.stringify(s)).not.toContain('s3cret');
  });

  it.each([
    { status: 429, retryAfter: '5', beforeEffect: true },
    { status: 503, retryAfter: '10', beforeEffect: true },
    { status: 429, retryAfter: undefined, beforeEffect: false },
    { status: 503, retryAfter: undefined, beforeEffect: false },
    { status: 500, retryAfter: '5', beforeEffect: false },
    { status: 502, retryAfter: undefined, beforeEffect: false },
    { status: 408, retryAfter: undefined, beforeEffect: false },
    { status: 404, retryAfter: undefined, beforeEffect: false },
  ])('HTTP $status (Retry-After: $retryAfter) -> beforeEffect $beforeEffect', async ({ status, retryAfter, beforeEffect }) => {
    const p = make({ baseUrl: base, method: 'POST', path: `/status/${status}${retryAfter ? `?retryAfter=${retryAfter}` : ''}` });
    const err = await rejection(p.call({ a: 1 }, contextFor()));
    expect(err.code).toBe('PROVIDER_ERROR');
    expect(err.status).toBe(status);
    expect(err.beforeEffect).toBe(beforeEffect);
  });

  it.each([
    ['/text', 'plain words'],
    ['/empty', ''],
  ])('a non-JSON response (%s) resolves to its text', async (path, expected) => {
    await expect(make({ baseUrl: base, path }).call({}, contextFor())).resolves.toBe(expected);
  });

  it('a JSON content type with an invalid body is BAD_RESPONSE', async () => {
    const err = await rejection(make({ baseUrl: base, path: '/badjson' }).call({}, contextFor()));
    expect(err.code).toBe('BAD_RESPONSE');
    expect(err.beforeEffect).toBe(false);
  });

  it('a host that does not resolve is unavailable before effect', async () => {
    const err = await rejection(make({ baseUrl: 'http://toolcap-no-such-host.invalid', path: '/x' }, {}, TOOL, 'api', null).call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.beforeEffect).toBe(true);
  }, 15_000);

  it.each([['http://127.0.0.1:9'], ['http://127.0.0.1:6000']])('a port fetch refuses to use (%s) is unavailable before effect', async (baseUrl) => {
    const err = await rejection(make({ baseUrl, path: '/x', method: 'POST' }).call({}, contextFor()));
    expect(err.code).toBe('PROVIDER_UNAVAILABLE');
    expect(err.beforeEffect).toBe(true);
    expect(err.message).toContain('blocked port');
  });

  it.each([
    ['/health', { healthy: true }],
    ['/status/500', { healthy: false }],
  ])('check() GETs healthUrl %s', async (healthUrl, expected) => {
    const p = make({ baseUrl: base, path: '/echo', healthUrl });
    await expect(p.check?.(new AbortController().signal)).resolves.toMatchObject(expected);
  });

  it('has no check() without healthUrl', () => {
    expect(make({ baseUrl: base, path: '/echo' }).check).toBeUndefined();
  });

  it.each([
    ['no base URL', {}, /baseUrl/],
    ['a relative base URL', { baseUrl: '/v1', path: '/x' }, /absolute/],
    ['a bad method', { baseUrl: 'http://h', method: 'FETCH' }, /method/],
    ['auth without env', { baseUrl: 'http://h', auth: { type: 'bearer' } }, /auth\.env/],
    ['header auth without a name', { baseUrl: 'http://h', auth: { type: 'header', env: 'K' } }, /auth\.name/],
    ['a credential in the manifest', { baseUrl: 'http://h', auth: { type: 'bearer', env: 'K', token: 'abc' } }, /must not hold a credential/],
    ['non-string headers', { baseUrl: 'http://h', headers: { a: 1 } }, /headers/],
  ])('create() throws ProviderConfigError for %s', (_label, config, message) => {
    expect(() => make(config)).toThrow(ProviderConfigError);
    expect(() => make(config)).toThrow(message);
  });
});

describe('http provider on OpenAPI-derived tools', () => {
  const PETSTORE = fileURLToPath(new URL('../../fixtures/openapi/petstore-30.yaml', import.meta.url));
  const tools = importFile(openapiDialect, PETSTORE).imported.tools.map((t) => t.value as Tool);
  const toolNamed = (name: string): Tool => {
    const t = tools.find((x) => x.name === name);
    if (!t) throw new Error(`no tool ${name} in ${tools.map((x) => x.name).join(', ')}`);
    return t;
  };
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ base, close } = await startServer());
  });
  afterAll(async () => close());

  it('reads server, method, path and parameters from the entry the dialect wrote', () => {
    const tool = toolNamed('replace_pet');
    const entry = tool.providers?.[0] as Provider;
    const config = readHttpConfig(entry, tool);
    expect(config).toMatchObject({ method: 'PUT', path: '/pets/{petId}', baseUrl: 'https://eu.petstore.example.com/v1' });
    expect(config.parameters['petId']).toEqual({ in: 'path', name: 'petId' });
    expect(config.parameters['body']).toEqual({ in: 'body', name: 'body' });
    const request = buildHttpRequest(config, { petId: 12, body: { name: 'Rex' } }, {});
    expect(request.url).toBe('https://eu.petstore.example.com/v1/pets/12');
    expect(request.body).toBe(JSON.stringify({ name: 'Rex' }));
  });

  it('an extra entry with only a baseUrl takes method, path and parameters from the OpenAPI entry', async () => {
    const tool = toolNamed('replace_pet');
    const local: Provider = { name: 'local', priority: -1, config: { type: 'http', baseUrl: `${base}/v1` } };
    const withLocal: Tool = { ...tool, providers: [...(tool.providers ?? []), local] };
    const p = httpProviderType.create(local, withLocal, { env: {}, baseDir: '/', egress: LOOPBACK });
    const s = (await p.call({ petId: 12, body: { name: 'Rex' } }, contextFor(undefined, withLocal))) as Seen;
    expect(s.method).toBe('PUT');
    expect(s.url).toBe('/v1/pets/12');
    expect(JSON.parse(s.body)).toEqual({ name: 'Rex' });
  });

  it('GET operations route their query and header parameters', async () => {
    const tool = toolNamed('list_pets');
    const entry = tool.providers?.[0] as Provider;
    const routes = readHttpConfig(entry, tool).parameters;
    const queryArg = Object.entries(routes).find(([, r]) => r.in === 'query');
    expect(queryArg).toBeDefined();
    const local: Provider = { name: 'local', config: { type: 'http', baseUrl: base } };
    const p = httpProviderType.create(local, { ...tool, providers: [entry, local] }, { env: {}, baseDir: '/', egress: LOOPBACK });
    const [arg, route] = queryArg as [string, { name: string }];
    const s = (await p.call({ [arg]: 10 }, contextFor())) as Seen;
    expect(s.method).toBe('GET');
    expect(s.url).toBe(`/pets?${route.name}=10`);
  });
});
