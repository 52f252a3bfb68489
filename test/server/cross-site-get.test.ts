/**
 * A GET that runs tools (`GET /tasks/snapshot`, action `call`) started by
 * another site. Browsers send no `Origin` with a cross-site `<img>`,
 * `<script>` or link, so the Origin check never sees one; in local mode
 * (`npm start`, no `auth`) every request is the local admin, so any page the
 * user visited could make toolcap probe every task source (run the tools,
 * spend their quota, fill the audit log). Browsers do say where such a
 * request came from (`Sec-Fetch-Site`): a cross-site or same-site one
 * without an allowed Origin is refused before anything runs; one typed in
 * the address bar (`none`), from the server's own pages (`same-origin`) or
 * from a client that is no browser (no header) still runs.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { BASE, cleanFolders, folder } from './helpers.js';

const HOST = new URL(BASE).host;
const ORIGIN = new URL(BASE).origin;
const LOCAL: Principal = { id: 'local', roles: ['admin'], personas: ['*'], via: 'local' };

let registry: Registry;
let store: Store;
let runtime: Runtime;
let app: ReturnType<typeof createApi>;

beforeAll(async () => {
  const root = folder('toolcap-cross-site-');
  cpSync('examples/manifests/xena', join(root, 'xena'), { recursive: true });
  cpSync('examples/overrides/xena-tasks.yaml', join(root, 'xena-tasks.yaml'));
  registry = new Registry({ paths: [join(root, 'xena'), join(root, 'xena-tasks.yaml')] });
  await registry.start();
  store = await openSqliteStore(join(root, 'toolcap.db'));
  runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => {} });
  // local mode, as toolcap serve without an auth section: every request is the local admin
  app = createApi(registry, { runtime, auth: { authenticate: async () => ({ ok: true, principal: LOCAL }) }, allowedHosts: [HOST], allowedOrigins: [ORIGIN] });
});
afterAll(async () => {
  await runtime.close();
  await registry.close();
  await store.close();
  cleanFolders();
});

const snapshot = (headers: Record<string, string>) => app.fetch(new Request(`${BASE}/tasks/snapshot`, { headers: { host: HOST, ...headers } }));
const calls = async () => {
  await runtime.flush();
  return (await store.listAudit({ afterSeq: 0, limit: 1000 })).filter((r) => r.kind.startsWith('call.')).length;
};

describe('GET /tasks/snapshot started by another site', () => {
  it.each([
    ['an <img> on another site', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }],
    ['a link on another site', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }],
    ['a page on another port of the same host', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' }],
  ])('is refused before any tool runs: %s', async (_what, headers) => {
    const before = await calls();
    const res = await snapshot(headers);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ code: 'FORBIDDEN_ORIGIN' });
    expect(await calls()).toBe(before);
  });

  it.each([
    ['no browser (no Sec-Fetch-Site)', {}],
    ['the address bar', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }],
    ['this origin', { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' }],
    ['an allowed origin, which says so', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: ORIGIN }],
  ])('still runs from %s', async (_what, headers) => {
    const before = await calls();
    const res = await snapshot(headers);
    expect(res.status).toBe(200);
    expect(await calls()).toBeGreaterThan(before);
  });

  it('leaves reads alone: a cross-site GET of /tools is answered (the browser keeps it from the other site)', async () => {
    const res = await app.fetch(new Request(`${BASE}/tools`, { headers: { host: HOST, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' } }));
    expect(res.status).toBe(200);
  });
});
