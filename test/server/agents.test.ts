/**
 * Agents over HTTP, in-process: `/tools?agent=` and `/search?agent=` answer
 * the agent's view, a call for an agent outside it is 403 AGENT_FORBIDDEN
 * naming the constraint, an unknown agent is 404 (never an unfiltered view),
 * `/summary` lists unserved skills, and with identities on an agent only
 * narrows what the principal's persona allows.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { Registry } from '../../src/registry/registry.js';
import type { AuthOutcome } from '../../src/runtime/identity/authenticate.js';
import type { RequestHead } from '../../src/server/auth.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { PROBLEM_CODES } from '../../src/server/problem.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { BASE, cleanFolders, folder, getJson } from './helpers.js';

const FIXTURE = 'test/fixtures/xena/agents';

const PRINCIPALS: Record<string, Principal> = {
  ops: { id: 'ops-bot', roles: ['caller'], personas: ['ops'], defaultPersona: 'ops', via: 'api-key' },
  plain: { id: 'plain-bot', roles: ['caller'], personas: [], via: 'api-key' },
};

async function authenticate(request: RequestHead): Promise<AuthOutcome> {
  const name = /^Bearer tok-(\w+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
  const principal = name === undefined ? undefined : PRINCIPALS[name];
  return principal ? { ok: true, principal } : { ok: false, code: 'UNAUTHENTICATED', message: 'No credentials.' };
}

let registry: Registry;
let store: Store;
let runtime: Runtime;
let open: Hono;
let authed: Hono;

beforeAll(async () => {
  registry = new Registry({ paths: [FIXTURE] });
  expect((await registry.start()).kind).toBe('reloaded');
  store = await openSqliteStore(join(folder('toolcap-agents-'), 'toolcap.db'));
  runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => undefined });
  open = createApi(registry, { runtime, onError: (e) => console.error(e) });
  authed = createApi(registry, {
    runtime,
    auth: { authenticate, resourceMetadata: { resource: `${BASE}/`, authorizationServers: ['https://issuer.example'] } },
    onError: (e) => console.error(e),
  });
});

afterAll(async () => {
  await runtime.close();
  await registry.close();
  await store.close();
  cleanFolders();
});

const as = (who: string | undefined) => (who === undefined ? {} : { authorization: `Bearer tok-${who}` });
const get = (path: string, who?: string) => getJson(who === undefined ? open : authed, path, { headers: as(who) });
const post = (path: string, body: unknown, headers: Record<string, string> = {}, who?: string) =>
  getJson(who === undefined ? open : authed, path, { method: 'POST', headers: { 'content-type': 'application/json', ...as(who), ...headers }, body: JSON.stringify(body) });
const names = (body: any): string[] => body.tools.map((t: { name: string }) => t.name);

function expectProblem(res: Response, body: any, code: keyof typeof PROBLEM_CODES): void {
  expect({ status: res.status, code: body?.code }).toEqual({ status: PROBLEM_CODES[code], code });
  expect(res.headers.get('content-type')).toBe('application/problem+json');
}

describe('GET /tools?agent=', () => {
  it.each([
    ['agent.low', ['notes.lookup', 'tool.tasks.source']],
    ['agent.deterministic', ['tool.deploy.prod', 'tool.tasks.source']],
    ['agent.skilled', ['tool.email.reply', 'tool.tasks.source']],
    ['agent.empty', []],
  ])('%s lists %j', async (agent, tools) => {
    const { res, body } = await get(`/tools?agent=${agent}`);
    expect(res.status).toBe(200);
    expect(names(body)).toEqual(tools);
    expect(body.total).toBe(tools.length);
  });

  it('combines with the other filters, which narrow further', async () => {
    const { body } = await get('/tools?agent=agent.low&capability=tasks.probe');
    expect(names(body)).toEqual(['tool.tasks.source']);
  });

  it.each([
    ['/tools?agent=agent.nobody', 'UNKNOWN_AGENT'],
    ['/tools?agent=', 'BAD_PARAMETER'],
    ['/tools?agent=agent.low&agent=agent.skilled', 'BAD_PARAMETER'],
    // an agent bound to persona ops answers only for ops
    ['/tools?agent=agent.ops', 'AGENT_FORBIDDEN'],
    // a disabled agent is refused, not an empty or full list
    ['/tools?agent=agent.off', 'AGENT_FORBIDDEN'],
    ['/search?q=restart+the+service&agent=agent.nobody', 'UNKNOWN_AGENT'],
  ] as const)('%s is %s, never an unfiltered list', async (path, code) => {
    const { res, body } = await get(path);
    expectProblem(res, body, code);
    expect(body.tools).toBeUndefined();
  });

  it('an unknown agent names the agents there are', async () => {
    const { body } = await get('/tools?agent=agent.nobody');
    expect(body.allowed).toContain('agent.low');
  });

  it('a persona-bound agent narrows that persona', async () => {
    const { res, body } = await get('/tools?agent=agent.ops&persona=ops');
    expect(res.status).toBe(200);
    expect(names(body)).toEqual(['notes.lookup', 'ops.restart']);
    const refused = await get('/tools?agent=agent.ops');
    expect(refused.body.constraint).toBe('persona');
  });
});

describe('GET /search?agent=', () => {
  it('ranks within the agent view only', async () => {
    const all = await get('/search?q=deploy+the+service+to+production');
    expect(all.body.candidates.map((c: { name: string }) => c.name)).toContain('tool.deploy.prod');
    const low = await get('/search?q=deploy+the+service+to+production&agent=agent.low');
    expect(low.res.status).toBe(200);
    for (const c of low.body.candidates) expect(['notes.lookup', 'tool.tasks.source']).toContain(c.name);
  });
});

describe('POST /tools/{name}/call for an agent', () => {
  it.each([
    ['tool.deploy.prod', { agent: 'agent.low' }, {}, 'maxRiskLevel'],
    ['tool.email.reply', { agent: 'agent.low' }, {}, 'maxRiskLevel'],
    ['notes.lookup', { agent: 'agent.deterministic', arguments: { key: 'k' } }, {}, 'requireDeterministicTools'],
    ['notes.lookup', { arguments: { key: 'k' } }, { 'x-toolcap-agent': 'agent.empty' }, 'toolIds'],
    ['tool.deploy.prod', { agent: 'agent.skilled' }, {}, 'toolIds'],
    ['notes.lookup', { agent: 'agent.off', arguments: { key: 'k' } }, {}, 'enabled'],
  ])('%s with %j %j: 403 AGENT_FORBIDDEN by %s', async (tool, body, headers, constraint) => {
    const { res, body: answer } = await post(`/tools/${tool}/call`, body, headers);
    expectProblem(res, answer, 'AGENT_FORBIDDEN');
    expect(answer.constraint).toBe(constraint);
    expect(answer.detail).toContain(constraint);
  });

  it('a tool in the view runs', async () => {
    const { res, body } = await post('/tools/notes.lookup/call', { agent: 'agent.low', arguments: { key: 'k' } });
    expect(res.status).toBe(200);
    expect(body.result).toEqual({ echoed: { key: 'k' } });
  });

  it('an unknown agent is 404 UNKNOWN_AGENT, and the tool does not run', async () => {
    const { res, body } = await post('/tools/notes.lookup/call', { agent: 'agent.nobody', arguments: { key: 'k' } });
    expectProblem(res, body, 'UNKNOWN_AGENT');
  });
});

describe('GET /summary', () => {
  it('reports the skill no enabled tool serves, with the agent and job affected', async () => {
    const { res, body } = await get('/summary');
    expect(res.status).toBe(200);
    expect(body.unservedSkills).toEqual([{ skill: 'skill.ops.page', id: 'skill.ops.page', missing: ['pager.send'], agents: ['agent.skilled'], jobs: ['page_oncall'] }]);
  });
});

describe('an agent only narrows what the principal may do', () => {
  it.each([
    // ops-bot acts as ops by default: the ops agent's view
    ['ops', '/tools?agent=agent.ops', 200, ['notes.lookup', 'ops.restart']],
    // plain-bot has no persona: the ops agent cannot lend it one
    ['plain', '/tools?agent=agent.ops', 403, undefined],
    ['plain', '/tools?agent=agent.ops&persona=ops', 403, undefined],
    // an unbound agent within the principal's view: ops.restart is ops's, but agent.low does not list it
    ['ops', '/tools?agent=agent.low', 200, ['notes.lookup', 'tool.tasks.source']],
    ['plain', '/tools?agent=agent.low', 200, ['notes.lookup', 'tool.tasks.source']],
  ] as const)('%s asks %s: %d', async (who, path, status, tools) => {
    const { res, body } = await get(path, who);
    expect(res.status).toBe(status);
    if (tools) expect(names(body)).toEqual(tools);
  });

  it('a call naming a persona-bound agent cannot take a persona the principal lacks', async () => {
    const { res, body } = await post('/tools/ops.restart/call', { agent: 'agent.ops', persona: 'ops' }, {}, 'plain');
    expectProblem(res, body, 'FORBIDDEN_PERSONA');
    const own = await post('/tools/ops.restart/call', { agent: 'agent.ops' }, {}, 'ops');
    expect(own.res.status).toBe(200);
    const outside = await post('/tools/ops.restart/call', { agent: 'agent.low' }, {}, 'ops');
    expectProblem(outside.res, outside.body, 'AGENT_FORBIDDEN');
    expect(outside.body.constraint).toBe('toolIds');
  });
});
