/**
 * Red-team findings on the HTTP API's routes (not the console): each case
 * failed on the code before its fix. In-process (`app.fetch`) against a temp
 * copy of the runtime examples and a SQLite store, as call.test.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { Registry } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { createToolcap, type Toolcap } from '../../src/host.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { exampleApi, type ExampleApi } from './example-api.js';
import { cleanFolders, folder, getJson, until } from './helpers.js';

let registry: Registry;
let store: Store;
let runtime: Runtime;
let app: Hono;
let errors: unknown[] = [];
let api: ExampleApi;

beforeAll(async () => {
  api = await exampleApi('toolcap-http-redteam-');
  ({ registry, store, runtime, app, errors } = api);
});

afterAll(async () => {
  await api.close();
  cleanFolders();
});

const post = (path: string, body: unknown) => getJson(app, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the job a call names is the caller\'s word: it cannot grow the server\'s memory', () => {
  it('a call naming a 100 KB job runs, and the job is not kept in the health book', async () => {
    const job = 'j'.repeat(100_000);
    const { res } = await post('/tools/text.reverse/call', { arguments: { text: 'abc' }, job });
    expect(res.status).toBe(200);
    expect(runtime.health.job(job)).toBeUndefined();
    expect(runtime.health.lookup('text.reverse')?.calls).toBeGreaterThan(0);
  });
});

describe('a provider\'s health check reason leaves the process redacted', () => {
  const SECRET = 'leaky-secret-value-4f9a2c7d1e';
  const LEAKY = `toolcap: 1
tools:
  - name: leaky.status
    version: 1.0.0
    description: Reads a status; its health check fails naming its token.
    inputSchema: { type: object, properties: {}, additionalProperties: false }
    effects: { mode: read, sideEffects: none, risk: low }
    approval: { required: false }
    auth: { envs: { LEAKY_TOKEN: { required: true } } }
    providers:
      - { name: local, priority: 0, config: { type: module, module: ./leaky.mjs, export: run, healthCheck: check, healthCheckIntervalSec: 60 } }
`;
  let leakyRegistry: Registry;
  let leakyRuntime: Runtime;
  let leakyStore: Store;

  beforeAll(async () => {
    const root = folder('toolcap-http-leaky-');
    writeFileSync(join(root, 'leaky.yaml'), LEAKY);
    // a check that echoes what its upstream said, credential and all
    writeFileSync(join(root, 'leaky.mjs'), 'export const run = () => ({ ok: true });\nexport const check = () => ({ healthy: false, reason: `401 from upstream: bad token ${process.env.LEAKY_TOKEN}` });\n');
    leakyRegistry = new Registry({ paths: [root] });
    expect((await leakyRegistry.start()).kind).toBe('reloaded');
    leakyStore = await openSqliteStore(join(root, 'toolcap.db'));
    leakyRuntime = new Runtime({ registry: leakyRegistry, store: leakyStore, providers: new ProviderTypes(), environment: { env: { ...process.env, LEAKY_TOKEN: SECRET } }, onWarning: () => {} });
  });

  afterAll(async () => {
    await leakyRuntime.close();
    await leakyRegistry.close();
    await leakyStore.close();
  });

  it('GET /tools/{name} shows the failed check without the token', async () => {
    const leakyApp = createApi(leakyRegistry, { runtime: leakyRuntime, onError: (e) => errors.push(e) });
    const called = await getJson(leakyApp, '/tools/leaky.status/call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(called.res.status).toBe(200);
    const detail = await until(async () => {
      const { body } = await getJson(leakyApp, '/tools/leaky.status');
      return body.providerHealth?.[0]?.check ? body : undefined;
    }, 15_000, 'the first health check');
    expect(detail.providerHealth[0].check.healthy).toBe(false);
    expect(detail.providerHealth[0].check.reason).toContain('401 from upstream');
    expect(JSON.stringify(detail)).not.toContain(SECRET);
  });
});


describe('GET /tools/learned lists only the learned tools the principal could see', () => {
  const ADMIN: Principal = { id: 'learn-admin', roles: ['admin'], personas: ['*'], via: 'api-key' };
  const INTERN: Principal = { id: 'intern-bot', roles: ['caller'], personas: ['intern'], defaultPersona: 'intern', via: 'api-key' };
  const entry = (name: string, personas?: string[]) =>
    JSON.stringify({ name, version: '0.1.0', description: `The learned ${name}.`, ...(personas ? { scope: { personas } } : {}), effects: { mode: 'read', sideEffects: 'none', risk: 'low' } });
  let toolcap: Toolcap;
  let as: (principal: Principal, path: string, init?: RequestInit) => Promise<{ res: Response; body: any }>;

  beforeAll(async () => {
    const root = folder('toolcap-http-learned-');
    mkdirSync(join(root, 'manifests'));
    writeFileSync(join(root, 'manifests', 'shared.yaml'), 'toolcap: 1\ntools:\n  - name: intern.notes\n    description: Notes for the intern.\n    scope: { personas: [intern] }\n    effects: { mode: read, sideEffects: none, risk: low }\n');
    writeFileSync(join(root, 'toolcap.config.yaml'), 'sources:\n  - manifests/\nstore:\n  path: .toolcap/toolcap.db\n');
    toolcap = await createToolcap(join(root, 'toolcap.config.yaml'), { traces: false, mcp: false, warn: () => {} });
    as = (principal, path, init) => {
      const api = createApi(toolcap.registry, { runtime: toolcap.runtime, learned: toolcap.learned, onError: (e) => errors.push(e), auth: { authenticate: async () => ({ ok: true, principal }) } });
      return getJson(api, path, init);
    };
    const put = (body: string): RequestInit => ({ method: 'PUT', headers: { 'content-type': 'application/json' }, body });
    expect((await as(ADMIN, '/tools/ops.secret.learned', put(entry('ops.secret.learned', ['ops'])))).res.status).toBe(200);
    expect((await as(ADMIN, '/tools/shared.learned', put(entry('shared.learned')))).res.status).toBe(200);
    expect((await as(ADMIN, '/tools/intern.learned', put(entry('intern.learned', ['intern'])))).res.status).toBe(200);
  });

  afterAll(async () => {
    await toolcap.close();
  });

  it('a principal without persona ops sees neither the tool nor its id in the learned list', async () => {
    const listed = await as(INTERN, '/tools?limit=100');
    expect(listed.body.tools.map((t: { name: string }) => t.name)).not.toContain('ops.secret.learned');
    const learned = await as(INTERN, '/tools/learned');
    expect(learned.res.status).toBe(200);
    expect(learned.body.tools.map((t: { id: string }) => t.id)).toEqual(['intern.learned', 'shared.learned']);
  });

  it('a principal granted every persona sees every learned tool', async () => {
    const learned = await as(ADMIN, '/tools/learned');
    expect(learned.body.tools.map((t: { id: string }) => t.id)).toEqual(['intern.learned', 'ops.secret.learned', 'shared.learned']);
  });
});

describe('no request above caused a 500', () => {
  it('onError was never told of anything', () => {
    expect(errors).toEqual([]);
  });
});
