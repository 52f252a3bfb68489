/**
 * Red-team findings on the HTTP API's routes (not the console): each case
 * failed on the code before its fix. In-process (`app.fetch`) against a temp
 * copy of the runtime examples and a SQLite store, as call.test.ts.
 */
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { Registry } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { cleanFolders, folder, getJson } from './helpers.js';

let registry: Registry;
let store: Store;
let runtime: Runtime;
let app: Hono;
const errors: unknown[] = [];

beforeAll(async () => {
  const root = folder('toolcap-http-redteam-');
  const manifests = join(root, 'examples', 'manifests', 'toolcap');
  mkdirSync(manifests, { recursive: true });
  cpSync('examples/manifests/toolcap', manifests, { recursive: true });
  registry = new Registry({ paths: [manifests] });
  expect((await registry.start()).kind).toBe('reloaded');
  store = await openSqliteStore(join(root, 'store', 'toolcap.db'));
  runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => {} });
  app = createApi(registry, { runtime, onError: (e) => errors.push(e) });
});

afterAll(async () => {
  await runtime.close();
  await registry.close();
  await store.close();
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

describe('no request above caused a 500', () => {
  it('onError was never told of anything', () => {
    expect(errors).toEqual([]);
  });
});
