/**
 * ATLAS as written, end to end: the seed's `google_search` tool (an ATLAS
 * `functions.json` in an ATLAS layout) declares `google_cse` (priority 0)
 * then `serpapi`, with the seed's `auth.envs`. Two local stand-ins speak
 * each API's request and response shapes; credentials come from the
 * environment. Through the runtime, the HTTP API and `toolcap call`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import { CallError } from '../../src/runtime/errors.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { cli } from '../cli/helpers.js';
import { googleStandIn, serpApiStandIn, type StandIn, type StandInMode } from '../helpers/search-standins.js';
import { cleanFolders, folder, getJson } from '../server/helpers.js';

const KEYS = { GOOGLE_API_KEY: 'g-key-7731', GOOGLE_CSE_ID: 'cse-0042', SERPAPI_KEY: 's-key-9917' } as const;
type EnvName = keyof typeof KEYS;

/** The seed's example entry, with the providers its prose describes (stand-in origins as `baseUrl`). */
function seedTool(google: string, serp: string) {
  return {
    name: 'google_search',
    version: '1.0.0',
    side_effects: 'none',
    default_timeout: 30,
    auth: {
      required: true,
      type: 'api_key',
      envs: { GOOGLE_API_KEY: { required: true }, GOOGLE_CSE_ID: { required: true }, SERPAPI_KEY: { optional: true } },
      docs: 'Set GOOGLE_API_KEY and GOOGLE_CSE_ID to use Google Programmable Search. When either is missing, configure SERPAPI_KEY as a fallback.',
    },
    allow_parallel: true,
    description: 'A Google search result API...',
    parameters: { type: 'object', properties: { query: { type: 'string', description: 'The search content.' } }, required: ['query'] },
    providers: [
      { name: 'google_cse', priority: 0, config: { baseUrl: google } },
      { name: 'serpapi', priority: 10, config: { baseUrl: serp } },
    ],
  };
}

let root: string;
let google: StandIn;
let serp: StandIn;
let registry: Registry;
let store: Store;
const runtimes: Runtime[] = [];

beforeAll(async () => {
  google = await googleStandIn(KEYS.GOOGLE_API_KEY, KEYS.GOOGLE_CSE_ID);
  serp = await serpApiStandIn(KEYS.SERPAPI_KEY);
  root = folder('toolcap-atlas-search-');
  const maps = join(root, 'modules', 'Tools', 'tool_maps');
  mkdirSync(maps, { recursive: true });
  writeFileSync(join(maps, 'functions.json'), JSON.stringify([seedTool(google.url, serp.url)], null, 2));
  registry = new Registry({ paths: [join(root, 'modules')] });
  expect((await registry.start()).kind).toBe('reloaded');
  store = await openSqliteStore(join(root, 'store', 'toolcap.db'));
});

afterAll(async () => {
  for (const r of runtimes) await r.close();
  await registry.close();
  await store.close();
  await google.close();
  await serp.close();
  cleanFolders();
});

beforeEach(() => {
  google.mode = 'ok';
  serp.mode = 'ok';
  google.requests.length = 0;
  serp.requests.length = 0;
});

/** A fresh runtime (fresh circuits) whose environment has only the named credentials. */
function runtimeWith(names: readonly EnvName[]): Runtime {
  const env = Object.fromEntries(names.map((n) => [n, KEYS[n]]));
  const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), environment: { env }, retryBaseMs: 1, onWarning: () => {} });
  runtimes.push(runtime);
  return runtime;
}

const ALL: EnvName[] = ['GOOGLE_API_KEY', 'GOOGLE_CSE_ID', 'SERPAPI_KEY'];

describe('the seed search tool through the runtime', () => {
  it('google_cse answers first, with the documented request shape and the normalised result', async () => {
    const result = await runtimeWith(ALL).call('google_search', { query: 'capability manifests' });
    expect(result).toMatchObject({ status: 'ok', provider: 'google_cse', attempts: 1, skipped: [] });
    if (result.status !== 'ok') return;
    expect(result.result).toMatchObject({ source: 'google_cse', query: 'capability manifests', totalResults: 12300, nextStart: 11 });
    const hits = (result.result as { results: unknown[] }).results;
    expect(hits).toHaveLength(10);
    expect(hits[0]).toEqual({ position: 1, title: 'Google result 1 for capability manifests', link: 'https://example.com/google/1', snippet: 'Snippet 1 about capability manifests.', displayLink: 'example.com' });
    expect(google.requests).toHaveLength(1);
    const sent = google.requests[0]!;
    expect(sent.pathname).toBe('/customsearch/v1');
    expect(Object.fromEntries(sent.searchParams)).toEqual({ key: KEYS.GOOGLE_API_KEY, cx: KEYS.GOOGLE_CSE_ID, q: 'capability manifests', num: '10' });
    expect(serp.requests).toHaveLength(0);
  });

  it.each<[string, StandInMode, RegExp]>([
    ['429 rate limit', 'rate-limited', /HTTP 429: Quota exceeded/],
    ['503 server error', 'server-error', /HTTP 503: The service is currently unavailable/],
    ['403 daily quota', 'quota', /HTTP 403: This project has exceeded its daily quota/],
  ])('google_cse %s: serpapi answers', async (_label, mode, outcome) => {
    google.mode = mode;
    const result = await runtimeWith(ALL).call('google_search', { query: 'toolcap' });
    expect(result).toMatchObject({ status: 'ok', provider: 'serpapi', attempts: 2 });
    if (result.status !== 'ok') return;
    expect(result.result).toMatchObject({ source: 'serpapi', query: 'toolcap', totalResults: 4560 });
    expect((result.result as { results: Array<{ link: string }> }).results[0]).toMatchObject({ position: 1, link: 'https://example.com/serp/1', snippet: 'Serp snippet 1 about toolcap.' });
    expect(google.requests).toHaveLength(1);
    expect(serp.requests).toHaveLength(1);
    expect(Object.fromEntries(serp.requests[0]!.searchParams)).toEqual({ engine: 'google', q: 'toolcap', num: '10', api_key: KEYS.SERPAPI_KEY });
    const journal = await readAttempts(result.callId);
    expect(journal[0]).toMatchObject({ provider: 'google_cse', outcome: expect.stringMatching(outcome) });
  });

  it.each<[string, EnvName[], string]>([
    ['GOOGLE_API_KEY missing', ['GOOGLE_CSE_ID', 'SERPAPI_KEY'], 'google_cse: GOOGLE_API_KEY is not set'],
    ['GOOGLE_CSE_ID missing', ['GOOGLE_API_KEY', 'SERPAPI_KEY'], 'google_cse: GOOGLE_CSE_ID is not set'],
    ['both Google credentials missing', ['SERPAPI_KEY'], 'google_cse: GOOGLE_API_KEY, GOOGLE_CSE_ID are not set'],
  ])('%s: google_cse is refused before any request, serpapi answers', async (_label, names, skipped) => {
    const result = await runtimeWith(names).call('google_search', { query: 'toolcap' });
    expect(result).toMatchObject({ status: 'ok', provider: 'serpapi', attempts: 1, skipped: [skipped] });
    expect(google.requests).toHaveLength(0);
    expect(serp.requests).toHaveLength(1);
  });

  it('every credential missing: MISSING_CREDENTIALS naming the variables, nothing sent, health unavailable', async () => {
    const runtime = runtimeWith([]);
    const error = await runtime.call('google_search', { query: 'toolcap' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CallError);
    const e = error as CallError;
    expect(e.code).toBe('MISSING_CREDENTIALS');
    expect(e.status).toBe(503);
    expect(e.extra.missing).toEqual(['GOOGLE_API_KEY', 'GOOGLE_CSE_ID', 'SERPAPI_KEY']);
    expect(e.extra.providers).toEqual([
      { provider: 'google_cse', outcome: 'GOOGLE_API_KEY, GOOGLE_CSE_ID are not set' },
      { provider: 'serpapi', outcome: 'SERPAPI_KEY is not set' },
    ]);
    expect(google.requests.length + serp.requests.length).toBe(0);
    expect(runtime.health.lookup('google_search')).toMatchObject({ status: 'unavailable', missingCredentials: ['GOOGLE_API_KEY', 'GOOGLE_CSE_ID', 'SERPAPI_KEY'] });
  });

  it('a credential value never shows in an error: a wrong key is redacted from what leaves', async () => {
    const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), environment: { env: { GOOGLE_API_KEY: 'wrong-key-5150', GOOGLE_CSE_ID: KEYS.GOOGLE_CSE_ID } }, onWarning: () => {} });
    runtimes.push(runtime);
    const e = (await runtime.call('google_search', { query: 'x' }).catch((err: unknown) => err)) as CallError;
    // Google refuses the key (400 "API key not valid"): the provider's fault, not the caller's, so not TOOL_REJECTED
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(JSON.stringify({ message: e.message, extra: e.extra })).not.toContain('wrong-key-5150');
  });

  it('SerpAPI "no results" is an empty result, not a failure', async () => {
    serp.mode = 'empty';
    const result = await runtimeWith(['SERPAPI_KEY']).call('google_search', { query: 'zzzqqq' });
    expect(result).toMatchObject({ status: 'ok', provider: 'serpapi', result: { source: 'serpapi', results: [] } });
  });
});

/** The attempts the audit log recorded for a call. */
async function readAttempts(callId: string): Promise<Array<{ provider: string; outcome: string }>> {
  for (const r of runtimes) await r.flush();
  const [line] = await store.listAudit({ callId });
  return (line?.detail as { attempts?: Array<{ provider: string; outcome: string }> } | undefined)?.attempts ?? [];
}

describe('the seed search tool through the HTTP API', () => {
  let app: Hono;
  let env: Record<string, string | undefined>;
  beforeAll(() => {
    env = { ...KEYS };
    const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), environment: { env }, retryBaseMs: 1, onWarning: () => {} });
    runtimes.push(runtime);
    app = createApi(registry, { runtime });
  });
  const post = (body: unknown) => getJson(app, '/tools/google_search/call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('fails over on 429, and /tools/{name} shows serpapi as the last successful provider', async () => {
    const before = await getJson(app, '/tools/google_search');
    expect(before.body.lastSuccessfulProvider).toBeNull();
    google.mode = 'rate-limited';
    const { res, body } = await post({ arguments: { query: 'toolcap' } });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', provider: 'serpapi', result: { source: 'serpapi' } });
    const tool = await getJson(app, '/tools/google_search');
    expect(tool.body.lastSuccessfulProvider).toMatchObject({ provider: 'serpapi', at: expect.any(String) });
    expect(tool.body.health).toMatchObject({ lastSuccessfulProvider: { provider: 'serpapi' } });
    expect(tool.body.providerHealth).toEqual(expect.arrayContaining([expect.objectContaining({ provider: 'google_cse', consecutiveFailures: 1 })]));
  });

  it('every credential missing: 503 MISSING_CREDENTIALS naming the variables, and health unavailable', async () => {
    for (const k of Object.keys(env)) delete env[k];
    try {
      const { res, body } = await post({ arguments: { query: 'toolcap' } });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(body).toMatchObject({ code: 'MISSING_CREDENTIALS', missing: ['GOOGLE_API_KEY', 'GOOGLE_CSE_ID', 'SERPAPI_KEY'] });
      const tool = await getJson(app, '/tools/google_search');
      expect(tool.body.health).toMatchObject({ status: 'unavailable', missingCredentials: ['GOOGLE_API_KEY', 'GOOGLE_CSE_ID', 'SERPAPI_KEY'] });
      const list = await getJson(app, '/tools');
      expect(list.body.tools.find((t: { name: string }) => t.name === 'google_search').health.status).toBe('unavailable');
    } finally {
      Object.assign(env, KEYS);
    }
    const back = await getJson(app, '/tools/google_search');
    expect(back.body.health.status).not.toBe('unavailable');
  });
});

describe('the seed search tool through `toolcap call`', () => {
  it('fails over to serpapi when the Google key is not set', async () => {
    const config = join(root, 'toolcap.config.yaml');
    writeFileSync(config, 'sources: [modules/]\nstore: { path: .toolcap/cli.db }\n');
    const saved = { ...process.env };
    delete process.env['GOOGLE_API_KEY'];
    process.env['GOOGLE_CSE_ID'] = KEYS.GOOGLE_CSE_ID;
    process.env['SERPAPI_KEY'] = KEYS.SERPAPI_KEY;
    try {
      const r = await cli('call', 'google_search', '--config', config, '--args', '{"query":"toolcap"}', '--json');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', provider: 'serpapi', skipped: ['google_cse: GOOGLE_API_KEY is not set'], result: { source: 'serpapi' } });
      delete process.env['SERPAPI_KEY'];
      const refused = await cli('call', 'google_search', '--config', config, '--args', '{"query":"toolcap"}', '--json');
      expect(refused.code).not.toBe(0);
      expect(refused.stdout + refused.stderr).toMatch(/MISSING_CREDENTIALS/);
      expect(refused.stdout + refused.stderr).toMatch(/GOOGLE_API_KEY/);
      expect(refused.stdout + refused.stderr).not.toContain(KEYS.GOOGLE_CSE_ID);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});
