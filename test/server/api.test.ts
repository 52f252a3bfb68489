import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import type { Tool } from '../../src/model/schema.js';
import { filterTools } from '../../src/query/filters.js';
import { FILTER_PARAMETERS, listingFilter, parseFilter } from '../../src/query/params.js';
import { buildCatalog } from '../../src/registry/catalog.js';
import { Registry } from '../../src/registry/registry.js';
import type { Snapshot } from '../../src/registry/snapshot.js';
import { createApi, MAX_QUERY_LENGTH } from '../../src/server/app.js';
import { byNameThenKey, call, cleanFolders, folder, getJson, keyOfTool, manifest } from './helpers.js';

const RISKS = ['low', 'medium', 'high', 'critical'];
const isShared = (t: Tool) => (t.scope?.personas?.length ?? 0) === 0;

let registry: Registry;
let app: Hono;
let snap: Snapshot;
const errors: unknown[] = [];

beforeAll(async () => {
  registry = new Registry({ paths: ['examples/manifests', 'examples/overrides'] });
  const first = await registry.start();
  expect(first.kind).toBe('reloaded');
  app = createApi(registry, { version: '9.9.9', onError: (e) => errors.push(e) });
  snap = registry.snapshot();
});
afterAll(async () => {
  await registry.close();
  cleanFolders();
});

/** Expected /tools keys for a hand predicate over snapshot.tools, in the documented order. */
const handKeys = (keep: (t: Tool) => boolean) => [...snap.tools].filter(keep).sort(byNameThenKey).map(keyOfTool);
/** What `GET /tools` lists without `enabled`: enabled tools only. */
const listedKeys = (keep: (t: Tool) => boolean) => handKeys((t) => t.enabled !== false && keep(t));

/** What persona scoping means, written out by hand (docs/query.md). */
const personaKeys = (personas: string[]) => {
  const wanted = personas.filter((p) => p !== '-shared');
  const withShared = !personas.includes('-shared');
  const scoped = snap.tools.filter((t) => !isShared(t) && t.scope?.personas?.some((p) => wanted.includes(p)));
  const scopedNames = new Set(scoped.map((t) => t.name));
  return handKeys((t) => (isShared(t) ? withShared && !scopedNames.has(t.name) : scoped.includes(t)));
};

/** A tool that exists shared and scoped to a persona (a shadowed tool), found in the snapshot. */
function shadowed(): { tool: Tool; shared: Tool; persona: string } {
  for (const tool of snap.tools) {
    const persona = tool.scope?.personas?.[0];
    if (persona === undefined) continue;
    const shared = snap.tools.find((t) => t.name === tool.name && isShared(t));
    if (shared) return { tool, shared, persona };
  }
  throw new Error('the examples have no shadowed tool');
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('endpoints answer 200 with the documented shape', () => {
  it('GET /tools lists every tool entry, ordered by name then key, each with capabilities, authScopes and health', async () => {
    const { res, body } = await getJson(app, '/tools');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(body.version).toBe(snap.version);
    expect(body.etag).toBe(snap.etag);
    expect(snap.tools.some((t) => t.enabled === false)).toBe(true);
    expect(body.total).toBe(snap.tools.filter((t) => t.enabled !== false).length);
    expect(body.nextCursor).toBeUndefined();
    expect(body.tools.map((t: any) => t.key)).toEqual(listedKeys(() => true));
    for (const item of body.tools) {
      const tool = snap.byKey.get(item.key);
      expect(tool, item.key).toBeDefined();
      expect(item.name).toBe(tool?.name);
      expect(item.personas).toEqual(tool?.scope?.personas ?? []);
      const caps = [...new Set((tool?.capabilities ?? []).map((c) => c.trim().toLowerCase()).filter((c) => c !== ''))].sort();
      expect(item.capabilities).toEqual(caps);
      const scopes = [...new Set([...(tool?.auth?.scopes ?? []), ...(tool?.auth?.oauth ?? []).flatMap((o) => o.scopes ?? [])])];
      expect(item.authScopes).toEqual(scopes);
      expect(item.health).toEqual({ status: 'unknown' });
      expect(item.tool).toEqual(json(tool));
    }
    // the examples exercise the at-a-glance fields
    expect(body.tools.some((t: any) => t.capabilities.length > 0)).toBe(true);
    expect(body.tools.some((t: any) => t.authScopes.length > 0)).toBe(true);
  });

  it('GET /tools/{name} answers the shared version, and ?persona= the persona\'s own version of a shadowed tool', async () => {
    const { tool, shared, persona } = shadowed();
    const plain = await getJson(app, `/tools/${encodeURIComponent(tool.name)}`);
    expect(plain.res.status).toBe(200);
    expect(plain.body).toMatchObject({ version: snap.version, key: tool.name, name: tool.name, personas: [], health: { status: 'unknown' } });
    expect(plain.body.tool).toEqual(json(shared));
    expect(Array.isArray(plain.body.provenance)).toBe(true);
    expect(plain.body.provenance.length).toBeGreaterThan(0);

    const mine = await getJson(app, `/tools/${encodeURIComponent(tool.name)}?persona=${encodeURIComponent(persona)}`);
    expect(mine.res.status).toBe(200);
    expect(mine.body.key).toBe(keyOfTool(tool));
    expect(mine.body.key).not.toBe(tool.name);
    expect(mine.body.personas).toContain(persona);
    expect(mine.body.tool).toEqual(json(tool));
    expect(mine.body.tool).not.toEqual(plain.body.tool);
    expect(Array.isArray(mine.body.capabilities) && Array.isArray(mine.body.authScopes)).toBe(true);
    expect(mine.res.headers.get('etag')).not.toBe(plain.res.headers.get('etag'));
  });

  it('GET /tools/{name} with a persona that cannot see a scoped-only tool is 404; a shared tool is seen by any persona', async () => {
    const scopedOnly = snap.tools.find((t) => !isShared(t) && !snap.tools.some((s) => s.name === t.name && isShared(s)));
    const sharedOnly = snap.tools.find((t) => isShared(t) && snap.tools.every((s) => s.name !== t.name || s === t));
    expect(sharedOnly).toBeDefined();
    const other = await getJson(app, `/tools/${encodeURIComponent(sharedOnly?.name ?? '')}?persona=SomebodyElse`);
    expect(other.res.status).toBe(200);
    expect(other.body.tool).toEqual(json(sharedOnly));
    if (scopedOnly) {
      const stranger = snap.personas.find((p) => !scopedOnly.scope?.personas?.includes(p)) ?? 'SomebodyElse';
      const miss = await getJson(app, `/tools/${encodeURIComponent(scopedOnly.name)}?persona=${encodeURIComponent(stranger)}`);
      expect(miss.res.status).toBe(404);
      expect(miss.body.code).toBe('TOOL_NOT_FOUND');
    }
  });

  it('GET /search without explain: ranked candidates with fit and score, no penalties, alternatives or matched', async () => {
    const { res, body } = await getJson(app, '/search?q=create%20a%20calendar%20event');
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ version: snap.version, etag: snap.etag, query: 'create a calendar event' });
    expect(['read', 'write', 'unknown']).toContain(body.intent);
    expect(body.intentEvidence).toBeUndefined();
    expect(body.weights).toBeUndefined();
    expect(body.candidates.length).toBeGreaterThan(0);
    expect(body.candidates.length).toBeLessThanOrEqual(10);
    body.candidates.forEach((c: any, i: number) => {
      expect(c.rank).toBe(i + 1);
      expect(typeof c.fit).toBe('number');
      expect(typeof c.score).toBe('number');
      expect(c.tool.name).toBe(c.name);
      expect(c.tool.key).toBe(c.key);
      expect(snap.byKey.has(c.key)).toBe(true);
      expect(c).not.toHaveProperty('penalties');
      expect(c).not.toHaveProperty('alternatives');
      expect(c).not.toHaveProperty('matched');
    });
    // best first
    const scores = body.candidates.map((c: any) => c.score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    // the calendar tools match the words of the query
    expect(body.candidates.some((c: any) => c.name.includes('calendar'))).toBe(true);
  });

  it('GET /search?explain=1: penalties, alternatives, matched, intent evidence and weights', async () => {
    const { res, body } = await getJson(app, '/search?q=create%20a%20calendar%20event&explain=1');
    expect(res.status).toBe(200);
    expect(Array.isArray(body.intentEvidence)).toBe(true);
    expect(typeof body.weights).toBe('object');
    expect(body.candidates.length).toBeGreaterThan(0);
    for (const c of body.candidates) {
      expect(typeof c.fit).toBe('number');
      expect(Array.isArray(c.penalties)).toBe(true);
      expect(Array.isArray(c.alternatives)).toBe(true);
      expect(Array.isArray(c.matched)).toBe(true);
      for (const p of c.penalties) expect(p).toMatchObject({ code: expect.any(String), points: expect.any(Number), reason: expect.any(String) });
    }
    // a write tool for a write task still pays for approval when it needs it
    const needsApproval = body.candidates.find((c: any) => c.tool.tool.approval?.required === true);
    if (needsApproval) expect(needsApproval.penalties.map((p: any) => p.code)).toContain('approval');
    // explain=0 is the plain answer
    const plain = await getJson(app, '/search?q=create%20a%20calendar%20event&explain=0');
    expect(plain.body.candidates[0]).not.toHaveProperty('penalties');
  });

  it('GET /search shows the detected intent, its confidence and evidence; intent= overrides it with confidence 1', async () => {
    const read = await getJson(app, `/search?q=${encodeURIComponent('which calendar events do I have tomorrow?')}&explain=1`);
    expect(read.body).toMatchObject({ intent: 'read', confidence: 0.8, intentEvidence: ['question: "which"'] });
    expect(read.body.understanding).toMatchObject({ scope: 'list', destroys: false, avoid: [] });
    const given = await getJson(app, `/search?q=${encodeURIComponent('which calendar events do I have tomorrow?')}&intent=write&explain=1`);
    expect(given.body).toMatchObject({ intent: 'write', confidence: 1, intentEvidence: ['given by the caller'] });
    const plain = await getJson(app, `/search?q=${encodeURIComponent('delete the stale branch')}`);
    expect(plain.body).toMatchObject({ intent: 'write', confidence: 0.9 });
    expect(plain.body).not.toHaveProperty('understanding');
    const bad = await getJson(app, '/search?q=x&intent=maybe');
    expect(bad.res.status).toBe(400);
  });

  it('GET /search honours the /tools filters and persona', async () => {
    const { body } = await getJson(app, '/search?q=run%20a%20shell%20command&max_risk=medium&limit=100');
    for (const c of body.candidates) expect(RISKS.indexOf(c.tool.tool.effects.risk)).toBeLessThanOrEqual(1);
    const { tool, persona } = shadowed();
    const words = tool.name.replace(/[._-]+/g, ' ');
    const mine = await getJson(app, `/search?q=${encodeURIComponent(words)}&persona=${encodeURIComponent(persona)}&limit=100`);
    const hits = mine.body.candidates.filter((c: any) => c.name === tool.name);
    expect(hits.map((c: any) => c.key)).toEqual([keyOfTool(tool)]);
  });

  it('GET /skills, /agents, /jobs answer the snapshot\'s entries', async () => {
    const skills = await getJson(app, '/skills');
    expect(skills.res.status).toBe(200);
    expect(skills.body.version).toBe(snap.version);
    expect(skills.body.skills.map((s: any) => s.name)).toEqual(snap.skills.map((s) => s.name));
    const agents = await getJson(app, '/agents');
    expect(agents.res.status).toBe(200);
    expect(agents.body.agents.map((a: any) => a.name)).toEqual(snap.agents.map((a) => a.name));
    const jobs = await getJson(app, '/jobs');
    expect(jobs.res.status).toBe(200);
    expect(jobs.body.version).toBe(snap.version);
    expect(jobs.body.jobs.map((j: any) => j.name).sort()).toEqual(snap.jobs.map((j) => j.name).sort());
    for (const j of jobs.body.jobs) expect(j).toMatchObject({ name: expect.any(String), personas: expect.any(Array), compatible: expect.any(Boolean) });
    for (const persona of snap.personas) {
      const scoped = await getJson(app, `/jobs?persona=${encodeURIComponent(persona)}`);
      expect(scoped.res.status).toBe(200);
      expect(Array.isArray(scoped.body.jobs)).toBe(true);
      const sk = await getJson(app, `/skills?persona=${encodeURIComponent(persona)}`);
      expect(sk.res.status).toBe(200);
    }
  });

  it('GET /summary counts what the snapshot holds', async () => {
    const { res, body } = await getJson(app, '/summary');
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ version: snap.version, etag: snap.etag, builtAt: snap.builtAt });
    const disabled = snap.tools.filter((t) => t.enabled === false).length;
    expect(body.counts).toMatchObject({
      tools: snap.tools.length,
      enabledTools: snap.tools.length - disabled,
      disabledTools: disabled,
      skills: snap.skills.length,
      agents: snap.agents.length,
      jobs: snap.jobs.length,
      personas: snap.personas.length,
    });
    expect(body.personas.map((p: any) => p.name)).toEqual([...snap.personas]);
    const byMode = body.tools.byMode as Record<string, number>;
    expect(Object.values(byMode).reduce((a, b) => a + b, 0)).toBe(snap.tools.length);
    expect(byMode.write).toBe(snap.tools.filter((t) => t.effects?.mode === 'write').length);
  });

  it('GET /health says ok with the serving version', async () => {
    const { res, body } = await getJson(app, '/health');
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', ok: true, version: snap.version, etag: snap.etag, lastError: null, watching: false });
  });

  it('GET /openapi.json is an OpenAPI 3.1 document with the configured version', async () => {
    const { res, body } = await getJson(app, '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body.openapi).toBe('3.1.0');
    expect(body.info.version).toBe('9.9.9');
  });

  it('HEAD answers like GET without a body', async () => {
    const get = await call(app, '/tools');
    const head = await call(app, '/tools', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(await head.text()).toBe('');
  });
});

describe('/tools filters agree with filterTools and with the documented meaning', () => {
  interface Case {
    query: string;
    /** The meaning, by hand, over snapshot.tools (absent: only the filterTools comparison). */
    hand?: () => string[];
  }
  const enabled = (t: Tool) => t.enabled !== false;
  const cases = (): Case[] => {
    const provider = snap.tools.flatMap((t) => t.providers ?? []).map((p) => p.name)[0] ?? 'none';
    const tag = snap.tools.flatMap((t) => t.tags ?? [])[0] ?? 'none';
    const capability = snap.tools.flatMap((t) => t.capabilities ?? []).find((c) => c.includes('.')) ?? 'a.b';
    const prefix = `${capability.split('.')[0]}.*`;
    const [p1, p2] = snap.personas;
    return [
      ...RISKS.map((r) => ({ query: `max_risk=${r}`, hand: () => handKeys((t) => RISKS.indexOf(t.effects?.risk ?? '') >= 0 && RISKS.indexOf(t.effects?.risk ?? '') <= RISKS.indexOf(r)) })),
      ...['read', 'write', 'mixed'].map((m) => ({ query: `mode=${m}`, hand: () => handKeys((t) => t.effects?.mode === m) })),
      { query: 'enabled=true', hand: () => handKeys(enabled) },
      { query: 'enabled=false', hand: () => handKeys((t) => !enabled(t)) },
      { query: 'enabled=any', hand: () => handKeys(() => true) },
      { query: 'approval=true', hand: () => handKeys((t) => t.approval?.required === true) },
      { query: 'approval=false', hand: () => handKeys((t) => t.approval?.required === false) },
      { query: `provider=${encodeURIComponent(provider)}`, hand: () => handKeys((t) => (t.providers ?? []).some((p) => p.name === provider)) },
      { query: `tag=${encodeURIComponent(tag)}`, hand: () => handKeys((t) => (t.tags ?? []).includes(tag)) },
      { query: `capability=${encodeURIComponent(capability)}`, hand: () => handKeys((t) => (t.capabilities ?? []).includes(capability)) },
      {
        query: `capability=${encodeURIComponent(prefix)}`,
        hand: () => handKeys((t) => (t.capabilities ?? []).some((c) => c === prefix.slice(0, -2) || c.startsWith(prefix.slice(0, -1)))),
      },
      { query: 'domain=tasks', hand: () => handKeys((t) => (t.surface?.domains ?? []).includes('tasks')) },
      { query: 'operation=read', hand: () => handKeys((t) => (t.surface?.operations ?? []).includes('read')) },
      { query: 'version=%5E1.0.0', hand: () => handKeys((t) => /^1\.\d+\.\d+$/.test(t.version ?? '')) },
      { query: 'version=%3E%3D2' },
      { query: 'side_effects=none' },
      { query: 'side_effects=read_external_service' },
      { query: 'side_effects=write' },
      { query: 'min_success_rate=0.9', hand: () => handKeys(() => true) },
      ...(p1 ? [{ query: `persona=${encodeURIComponent(p1)}`, hand: () => personaKeys([p1]) }] : []),
      ...(p1 ? [{ query: `persona=${encodeURIComponent(p1)}&persona=-shared`, hand: () => personaKeys([p1, '-shared']) }] : []),
      ...(p1 && p2 ? [{ query: `persona=${encodeURIComponent(p1)}&persona=${encodeURIComponent(p2)}`, hand: () => personaKeys([p1, p2]) }] : []),
      { query: 'persona=NoSuchPersona', hand: () => handKeys(isShared) },
      { query: 'max_risk=medium&mode=write&enabled=true', hand: () => handKeys((t) => enabled(t) && t.effects?.mode === 'write' && RISKS.indexOf(t.effects.risk ?? '') <= 1 && t.effects.risk !== undefined) },
      { query: 'limit=5&offset=3', hand: () => handKeys(() => true).slice(3, 8) },
    ];
  };

  it('the table covers every filter parameter except cursor (paged below)', () => {
    const named = new Set(cases().flatMap((c) => [...new URLSearchParams(c.query).keys()]));
    expect(FILTER_PARAMETERS.filter((p) => !named.has(p))).toEqual(['cursor']);
  });

  it('every case: HTTP keys equal filterTools(snapshot.tools, parseFilter(params)) and the hand predicate', async () => {
    for (const c of cases()) {
      const { res, body } = await getJson(app, `/tools?${c.query}`);
      expect(res.status, c.query).toBe(200);
      const params = new URLSearchParams(c.query);
      const parsed = parseFilter(params);
      if (!('filter' in parsed)) throw new Error(`${c.query} did not parse`);
      const direct = filterTools(snap.tools, listingFilter(parsed.filter, params));
      const keys = body.tools.map((t: any) => t.key);
      expect(keys, c.query).toEqual(direct.tools.map((t) => t.key));
      expect(body.total, c.query).toBe(direct.total);
      // without `enabled`, the listing keeps enabled tools only
      const listed = new Set(listedKeys(() => true));
      if (c.hand) expect(keys, c.query).toEqual(params.has('enabled') ? c.hand() : c.hand().filter((k) => listed.has(k)));
    }
  });

  it('the cases are not vacuous: most narrow to a non-empty proper subset', async () => {
    let proper = 0;
    for (const c of cases()) {
      const { body } = await getJson(app, `/tools?${c.query}`);
      if (body.tools.length > 0 && body.tools.length < snap.tools.length) proper++;
    }
    expect(proper).toBeGreaterThan(cases().length / 2);
  });

  it('max_risk=medium: every returned tool is low or medium, every enabled tool left out is riskier', async () => {
    const { body } = await getJson(app, '/tools?max_risk=medium');
    const returned = new Set(body.tools.map((t: any) => t.key));
    expect(returned.size).toBeGreaterThan(0);
    for (const item of body.tools) expect(['low', 'medium']).toContain(item.tool.effects.risk);
    const excluded = snap.tools.filter((t) => enabled(t) && !returned.has(keyOfTool(t)));
    expect(excluded.length).toBeGreaterThan(0);
    for (const t of excluded) expect(['high', 'critical']).toContain(t.effects?.risk);
  });

  it('persona=P&persona=-shared leaves every shared tool out', async () => {
    const persona = shadowed().persona;
    const { body } = await getJson(app, `/tools?persona=${encodeURIComponent(persona)}&persona=-shared`);
    expect(body.tools.length).toBeGreaterThan(0);
    for (const item of body.tools) expect(item.personas).toContain(persona);
  });

  it('persona=P: the persona\'s version shadows the shared one', async () => {
    const { tool, persona } = shadowed();
    const { body } = await getJson(app, `/tools?persona=${encodeURIComponent(persona)}`);
    const same = body.tools.filter((t: any) => t.name === tool.name);
    expect(same.map((t: any) => t.key)).toEqual([keyOfTool(tool)]);
  });

  it.each([1, 2, 4, 7, 1000])('limit=%i with cursor walks the whole list exactly once, in order', async (limit) => {
    const all = listedKeys(() => true);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { res, body } = await getJson(app, `/tools?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(body.total).toBe(all.length);
      expect(body.tools.length).toBeLessThanOrEqual(limit);
      seen.push(...body.tools.map((t: any) => t.key));
      cursor = body.nextCursor;
      pages++;
      expect(pages).toBeLessThanOrEqual(all.length + 1);
    } while (cursor !== undefined);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.max(1, Math.ceil(all.length / limit)));
  });

  it('paging a persona view with a cursor walks that view exactly once', async () => {
    const persona = shadowed().persona;
    const listed = new Set(listedKeys(() => true));
    const all = personaKeys([persona]).filter((k) => listed.has(k));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { body } = await getJson(app, `/tools?persona=${encodeURIComponent(persona)}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...body.tools.map((t: any) => t.key));
      cursor = body.nextCursor;
    } while (cursor !== undefined && seen.length <= all.length);
    expect(seen).toEqual(all);
  });
});

describe('ETag and If-None-Match', () => {
  it('a repeated request with the etag is 304 with the same etag and no body; * and W/ match; another etag is 200', async () => {
    for (const path of ['/tools', '/tools?max_risk=medium', '/search?q=calendar', '/skills', '/agents', '/jobs', '/summary', `/tools/${encodeURIComponent(snap.tools[0]?.name ?? '')}`]) {
      const first = await call(app, path);
      expect(first.status, path).toBe(200);
      const etag = first.headers.get('etag') ?? '';
      expect(etag, path).toMatch(/^"[^"]+"$/);
      for (const header of [etag, '*', `W/${etag}`, `"nope", ${etag}`]) {
        const again = await call(app, path, { headers: { 'if-none-match': header } });
        expect(again.status, `${path} ${header}`).toBe(304);
        expect(again.headers.get('etag')).toBe(etag);
        expect(await again.text()).toBe('');
      }
      const other = await call(app, path, { headers: { 'if-none-match': '"something-else"' } });
      expect(other.status, path).toBe(200);
      expect(other.headers.get('etag')).toBe(etag);
      expect((await other.text()).length).toBeGreaterThan(0);
    }
  });

  it('different queries have different etags', async () => {
    const a = await call(app, '/tools?max_risk=low');
    const b = await call(app, '/tools?max_risk=high');
    expect(a.headers.get('etag')).not.toBe(b.headers.get('etag'));
  });

  it('after a reload that changes content, the old etag gives 200 and a new etag', async () => {
    const dir = folder();
    const file = join(dir, 'tools.yaml');
    writeFileSync(file, manifest(['alpha.one', 'alpha.two']));
    const reg = new Registry({ paths: [dir] });
    await reg.start();
    const api = createApi(reg);
    const first = await getJson(api, '/tools');
    const etag = first.res.headers.get('etag') ?? '';
    expect(first.body.tools.map((t: any) => t.name)).toEqual(['alpha.one', 'alpha.two']);
    expect((await call(api, '/tools', { headers: { 'if-none-match': etag } })).status).toBe(304);

    writeFileSync(file, manifest(['alpha.one', 'alpha.two', 'beta.three']));
    expect((await reg.refresh({ force: true })).kind).toBe('reloaded');
    const after = await getJson(api, '/tools', { headers: { 'if-none-match': etag } });
    expect(after.res.status).toBe(200);
    expect(after.res.headers.get('etag')).not.toBe(etag);
    expect(after.body.tools.map((t: any) => t.name)).toEqual(['alpha.one', 'alpha.two', 'beta.three']);
    expect(after.body.etag).toBe(reg.snapshot().etag);
    await reg.close();
  });

  it('a forced reload of unchanged content: the body names the serving version (not the cached one)', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'tools.yaml'), manifest(['alpha.one']));
    const reg = new Registry({ paths: [dir] });
    await reg.start();
    const api = createApi(reg);
    const before = await getJson(api, '/tools');
    expect(before.body.version).toBe(1);
    const again = await reg.refresh({ force: true });
    expect(again).toMatchObject({ kind: 'reloaded', version: 2 });
    for (const path of ['/tools', '/summary', '/skills', '/tools/alpha.one']) {
      const { res, body } = await getJson(api, path);
      expect(res.headers.get('x-toolcap-version'), path).toBe('2');
      expect(body.version, path).toBe(reg.snapshot().version);
    }
    const summary = await getJson(api, '/summary');
    expect(summary.body.builtAt).toBe(reg.snapshot().builtAt);
    await reg.close();
  });
});

describe('errors are problem+json with a code', () => {
  const validCursor = () => Buffer.from(JSON.stringify([snap.tools[0]?.name, snap.tools[0]?.name]), 'utf8').toString('base64url');
  const cases = (): Array<{ path: string; status: number; code: string; parameter?: string; method?: string }> => [
    { path: '/tools?colour=blue', status: 400, code: 'BAD_PARAMETER', parameter: 'colour' },
    { path: '/tools?mode=read&mode=write', status: 400, code: 'BAD_PARAMETER', parameter: 'mode' },
    { path: '/tools?max_risk=extreme', status: 400, code: 'BAD_PARAMETER', parameter: 'max_risk' },
    { path: '/tools?side_effects=lots', status: 400, code: 'BAD_PARAMETER', parameter: 'side_effects' },
    { path: '/tools?domain=space', status: 400, code: 'BAD_PARAMETER', parameter: 'domain' },
    { path: '/tools?version=banana', status: 400, code: 'BAD_PARAMETER', parameter: 'version' },
    { path: '/tools?approval=yes', status: 400, code: 'BAD_PARAMETER', parameter: 'approval' },
    { path: '/tools?enabled=1', status: 400, code: 'BAD_PARAMETER', parameter: 'enabled' },
    { path: '/tools?min_success_rate=2', status: 400, code: 'BAD_PARAMETER', parameter: 'min_success_rate' },
    { path: '/tools?capability=Not%20A%20Cap', status: 400, code: 'BAD_PARAMETER', parameter: 'capability' },
    { path: '/tools?limit=0', status: 400, code: 'BAD_PARAMETER', parameter: 'limit' },
    { path: '/tools?limit=1001', status: 400, code: 'BAD_PARAMETER', parameter: 'limit' },
    { path: '/tools?limit=abc', status: 400, code: 'BAD_PARAMETER', parameter: 'limit' },
    { path: '/tools?limit=-1', status: 400, code: 'BAD_PARAMETER', parameter: 'limit' },
    { path: '/tools?offset=-1', status: 400, code: 'BAD_PARAMETER', parameter: 'offset' },
    { path: '/tools?cursor=not-a-cursor', status: 400, code: 'BAD_PARAMETER', parameter: 'cursor' },
    { path: `/tools?cursor=${Buffer.from('{"a":1}').toString('base64url')}`, status: 400, code: 'BAD_PARAMETER', parameter: 'cursor' },
    { path: `/tools?cursor=${validCursor()}&offset=1`, status: 400, code: 'BAD_PARAMETER', parameter: 'offset' },
    { path: '/tools?persona=', status: 400, code: 'BAD_PARAMETER', parameter: 'persona' },
    { path: '/tools?persona=-shared', status: 400, code: 'BAD_PARAMETER', parameter: 'persona' },
    { path: '/search', status: 400, code: 'BAD_PARAMETER', parameter: 'q' },
    { path: '/search?q=%20%20', status: 400, code: 'BAD_PARAMETER', parameter: 'q' },
    { path: `/search?q=${'a'.repeat(MAX_QUERY_LENGTH + 1)}`, status: 400, code: 'BAD_PARAMETER', parameter: 'q' },
    { path: `/search?q=x&cursor=${validCursor()}`, status: 400, code: 'BAD_PARAMETER', parameter: 'cursor' },
    { path: '/search?q=x&offset=2', status: 400, code: 'BAD_PARAMETER', parameter: 'offset' },
    { path: '/search?q=x&q=y', status: 400, code: 'BAD_PARAMETER', parameter: 'q' },
    { path: '/search?q=x&limit=101', status: 400, code: 'BAD_PARAMETER', parameter: 'limit' },
    { path: '/search?q=x&explain=maybe', status: 400, code: 'BAD_PARAMETER', parameter: 'explain' },
    { path: '/search?q=x&intent=delete', status: 400, code: 'BAD_PARAMETER', parameter: 'intent' },
    { path: '/search?q=x&task_risk=11', status: 400, code: 'BAD_PARAMETER', parameter: 'task_risk' },
    { path: '/search?q=x&max_risk=extreme', status: 400, code: 'BAD_PARAMETER', parameter: 'max_risk' },
    { path: '/skills?persona=a&persona=b', status: 400, code: 'BAD_PARAMETER', parameter: 'persona' },
    { path: '/agents?colour=1', status: 400, code: 'BAD_PARAMETER', parameter: 'colour' },
    { path: '/jobs?persona=', status: 400, code: 'BAD_PARAMETER', parameter: 'persona' },
    { path: '/summary?persona=', status: 400, code: 'BAD_PARAMETER', parameter: 'persona' },
    { path: '/summary?colour=1', status: 400, code: 'BAD_PARAMETER', parameter: 'colour' },
    { path: '/tools/x?max_risk=low', status: 400, code: 'BAD_PARAMETER', parameter: 'max_risk' },
    { path: '/tools/no.such.tool', status: 404, code: 'TOOL_NOT_FOUND' },
    { path: '/nowhere', status: 404, code: 'NOT_FOUND' },
    { path: '/tools/a/b', status: 404, code: 'NOT_FOUND' },
    { path: '/tools', status: 405, code: 'METHOD_NOT_ALLOWED', method: 'POST' },
    { path: '/tools/x', status: 405, code: 'METHOD_NOT_ALLOWED', method: 'PATCH' },
    { path: '/search?q=x', status: 405, code: 'METHOD_NOT_ALLOWED', method: 'DELETE' },
    { path: '/health', status: 405, code: 'METHOD_NOT_ALLOWED', method: 'PATCH' },
    { path: '/openapi.json', status: 405, code: 'METHOD_NOT_ALLOWED', method: 'POST' },
  ];

  it('every case answers its status, code and names the parameter', async () => {
    for (const c of cases()) {
      const res = await call(app, c.path, c.method ? { method: c.method } : undefined);
      const label = `${c.method ?? 'GET'} ${c.path.slice(0, 80)}`;
      expect(res.status, label).toBe(c.status);
      expect(res.headers.get('content-type'), label).toBe('application/problem+json');
      const body = (await res.json()) as any;
      expect(body, label).toMatchObject({ status: c.status, code: c.code, type: expect.stringContaining('toolcap.dev/problems/'), title: expect.any(String), detail: expect.any(String) });
      if (c.parameter !== undefined) {
        expect(body.problems.map((p: any) => p.parameter), label).toContain(c.parameter);
        expect(body.detail, label).toContain(c.parameter);
      }
      if (c.status === 405) expect(res.headers.get('allow'), label).toMatch(/^GET, HEAD(, PUT, DELETE)?$/);
    }
  });

  it('a 400 lists every bad parameter, not just the first', async () => {
    const { res, body } = await getJson(app, '/tools?max_risk=extreme&limit=0&colour=blue');
    expect(res.status).toBe(400);
    expect(body.problems.map((p: any) => p.parameter).sort()).toEqual(['colour', 'limit', 'max_risk']);
  });

  it('a trailing slash on /tools is not refused as "GET not allowed" (405 whose Allow lists GET)', async () => {
    const res = await call(app, '/tools/');
    expect(res.status).toBeLessThan(500);
    expect(res.status).not.toBe(405);
  });

  it('a registry that has not started: 503 NOT_READY with retry-after; /health 503 starting', async () => {
    const idle = new Registry({ paths: [folder()] });
    const api = createApi(idle);
    for (const path of ['/tools', '/tools/x', '/search?q=x', '/skills', '/agents', '/jobs', '/summary']) {
      const res = await call(api, path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('retry-after'), path).toBe('1');
      expect(await res.json(), path).toMatchObject({ code: 'NOT_READY', status: 503 });
    }
    const health = await getJson(api, '/health');
    expect(health.res.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'starting', ok: false, version: 0, etag: null });
    // the document needs no snapshot
    expect((await call(api, '/openapi.json')).status).toBe(200);
  });
});

describe('hostile input never gets a 500', () => {
  const big = 'x'.repeat(100 * 1024);
  const personas = Array.from({ length: 1000 }, (_, i) => `persona=p${i}`).join('&');
  const paths = [
    '/tools?__proto__=1',
    '/tools?constructor=1',
    '/tools?__proto__[polluted]=1',
    '/tools?toString=1&hasOwnProperty=2',
    '/search?q=x&__proto__=1',
    '/skills?__proto__=1',
    '/summary?constructor=1',
    '/tools/__proto__',
    '/tools/constructor',
    '/tools/prototype',
    '/tools/hasOwnProperty',
    '/tools/__proto__?persona=__proto__',
    '/tools?persona=__proto__',
    '/tools?persona=constructor&persona=-shared',
    '/tools?tag=__proto__',
    '/tools?provider=constructor',
    '/tools/%ZZ',
    '/tools/%00',
    '/tools/%',
    '/tools/%E0%A4%A',
    '/tools/%ED%A0%80',
    '/tools?%ZZ=1',
    '/tools?tag=%ZZ',
    '/tools?tag=%00',
    '/tools?persona=%00',
    '/tools?cursor=%00',
    '/search?q=%ZZ',
    '/search?q=%00',
    '/search?q=%ED%A0%80',
    '/%ZZ',
    `/tools?tag=${big}`,
    `/tools?persona=${big}`,
    `/tools?version=${big}`,
    `/tools?capability=${'a.'.repeat(50_000)}b`,
    `/tools?capability=${'a.'.repeat(50_000)}`,
    `/tools?cursor=${big}`,
    `/search?q=${big}`,
    `/tools/${big}`,
    `/tools?${big}=1`,
    `/tools?${personas}`,
    `/search?q=calendar&${personas}`,
    `/skills?${personas}`,
    '/tools?persona=Atl%C3%A1s',
    '/tools?tag=%F0%9F%98%80',
    '/tools/%F0%9F%98%80',
    '/tools/%E6%97%A5%E6%9C%AC',
    `/search?q=${encodeURIComponent('日本語 カレンダー 📅 événement')}`,
    `/search?q=${encodeURIComponent('\u202e\u0000\ufeff')}`,
    // the entity reader's own marks and stand-ins, written in the task: a mark of no entity threw (a 500)
    '/search?q=zqeaqz',
    `/search?q=${encodeURIComponent('close #1 zqebqz zqidzq')}&explain=1`,
    '/tools/..%2F..%2Fetc%2Fpasswd',
    '/tools?limit=99999999999999999999',
    '/tools?offset=99999999999999999999',
    '/tools?offset=9007199254740991',
    '/tools?min_success_rate=NaN',
    '/tools?min_success_rate=Infinity',
    '/tools?min_success_rate=0x1',
    '/search?q=x&task_risk=NaN',
    '/search?q=x&limit=1e2',
    '/tools?version=%3E%3D1%20%7C%7C%20%3C0',
  ];

  it.each(paths.map((p) => [p.length > 90 ? `${p.slice(0, 90)}… (${p.length} chars)` : p, p]))('%s', async (_label, path) => {
    const before = errors.length;
    const res = await call(app, path);
    expect(res.status).toBeLessThan(500);
    expect(res.status === 200 || (res.status >= 400 && res.status < 500)).toBe(true);
    const type = res.headers.get('content-type') ?? '';
    expect(type).toMatch(res.status === 200 ? /^application\/json/ : /^application\/problem\+json$/);
    const body = (await res.json()) as any;
    if (res.status !== 200) expect(body.code).toEqual(expect.any(String));
    expect(errors.length).toBe(before);
    // nothing leaked onto Object.prototype
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('specific hostile answers', async () => {
    const proto = await getJson(app, '/tools?__proto__=1');
    expect(proto.res.status).toBe(400);
    expect(proto.body.problems.map((p: any) => p.parameter)).toContain('__proto__');
    for (const name of ['__proto__', 'constructor']) {
      const res = await getJson(app, `/tools/${name}`);
      expect(res.res.status).toBe(404);
      expect(res.body.code).toBe('TOOL_NOT_FOUND');
    }
    // 1,000 unknown personas: the shared tools only
    const many = await getJson(app, `/tools?${personas}`);
    expect(many.res.status).toBe(200);
    expect(many.body.tools.map((t: any) => t.key)).toEqual(listedKeys(isShared));
    const longQ = await getJson(app, `/search?q=${big}`);
    expect(longQ.res.status).toBe(400);
    expect(longQ.body.problems.map((p: any) => p.parameter)).toContain('q');
    const unicode = await getJson(app, `/search?q=${encodeURIComponent('日本語 カレンダー 📅')}`);
    expect(unicode.res.status).toBe(200);
    expect(unicode.body.query).toBe('日本語 カレンダー 📅');
  });
});

describe('/openapi.json describes the API', () => {
  const toTemplate = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

  it('every route the app answers is in paths, and every documented path answers GET', async () => {
    const { body } = await getJson(app, '/openapi.json');
    const routes = app.routes.filter((r) => r.method === 'GET' || r.method === 'POST');
    expect(routes.length).toBeGreaterThanOrEqual(14);
    for (const route of routes) expect(Object.keys(body.paths[toTemplate(route.path)] ?? {}), `${route.method} ${route.path}`).toContain(route.method.toLowerCase());
    // this app has no runtime: the runtime's paths answer 501 NO_RUNTIME, the rest 200
    const runtimePaths = new Set(['/approvals', '/approvals/{id}', '/metrics', '/audit', '/tasks/snapshot', '/workflows/{id}', '/workflows/{id}/signals', '/tools/learned']);
    for (const path of Object.keys(body.paths).filter((p) => 'get' in body.paths[p])) {
      const concrete = path.replace('{name}', encodeURIComponent(snap.tools[0]?.name ?? 'x')).replace('{id}', 'apr_x') + (path === '/search' ? '?q=calendar' : '');
      const res = await call(app, concrete);
      expect(res.status, path).toBe(runtimePaths.has(path) ? 501 : 200);
    }
  });

  it('every filter parameter is documented for /tools, and the /search filters too (paging aside)', async () => {
    const { body } = await getJson(app, '/openapi.json');
    const tools = body.paths['/tools'].get.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
    // `agent` is no filter field: it narrows to an agent's view (server/agent-param.ts)
    expect([...tools].sort()).toEqual([...FILTER_PARAMETERS, 'agent'].sort());
    const search = new Set(body.paths['/search'].get.parameters.map((p: any) => p.name));
    for (const p of FILTER_PARAMETERS) expect(search.has(p), p).toBe(!['limit', 'cursor', 'offset'].includes(p) || p === 'limit');
    expect(search.has('agent')).toBe(true);
  });

  it('imports cleanly with toolcap\'s own openapi dialect: one tool per GET operation', async () => {
    const { body } = await getJson(app, '/openapi.json');
    const file = join(folder(), 'toolcap-api.json');
    writeFileSync(file, JSON.stringify(body, null, 2));
    const operations = Object.values(body.paths as Record<string, Record<string, unknown>>).flatMap((ops) => Object.keys(ops));
    const gets = operations.length;
    const result = buildCatalog([file], { dialect: 'openapi' });
    expect(result.unreadable).toBe(false);
    expect(result.catalog.tools).toHaveLength(gets);
    for (const entry of result.catalog.tools) {
      const method = (entry.value.providers?.[0]?.config as { method?: string } | undefined)?.method?.toLowerCase();
      expect(entry.value.effects?.mode).toBe(method === 'get' ? 'read' : 'write');
      expect(entry.value.providers?.[0]?.name).toBe('http');
    }
    // detected without naming the dialect too
    const detected = buildCatalog([file]);
    expect(detected.catalog.tools).toHaveLength(gets);
  });

  it('imports without errors with toolcap\'s own openapi dialect (no reference it cannot resolve)', async () => {
    const { body } = await getJson(app, '/openapi.json');
    const file = join(folder(), 'toolcap-api.json');
    writeFileSync(file, JSON.stringify(body, null, 2));
    const result = buildCatalog([file], { dialect: 'openapi' });
    expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.pointer ?? ''}: ${d.message}`)).toEqual([]);
  });
});

describe('an empty catalog', () => {
  let empty: Registry;
  let api: Hono;
  beforeAll(async () => {
    empty = new Registry({ paths: [folder()] });
    await empty.start();
    api = createApi(empty);
  });
  afterAll(async () => {
    await empty.close();
  });

  it.each([
    ['/tools', (b: any) => expect(b).toMatchObject({ total: 0, tools: [] })],
    ['/search?q=list+files', (b: any) => expect(b.candidates).toEqual([])],
    ['/summary', (b: any) => expect(b.counts).toMatchObject({ tools: 0, skills: 0, agents: 0, jobs: 0, personas: 0 })],
    ['/jobs', (b: any) => expect(b.jobs).toEqual([])],
    ['/skills', (b: any) => expect(b.skills).toEqual([])],
    ['/health', (b: any) => expect(b).toMatchObject({ status: 'ok', version: 1 })],
  ])('%s answers 200 with nothing in it', async (path, check) => {
    const { res, body } = await getJson(api, path);
    expect(res.status).toBe(200);
    check(body);
  });

  it('/tools/{name} is 404 TOOL_NOT_FOUND', async () => {
    const { res, body } = await getJson(api, '/tools/anything');
    expect(res.status).toBe(404);
    expect(body.code).toBe('TOOL_NOT_FOUND');
  });
});
