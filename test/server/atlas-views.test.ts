/**
 * What ATLAS's capability registry shows, over HTTP: job health (`/jobs`,
 * ATLAS's `health.job`), the per-persona summary (`/summary?persona=X`,
 * ATLAS's `summary(persona)`), and tools that cannot run for want of a
 * credential. An ATLAS layout in a temp folder; the search tool runs on a
 * local SerpAPI stand-in.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { serpApiStandIn, type StandIn } from '../helpers/search-standins.js';
import { cleanFolders, folder, getJson } from './helpers.js';
import { bearer, identityApi, type Who } from './identity-fixture.js';

let serp: StandIn;
let registry: Registry;
let store: Store;
let runtime: Runtime;
let app: Hono;

const write = (root: string, path: string, value: unknown) => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), JSON.stringify(value, null, 2));
};

beforeAll(async () => {
  serp = await serpApiStandIn('serp-key');
  const root = folder('toolcap-atlas-views-');
  const search = {
    name: 'web_search',
    side_effects: 'none',
    auth: { required: true, type: 'api_key', envs: { SERPAPI_KEY: { required: true } } },
    description: 'Search the web.',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    providers: [{ name: 'serpapi', priority: 0, config: { baseUrl: serp.url } }],
  };
  const dashboard = {
    name: 'atlas_dashboard',
    side_effects: 'none',
    auth: { required: true, type: 'api_key', envs: { DASHBOARD_TOKEN: { required: true } } },
    description: 'Read the Atlas dashboard.',
    parameters: { type: 'object', properties: {} },
    providers: [{ name: 'serpapi', priority: 0, config: { baseUrl: serp.url, api_key_env: 'DASHBOARD_TOKEN' } }],
  };
  write(root, 'modules/Tools/tool_maps/functions.json', [search]);
  write(root, 'modules/Personas/Atlas/Toolbox/functions.json', [dashboard]);
  write(root, 'modules/Jobs/jobs.json', [
    { name: 'NewsSweep', summary: 'Search the news.', personas: ['Atlas', 'Scout'], required_tools: ['web_search'] },
    { name: 'KPIReview', summary: 'Read the KPIs.', personas: ['Atlas'], required_tools: ['atlas_dashboard'] },
  ]);
  registry = new Registry({ paths: [join(root, 'modules')] });
  expect((await registry.start()).kind).toBe('reloaded');
  store = await openSqliteStore(join(root, 'toolcap.db'));
  runtime = new Runtime({ registry, store, providers: new ProviderTypes(), environment: { env: { SERPAPI_KEY: 'serp-key' } }, onWarning: () => {} });
  app = createApi(registry, { runtime });
});

afterAll(async () => {
  await runtime.close();
  await registry.close();
  await store.close();
  await serp.close();
  cleanFolders();
});

describe('job health', () => {
  it('is unknown until a call names the job, then shows calls, success rate and the last outcome', async () => {
    const before = await getJson(app, '/jobs');
    expect(before.body.jobs.find((j: { id?: string }) => j.id === 'NewsSweep').health).toEqual({ status: 'unknown' });
    const { res } = await getJson(app, '/tools/web_search/call', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ arguments: { query: 'atlas' }, job: 'NewsSweep' }),
    });
    expect(res.status).toBe(200);
    const after = await getJson(app, '/jobs?persona=Scout');
    expect(after.body.jobs.map((j: { name: string; id: string }) => [j.name, j.id])).toEqual([['news_sweep', 'NewsSweep']]);
    expect(after.body.jobs[0].health).toMatchObject({ status: 'ok', calls: 1, successRate: 1, lastOutcome: { ok: true, provider: 'serpapi' } });
  });
});

describe('the per-persona summary', () => {
  it.each([
    ['Atlas', { tools: 2, jobs: 2, personas: 1 }, ['kpi_review', 'news_sweep']],
    ['Scout', { tools: 1, jobs: 1, personas: 1 }, ['news_sweep']],
  ])('/summary?persona=%s counts that persona\'s view and the jobs it may schedule', async (persona, counts, jobs) => {
    const { res, body } = await getJson(app, `/summary?persona=${persona}`);
    expect(res.status).toBe(200);
    expect(body.persona).toBe(persona);
    expect(body.counts).toMatchObject(counts);
    expect(body.jobs.map((j: { name: string }) => j.name).sort()).toEqual(jobs);
    for (const job of body.jobs) expect(job.health).toMatchObject({ status: expect.any(String) });
  });

  it('names the tools that cannot run for want of a credential', async () => {
    const { body } = await getJson(app, '/summary?persona=Atlas');
    expect(body.toolHealth.unavailable).toEqual(['atlas_dashboard']);
    expect(body.toolHealth.byStatus.unavailable).toBe(1);
    const tool = await getJson(app, '/tools/atlas_dashboard?persona=Atlas');
    expect(tool.body.health).toMatchObject({ status: 'unavailable', missingCredentials: ['DASHBOARD_TOKEN'], reason: expect.stringContaining('DASHBOARD_TOKEN') });
    const whole = await getJson(app, '/summary');
    expect(whole.body.persona).toBeUndefined();
    expect(whole.body.counts.tools).toBe(2);
  });
});

describe('the per-persona summary answers for a principal\'s own personas', () => {
  it.each<[string, Who, number, string | undefined]>([
    ['its own persona', 'ops', 200, undefined],
    ['a persona not granted to it', 'ops', 403, 'FORBIDDEN_PERSONA'],
    ['every persona, without being granted all', 'ops', 403, 'FORBIDDEN'],
    ['every persona, granted all', 'admin', 200, undefined],
  ])('%s', async (label, who, status, code) => {
    const api = await identityApi();
    try {
      const path = label.startsWith('every') ? '/summary' : `/summary?persona=${label === 'its own persona' ? 'ops' : 'intern'}`;
      const { res, body } = await getJson(api.app, path, { headers: bearer(who) });
      expect(res.status).toBe(status);
      if (code !== undefined) expect(body.code).toBe(code);
      if (status === 200 && path.includes('persona')) expect(body).toMatchObject({ persona: 'ops', counts: { personas: 1 } });
    } finally {
      await api.close();
    }
  });
});
