/**
 * The route table is the one list of operations: the app answers exactly its
 * entries, 405 answers take their `Allow` from it, and the OpenAPI document
 * lists each entry with every problem code it names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { Registry } from '../../src/registry/registry.js';
import { createApi } from '../../src/server/app.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { PROBLEM_CODES } from '../../src/server/problem.js';
import { allowedMethods, honoPath, ROUTE_LIST } from '../../src/server/route-table.js';
import { call, getJson } from './helpers.js';

let registry: Registry;
let app: Hono;
beforeAll(async () => {
  registry = new Registry({ paths: ['examples/manifests'] });
  await registry.start();
  app = createApi(registry, { mcp: async () => new Response('mcp') });
});
afterAll(async () => {
  await registry.close();
});

describe('the app answers exactly the table', () => {
  it('every entry has a handler, and every handler an entry (besides the /mcp mount)', () => {
    const registered = new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
    const table = new Set(ROUTE_LIST.map((r) => `${r.method} ${honoPath(r.path)}`));
    expect([...registered].sort()).toEqual([...table].sort());
    expect(new Set(app.routes.filter((r) => r.method === 'ALL').map((r) => r.path))).toEqual(new Set(['/mcp']));
  });

  it('no two entries are the same operation', () => {
    const ops = ROUTE_LIST.map((r) => `${r.method} ${r.path}`);
    expect(new Set(ops).size).toBe(ops.length);
  });
});

describe('405 from the table', () => {
  it.each([
    ['/tools', 'GET, HEAD'],
    ['/tools/', 'GET, HEAD'],
    ['/tools/x', 'GET, HEAD, PUT, DELETE'],
    ['/tools/x/call', 'POST'],
    ['/approvals/apr_1', 'GET, HEAD'],
    ['/approvals/apr_1/approve', 'POST'],
    ['/openapi.json', 'GET, HEAD'],
    ['/openapiXjson', undefined],
    ['/tools/a/b', undefined],
    ['/nowhere', undefined],
    ['/mcp', undefined],
  ])('allowedMethods(%s) is %s', (path, allow) => {
    expect(allowedMethods(path)).toBe(allow);
  });

  it.each(ROUTE_LIST.map((r) => [r.method, r.path] as const))('%s %s: another method is 405 with the Allow of the table', async (method, path) => {
    const concrete = path.replace(/\{[^}]+\}/g, 'x');
    // no route answers PATCH: it is 405 everywhere the table knows the path
    const res = await call(app, concrete, { method: 'PATCH' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')!.split(', ')).toEqual(expect.arrayContaining(method === 'GET' ? ['GET', 'HEAD'] : [method]));
    expect(await res.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED', status: 405 });
  });
});

describe('the document from the table', () => {
  it.each(ROUTE_LIST.map((r) => [r.method, r.path, r] as const))('%s %s is documented with every problem code it names', (method, path, route) => {
    const operation = (openApiDocument('0').paths as any)[path][method.toLowerCase()];
    expect(operation.summary).toBe(route.summary);
    for (const code of route.problems) expect(operation.responses[String(PROBLEM_CODES[code])].description.split(', '), code).toContain(code);
  });

  it('/openapi.json is the same document', async () => {
    const { body } = await getJson(app, '/openapi.json');
    expect(body).toEqual(openApiDocument('0.0.0', { mcp: true }));
  });
});
