/**
 * Who may do what over HTTP: a table of principal x role x persona x route
 * -> expected status, covering every route of the route table (plus /mcp and
 * the RFC 9728 metadata), in-process with `app.fetch`. Callers with and
 * without the persona, an approver, an admin, no credentials, a bad token
 * and an unreachable issuer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/server/route-table.js';
import { call, cleanFolders } from './helpers.js';
import { bearer, identityApi, PRINCIPALS, type IdentityApi, type Who } from './identity-fixture.js';

type RouteName = keyof typeof ROUTES | 'mcp' | 'resourceMetadata';

/** One row: who asks, as which persona (undefined: none named), which route, and the status it must get. */
type Row = [who: Who, persona: string | undefined, route: RouteName, status: number];

let api: IdentityApi;
let seq = 0;

beforeAll(async () => {
  api = await identityApi();
});
afterAll(async () => {
  await api.close();
  cleanFolders();
});

/** A fresh pending approval asked for by intern-bot (distinct arguments, so never deduplicated). */
async function pendingApproval(): Promise<string> {
  const r = await api.runtime.call('notes.append', { line: `row ${++seq}` }, { principal: PRINCIPALS.intern });
  if (r.status !== 'pending_approval') throw new Error('notes.append should need approval');
  return r.approval.id;
}

/** A learned tool entry (canonical) named `id`. */
const learnedEntry = (id: string): string =>
  JSON.stringify({ name: id, description: 'A learned tool.', inputSchema: { type: 'object' }, effects: { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' } });

/** The request a route is exercised with. */
async function request(route: RouteName, persona: string | undefined): Promise<{ path: string; init: RequestInit }> {
  const q = persona === undefined ? '' : `persona=${encodeURIComponent(persona)}`;
  const get = (path: string, query = q) => ({ path: query ? `${path}${path.includes('?') ? '&' : '?'}${query}` : path, init: {} });
  const post = (path: string, body: Record<string, unknown>) => ({
    path,
    init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(persona === undefined ? body : { ...body, persona }) },
  });
  switch (route) {
    case 'listTools': return get('/tools');
    case 'getTool': return get('/tools/ops.reverse');
    case 'search': return get('/search?q=reverse+text');
    case 'skills': return get('/skills');
    case 'agents': return get('/agents');
    case 'jobs': return get('/jobs');
    case 'summary': return get('/summary', '');
    case 'health': return get('/health', '');
    case 'openapi': return get('/openapi.json', '');
    case 'callTool': return post('/tools/text.reverse/call', { arguments: { text: `abc ${++seq}` } });
    case 'taskSnapshot': return get('/tasks/snapshot');
    case 'listApprovals': return get('/approvals', '');
    case 'getApproval': return get(`/approvals/${await pendingApproval()}`, '');
    case 'approve': return post(`/approvals/${await pendingApproval()}/approve`, {});
    case 'deny': return post(`/approvals/${await pendingApproval()}/deny`, {});
    case 'audit': return get('/audit', '');
    case 'metrics': return get('/metrics', '');
    case 'mcp': return { path: '/mcp', init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' } };
    case 'resourceMetadata': return get('/.well-known/oauth-protected-resource', '');
    case 'webhook': return post('/hooks/text.reverse?workflowType=x', {});
    case 'getWorkflow': return get('/workflows/wf-none', '');
    case 'workflowSignals': return get('/workflows/wf-none/signals', '');
    case 'ackSignal': return post('/workflows/wf-none/signals/1/ack', {});
    case 'learnedTools': return get('/tools/learned', '');
    case 'upsertTool': return { path: `/tools/learned.t${++seq}`, init: { method: 'PUT', headers: { 'content-type': 'application/json' }, body: learnedEntry(`learned.t${seq}`) } };
    case 'forgetTool': {
      const id = `learned.t${++seq}`;
      await api.learned.upsert(id, 'toolcap', learnedEntry(id), 'test');
      return { path: `/tools/${id}`, init: { method: 'DELETE' } };
    }
  }
}

const CALLERS: Who[] = ['ops', 'intern'];
const EVERYONE: Who[] = ['ops', 'intern', 'approver', 'admin'];
const NOBODY: Array<[Who, number]> = [['none', 401], ['bad', 401], ['down', 503]];

/** Rows for routes whose answer does not depend on a persona: each principal's status, and 401/503 for the rest. */
const plain = (route: RouteName, statuses: Partial<Record<Who, number>>, anonymous: number | 'auth' = 'auth'): Row[] => [
  ...EVERYONE.map((who): Row => [who, undefined, route, statuses[who] ?? 403]),
  ...NOBODY.map(([who, status]): Row => [who, undefined, route, anonymous === 'auth' ? status : anonymous]),
];

/** A catalog read: allowed to every role; a named persona must be granted (ops), exist (Intern, "intern ", nobody are not). */
const read = (route: RouteName, own: Partial<Record<Who, number>> = {}, asIntern = 200): Row[] => [
  ...plain(route, { ops: 200, intern: 200, approver: 200, admin: 200, ...own }),
  ['ops', 'ops', route, 200],
  ['intern', 'ops', route, 403],
  ['approver', 'ops', route, 403],
  ['admin', 'ops', route, 200],
  ['intern', 'intern', route, asIntern],
  ['intern', 'Intern', route, 404],
  ['intern', 'intern ', route, 404],
  ['ops', 'nobody', route, 404],
  ['admin', 'nobody', route, 404],
];

const TABLE: Row[] = [
  ...read('listTools'),
  // ops.reverse is scoped to ops: others' default view does not have it
  ...read('getTool', { intern: 404, approver: 404 }, 404),
  ...read('search'),
  ...read('skills'),
  ...read('agents'),
  ...read('jobs'),
  // the summary counts every persona's tools: only for a principal granted all
  ...plain('summary', { admin: 200 }),
  ...plain('health', { ops: 200, intern: 200, approver: 200, admin: 200 }, 200),
  ...plain('openapi', { ops: 200, intern: 200, approver: 200, admin: 200 }, 200),
  ...plain('resourceMetadata', { ops: 200, intern: 200, approver: 200, admin: 200 }, 200),
  // text.reverse: intern's calls need approval (a policy rule); an approver may not call
  ...plain('callTool', { ops: 200, intern: 202, admin: 200 }),
  ['ops', 'ops', 'callTool', 200],
  ['intern', 'intern', 'callTool', 202],
  ['intern', 'ops', 'callTool', 403],
  ['intern', 'Intern', 'callTool', 404],
  ['intern', 'intern ', 'callTool', 404],
  ['admin', 'ops', 'callTool', 200],
  ['admin', 'nobody', 'callTool', 404],
  // it runs the task-source tools: callers (and admins) only, within their personas
  ...plain('taskSnapshot', { ops: 200, intern: 200, admin: 200 }),
  ['ops', 'ops', 'taskSnapshot', 200],
  ['intern', 'ops', 'taskSnapshot', 403],
  ['intern', 'Intern', 'taskSnapshot', 404],
  ['admin', 'nobody', 'taskSnapshot', 404],
  ...plain('listApprovals', { ops: 200, intern: 200, approver: 200, admin: 200 }),
  // intern-bot asked for it: ops-bot is told it does not exist
  ...plain('getApproval', { ops: 404, intern: 200, approver: 200, admin: 200 }),
  // callers may not decide (not even their own); an approver and an admin may decide another's
  ...plain('approve', { approver: 200, admin: 200 }),
  ...plain('deny', { approver: 200, admin: 200 }),
  ...plain('audit', { admin: 200 }),
  ...plain('metrics', { admin: 200 }),
  ...plain('mcp', { ops: 200, intern: 200, approver: 200, admin: 200 }),
  // public (the webhook proves itself by its signature): a tool without a webhook is 404 to everyone
  ...plain('webhook', { ops: 404, intern: 404, approver: 404, admin: 404 }, 404),
  // workers' inbox: workflows.work, admin only by role; an unknown workflow is 404
  ...plain('getWorkflow', { admin: 404 }),
  ...plain('workflowSignals', { admin: 404 }),
  ...plain('ackSignal', { admin: 404 }),
  // learned tools: anyone who may list reads them; only tools.write (admins) writes
  ...plain('learnedTools', { ops: 200, intern: 200, approver: 200, admin: 200 }),
  ...plain('upsertTool', { admin: 200 }),
  ...plain('forgetTool', { admin: 200 }),
];

describe('principal x role x persona x route -> status', () => {
  it('covers every route of the route table, with every kind of caller', () => {
    const covered = new Set(TABLE.map(([, , route]) => route));
    for (const route of Object.keys(ROUTES)) expect(covered.has(route as RouteName), route).toBe(true);
    for (const who of [...CALLERS, 'approver', 'admin', 'none', 'bad', 'down']) expect(TABLE.some(([w]) => w === who), who).toBe(true);
    expect(TABLE.length).toBeGreaterThanOrEqual(150);
  });

  it.each(TABLE.map((row) => [`${row[0]} (${PRINCIPALS[row[0] as keyof typeof PRINCIPALS]?.roles.join(',') ?? 'no principal'})`, row[1] ?? '-', row[2], row[3], row] as const))(
    '%s as persona %j: %s -> %i',
    async (_who, _persona, route, status, [who, persona]) => {
      const { path, init } = await request(route, persona);
      const res = await call(api.app, path, { ...init, headers: { ...(init.headers as Record<string, string>), ...bearer(who) } });
      const text = await res.text();
      expect(res.status, text.slice(0, 300)).toBe(status);
      if (status === 401) expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="toolcap"/);
      if (status >= 400 && route !== 'mcp') expect(res.headers.get('content-type')).toBe('application/problem+json');
      if (status === 403 && persona !== undefined && route !== 'summary') expect(JSON.parse(text)).toMatchObject({ code: expect.stringMatching(/^FORBIDDEN/) });
      if (status === 404 && persona !== undefined && persona !== 'intern') expect(JSON.parse(text)).toMatchObject({ code: 'UNKNOWN_PERSONA', allowed: expect.any(Array) });
    },
  );
});
