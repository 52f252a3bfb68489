/**
 * Every HTTP bypass of issue 11's "Why", as a regression test: each one
 * must fail closed now that the API knows who is asking.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, cleanFolders, getJson } from './helpers.js';
import { bearer, HOST, identityApi, ORIGIN, type IdentityApi, type Who } from './identity-fixture.js';

let api: IdentityApi;
beforeAll(async () => {
  api = await identityApi();
});
afterAll(async () => {
  await api.close();
  cleanFolders();
});

const get = (who: Who, path: string, headers: Record<string, string> = {}) => getJson(api.app, path, { headers: { ...bearer(who), ...headers } });
const post = (who: Who, path: string, body: unknown, headers: Record<string, string> = {}) =>
  getJson(api.app, path, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(who), ...headers }, body: JSON.stringify(body) });

describe('an agent cannot approve its own call', () => {
  it('a caller\'s approve with body by: "security-officer" is 403, and nothing runs', async () => {
    const asked = await post('intern', '/tools/notes.append/call', { arguments: { line: 'self 1' } });
    expect(asked.res.status).toBe(202);
    const id = asked.body.approval.id;
    const self = await post('intern', `/approvals/${id}/approve`, { by: 'security-officer' });
    expect({ status: self.res.status, code: self.body.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect((await get('intern', `/approvals/${id}`)).body.status).toBe('pending');
  });

  it('an admin cannot approve the call it asked for itself (four eyes): 403 SELF_APPROVAL', async () => {
    const asked = await post('admin', '/tools/notes.append/call', { arguments: { line: 'self 2' } });
    expect(asked.res.status).toBe(202);
    const self = await post('admin', `/approvals/${asked.body.approval.id}/approve`, {});
    expect({ status: self.res.status, code: self.body.code }).toEqual({ status: 403, code: 'SELF_APPROVAL' });
    // withdrawing one's own request is not approving it
    const withdrawn = await post('admin', `/approvals/${asked.body.approval.id}/deny`, {});
    expect(withdrawn.body.approval).toMatchObject({ status: 'denied', decidedByPrincipal: 'root' });
  });

  it('another principal approves; the audit and the approval name it, never the body\'s by', async () => {
    const asked = await post('intern', '/tools/notes.append/call', { arguments: { line: 'self 3' } });
    const id = asked.body.approval.id;
    const approved = await post('approver', `/approvals/${id}/approve`, { by: 'security-officer', note: 'ok' });
    expect(approved.res.status).toBe(200);
    expect(approved.body.approval).toMatchObject({ status: 'executed', requestedByPrincipal: 'intern-bot', decidedByPrincipal: 'reviewer', decidedVia: 'http' });
    // the agent reads its result
    const mine = await get('intern', `/approvals/${id}`);
    expect(mine.body.outcome).toMatchObject({ status: 'ok' });
    const audit = await get('admin', '/audit?tool=notes.append&limit=1000');
    const actors = audit.body.audit.map((r: { actor: string }) => r.actor);
    expect(actors).not.toContain('security-officer');
    expect(audit.body.audit.filter((r: { kind: string; callId?: string }) => r.kind === 'approval.approved').map((r: { actor: string }) => r.actor)).toContain('reviewer');
  });

  it('the body\'s caller and X-Toolcap-Caller do not name the requester', async () => {
    const asked = await post('intern', '/tools/notes.append/call', { arguments: { line: 'self 4' }, caller: 'ceo' }, { 'x-toolcap-caller': 'ceo' });
    expect(asked.body.approval.requestedByPrincipal).toBe('intern-bot');
    expect(asked.body.approval.requestedBy).not.toBe('ceo');
  });

  it('an identical pending request returns the same approval, not a new one', async () => {
    const a = await post('intern', '/tools/notes.append/call', { arguments: { line: 'same' } });
    const b = await post('intern', '/tools/notes.append/call', { arguments: { line: 'same' } });
    expect(b.body.approval.id).toBe(a.body.approval.id);
  });
});

describe('the audit log, the approvals and the metrics are not for everyone', () => {
  it.each(['/audit', '/approvals', '/metrics'])('%s without credentials is 401 with WWW-Authenticate', async (path) => {
    const { res, body } = await get('none', path);
    expect({ status: res.status, code: body.code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="toolcap", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource"`);
  });

  it.each(['/audit', '/metrics'])('%s for a caller or an approver is 403', async (path) => {
    for (const who of ['ops', 'intern', 'approver'] as const) expect((await get(who, path)).res.status, who).toBe(403);
  });

  it('a caller lists only the approvals it asked for; an approver sees every one', async () => {
    await post('intern', '/tools/notes.append/call', { arguments: { line: 'listed' } });
    const intern = (await get('intern', '/approvals')).body.approvals;
    expect(intern.length).toBeGreaterThan(0);
    expect(new Set(intern.map((a: { requestedByPrincipal: string }) => a.requestedByPrincipal))).toEqual(new Set(['intern-bot']));
    expect((await get('ops', '/approvals')).body.approvals).toEqual([]);
    const all = (await get('approver', '/approvals')).body.approvals;
    expect(new Set(all.map((a: { requestedByPrincipal: string }) => a.requestedByPrincipal))).toEqual(new Set(['intern-bot', 'root']));
  });
});

describe('the persona is bound to the principal, matched exactly', () => {
  it.each([
    ['no persona', {}, {}, 202],
    ['"intern"', { persona: 'intern' }, {}, 202],
    ['"Intern"', { persona: 'Intern' }, {}, 404],
    ['"intern "', { persona: 'intern ' }, {}, 404],
    ['x-toolcap-persona "Intern"', {}, { 'x-toolcap-persona': 'Intern' }, 404],
  ])('the policy rule for intern holds with %s', async (_what, body, headers, status) => {
    const { res, body: answer } = await post('intern', '/tools/text.reverse/call', { arguments: { text: `rule ${_what}` }, ...body }, headers);
    expect(res.status).toBe(status);
    if (status === 404) expect(answer).toMatchObject({ code: 'UNKNOWN_PERSONA', allowed: ['intern'] });
  });

  it('claiming the persona whose version needs no approval is 403 FORBIDDEN_PERSONA, naming the allowed ones', async () => {
    const { res, body } = await post('intern', '/tools/notes.append/call', { arguments: { line: 'sneak' }, persona: 'ops' });
    expect(res.status).toBe(403);
    expect(body).toMatchObject({ code: 'FORBIDDEN_PERSONA', allowed: ['intern'] });
    // the one granted it runs it
    expect((await post('ops', '/tools/notes.append/call', { arguments: { line: 'ops note' } })).res.status).toBe(200);
  });

  it.each(['/tools?persona=nobody', '/tools/text.reverse?persona=nobody', '/search?q=reverse&persona=nobody', '/jobs?persona=nobody'])(
    'an unknown persona does not silently get the shared tools: %s is 404',
    async (path) => {
      const { res, body } = await get('ops', path);
      expect(res.status).toBe(404);
      expect(body).toMatchObject({ code: 'UNKNOWN_PERSONA', allowed: ['ops'] });
    },
  );

  it('calling as an unknown persona is 404 UNKNOWN_PERSONA', async () => {
    const { res, body } = await post('ops', '/tools/text.reverse/call', { arguments: { text: 'x' }, persona: 'nobody' });
    expect({ status: res.status, code: body.code }).toEqual({ status: 404, code: 'UNKNOWN_PERSONA' });
  });
});

describe('persona-scoped tools are never listed to a principal without the persona', () => {
  const names = (body: { tools: Array<{ name: string; personas: string[] }> }) => body.tools.map((t) => `${t.name}${t.personas.length ? `@${t.personas.join(',')}` : ''}`);

  it('GET /tools without a persona: ops-bot sees its tools, intern-bot and the approver do not (the same URL, never the same cached body)', async () => {
    const ops = names((await get('ops', '/tools')).body);
    expect(ops).toContain('ops.reverse@ops');
    for (const who of ['intern', 'approver'] as const) {
      const seen = names((await get(who, '/tools')).body);
      expect(seen.filter((n) => n.includes('@')), who).toEqual([]);
      expect(seen).toContain('text.reverse');
    }
  });

  it('/search and /tools/{name} do not show them either', async () => {
    const found = (await get('intern', '/search?q=reverse+text+ops')).body.candidates.map((c: { name: string }) => c.name);
    expect(found).not.toContain('ops.reverse');
    expect((await get('intern', '/tools/ops.reverse')).res.status).toBe(404);
    // the shared notes.append, not the ops version
    expect((await get('intern', '/tools/notes.append')).body.personas).toEqual([]);
  });
});

describe('DNS rebinding: Host and Origin are checked on every route', () => {
  it.each(['/mcp', '/tools', '/health', '/nowhere'])('%s with Host: evil.example is 421, even with a good token', async (path) => {
    const { res, body } = await get('admin', path, { host: 'evil.example' });
    expect({ status: res.status, code: body.code }).toEqual({ status: 421, code: 'MISDIRECTED_REQUEST' });
  });

  it.each(['/mcp', '/tools', '/health'])('%s with Origin: http://evil.example is 403 FORBIDDEN_ORIGIN', async (path) => {
    const { res, body } = await get('admin', path, { origin: 'http://evil.example' });
    expect({ status: res.status, code: body.code }).toEqual({ status: 403, code: 'FORBIDDEN_ORIGIN' });
  });

  it('POST /mcp from a page on evil.example is refused before the handler runs', async () => {
    const res = await call(api.app, '/mcp', { method: 'POST', headers: { ...bearer('admin'), origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(403);
  });

  it('the allowed Host and Origin pass, and /mcp is told the principal', async () => {
    const { res, body } = await getJson(api.app, '/mcp', { method: 'POST', headers: { ...bearer('ops'), host: HOST, origin: ORIGIN }, body: '{}' });
    expect(res.status).toBe(200);
    expect(body).toEqual({ principal: 'ops-bot' });
  });
});
