/**
 * A query parameter a route takes once, given twice. `URLSearchParams.get`
 * and Hono's `c.req.query` answer the first value, so
 * `GET /tasks/snapshot?persona=a&persona=b` ran as `a` while whatever read
 * the URL in front of toolcap (a proxy's rule, a log) may have judged `b`.
 * Every route refuses a repeated single-valued parameter with 400
 * BAD_PARAMETER naming it, before anything runs; a repeatable one (`persona`
 * of `/tools`) still repeats.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { singleQueryParameters } from '../../src/server/context.js';
import { ROUTE_LIST } from '../../src/server/route-table.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { BASE, cleanFolders, folder } from './helpers.js';

const HOST = new URL(BASE).host;
const LOCAL: Principal = { id: 'local', roles: ['admin'], personas: ['*'], via: 'local' };

let registry: Registry;
let store: Store;
let runtime: Runtime;
let app: ReturnType<typeof createApi>;

beforeAll(async () => {
  const root = folder('toolcap-repeated-query-');
  registry = new Registry({ paths: ['examples/manifests', 'examples/overrides'] });
  await registry.start();
  store = await openSqliteStore(join(root, 'toolcap.db'));
  runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => {} });
  app = createApi(registry, { runtime, auth: { authenticate: async () => ({ ok: true, principal: LOCAL }) }, allowedHosts: [HOST] });
});
afterAll(async () => {
  await runtime.close();
  await registry.close();
  await store.close();
  cleanFolders();
});

const ask = (method: string, path: string) =>
  app.fetch(new Request(`${BASE}${path}`, { method, headers: { host: HOST, 'content-type': 'application/json' }, ...(method === 'GET' ? {} : { body: '{}' }) }));
const calls = async () => {
  await runtime.flush();
  return (await store.listAudit({ afterSeq: 0, limit: 1000 })).filter((r) => r.kind.startsWith('call.')).length;
};

describe('a repeated single-valued query parameter', () => {
  it('GET /tasks/snapshot?persona=a&persona=b is a 400 naming persona, and probes nothing', async () => {
    const [a, b] = registry.snapshot().personas;
    expect(b).toBeDefined();
    // each alone is a persona the local admin may probe as
    expect((await ask('GET', `/tasks/snapshot?persona=${encodeURIComponent(a!)}`)).status).toBe(200);
    const before = await calls();
    const res = await ask('GET', `/tasks/snapshot?persona=${encodeURIComponent(a!)}&persona=${encodeURIComponent(b!)}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; problems: unknown[] };
    expect(body.code).toBe('BAD_PARAMETER');
    expect(body.problems).toEqual([{ parameter: 'persona', message: '"persona" may be given once.' }]);
    expect(await calls()).toBe(before);
  });

  it('is refused on every route that takes it once, naming it', async () => {
    let checked = 0;
    for (const route of ROUTE_LIST) {
      for (const name of singleQueryParameters(route)) {
        const path = route.path.replace(/\{[^}]+\}/g, 'x');
        const res = await ask(route.method, `${path}?${name}=1&${name}=2`);
        expect(res.status, `${route.method} ${route.path} ?${name}`).toBe(400);
        const body = (await res.json()) as { code: string; problems: unknown[] };
        expect(body.problems, `${route.method} ${route.path}`).toContainEqual({ parameter: name, message: `"${name}" may be given once.` });
        expect(route.problems, `${route.method} ${route.path} lists BAD_PARAMETER`).toContain('BAD_PARAMETER');
        checked++;
      }
    }
    // /tasks/snapshot, /hooks/{toolId}, /workflows/{id}/signals, /approvals, /audit, /search, /tools/{name}... all took part
    expect(checked).toBeGreaterThan(15);
  });

  it('GET /audit?limit=1&limit=1000 and GET /approvals?status=pending&status=denied no longer use the first value', async () => {
    for (const path of ['/audit?limit=1&limit=1000', '/approvals?status=pending&status=denied', '/workflows/w/signals?all=0&all=1']) {
      const res = await ask('GET', path);
      expect(res.status, path).toBe(400);
    }
  });

  it('a repeatable parameter still repeats: /tools?persona=a&persona=b', async () => {
    const [a, b] = registry.snapshot().personas;
    const res = await ask('GET', `/tools?persona=${encodeURIComponent(a!)}&persona=${encodeURIComponent(b ?? '-shared')}`);
    expect(res.status).toBe(200);
  });
});
