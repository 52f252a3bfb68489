/**
 * What the red team got through, in-process, each fixed in src/server:
 *
 * - a Host whose "port" is not a number (`toolcap.test:80@evil`) passed an
 *   allowed entry without a port;
 * - an absolute-form request target (`GET http://evil.example/audit`, whose
 *   authority RFC 9112 puts above Host) passed with an allowed Host header;
 * - an approver granted one persona's approvals read every approval, so
 *   another persona's tools and arguments;
 * - a `Prefer: wait` outlived the key it began with: the run's result went
 *   to a key revoked meanwhile;
 * - an MCP session opened by one key answered another key of the same
 *   principal id with the opener's grants (so a narrower key, or the one
 *   left after a revocation, acted with the wider grants).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHttpHandler, type McpHttpHandler } from '../../src/mcp/http.js';
import { issueApiKey } from '../../src/runtime/identity/api-keys.js';
import type { AuthOutcome } from '../../src/runtime/identity/authenticate.js';
import type { Principal } from '../../src/runtime/identity/principal.js';
import { hostAllowed } from '../../src/server/host-guard.js';
import type { KeyStore } from '../../src/store/types.js';
import { BASE, call, cleanFolders } from './helpers.js';
import { HOST, identityApi, type IdentityApi } from './identity-fixture.js';
import { redteamApi, type Holder, type RedteamApi } from './redteam-fixture.js';

let api: RedteamApi;
beforeAll(async () => {
  api = await redteamApi();
});
afterAll(async () => {
  await api.close();
  cleanFolders();
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const as = (holder: Holder) => auth(api.keys[holder].token);
const JSON_TYPE = { 'content-type': 'application/json' };
/** A JSON answer, as the tests read it. */
const jsonOf = async (res: Response): Promise<any> => res.json();

describe('Host: a port must be a port', () => {
  it.each([
    ['toolcap.test:80@evil', ['toolcap.test'], false],
    ['localhost:4317@evil.example', ['localhost'], false],
    ['localhost:4317/x', ['localhost'], false],
    ['localhost:43a17', ['localhost'], false],
    ['localhost: 4317', ['localhost'], false],
    ['localhost:4317', ['localhost'], true],
    ['localhost:', ['localhost'], true],
    ['[::1]:4317@evil', ['[::1]'], false],
  ] as const)('%s against %j: %s', (host, allowed, ok) => {
    expect(hostAllowed(host, allowed)).toBe(ok);
  });

  it('the app answers such a Host 421', async () => {
    const res = await call(api.app, '/audit', { headers: { ...as('admin'), host: `${HOST}:80@evil` } });
    expect({ status: res.status, code: (await jsonOf(res)).code }).toEqual({ status: 421, code: 'MISDIRECTED_REQUEST' });
  });
});

describe('Host: the authority of an absolute-form target is checked too', () => {
  it.each([
    ['http://evil.example/audit', HOST, 421],
    ['http://evil.example:80/audit', HOST, 421],
    ['http://127.0.0.1/audit', HOST, 421],
    [`${BASE}/audit`, 'evil.example', 421],
    [`${BASE}/audit`, HOST, 200],
    [`${BASE}:80/audit`, `${HOST}:80`, 200],
  ])('%s with Host %s -> %i', async (url, host, status) => {
    const res = await api.app.fetch(new Request(url, { headers: { ...as('admin'), host } }));
    expect(res.status).toBe(status);
  });
});

describe("an approver reads only the approvals it could decide (and its own)", () => {
  const ids = { intern: '', ops: '' };
  beforeAll(async () => {
    for (const [holder, tool] of [['intern', 'text.reverse'], ['ops', 'ops.reverse']] as const) {
      const res = await call(api.app, `/tools/${tool}/call`, { method: 'POST', headers: { ...as(holder), ...JSON_TYPE }, body: JSON.stringify({ arguments: { text: 'secret plan' } }) });
      ids[holder] = (await jsonOf(res)).approval.id;
    }
  });

  it.each([
    ['approver', 'intern', 200],
    ['approver', 'ops', 404],
    ['admin', 'ops', 200],
    ['ops', 'ops', 200],
    ['intern', 'ops', 404],
  ] as const)('%s reads the approval of %s: %i', async (who, whose, status) => {
    const res = await call(api.app, `/approvals/${ids[whose]}`, { headers: as(who) });
    expect(res.status).toBe(status);
    if (status === 404) expect(await jsonOf(res)).toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
  });

  it.each([
    ['approver', ['intern'], ['ops']],
    ['admin', ['intern', 'ops'], []],
    ['ops', ['ops'], ['intern']],
  ] as const)("%s's list has %j and not %j", async (who, shown, hidden) => {
    const listed: string[] = (await jsonOf(await call(api.app, '/approvals?limit=1000', { headers: as(who) }))).approvals.map((a: { id: string }) => a.id);
    for (const h of shown) expect(listed).toContain(ids[h]);
    for (const h of hidden) expect(listed).not.toContain(ids[h]);
  });

  it('the limit counts what the approver may see', async () => {
    const res = await call(api.app, '/approvals?limit=1', { headers: as('approver') });
    const { approvals } = await jsonOf(res);
    expect(approvals).toHaveLength(1);
    expect(approvals[0].persona).toBe('intern');
  });
});

describe('Prefer: wait answers only a credential still valid', () => {
  it.each([
    ['revoked while waiting', true, 401],
    ['still valid', false, 200],
  ])('%s', async (_label, revoke, status) => {
    const store = api.store as typeof api.store & KeyStore;
    const { token, record } = await issueApiKey(store, { principal: `waiter-${status}`, roles: ['caller'], personas: ['intern'], defaultPersona: 'intern' }, { params: { N: 1024, r: 8, p: 1, keyLength: 32 } });
    const waiting = call(api.app, '/tools/text.reverse/call', { method: 'POST', headers: { ...auth(token), ...JSON_TYPE, prefer: 'wait=10' }, body: JSON.stringify({ arguments: { text: `wait ${status}` } }) });
    let id: string | undefined;
    for (let i = 0; i < 100 && id === undefined; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const { approvals } = await jsonOf(await call(api.app, '/approvals?status=pending', { headers: as('admin') }));
      id = approvals.find((a: { requestedByPrincipal?: string }) => a.requestedByPrincipal === record.principal)?.id;
    }
    if (revoke) await store.revokeKey(record.id, new Date().toISOString());
    expect((await call(api.app, `/approvals/${id}/approve`, { method: 'POST', headers: { ...as('approver'), ...JSON_TYPE }, body: '{}' })).status).toBe(200);
    const res = await waiting;
    const body = await jsonOf(res);
    expect(res.status).toBe(status);
    if (revoke) {
      expect(body).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REVOKED' });
      expect(JSON.stringify(body)).not.toContain('tiaw');
    } else expect(body.result).toEqual({ reversed: [...`wait ${status}`].reverse().join('') });
  });
});

describe('an MCP session acts only for a principal granted what its opener was', () => {
  const TWINS: Record<string, Principal> = {
    wide: { id: 'twin', roles: ['caller'], personas: ['ops'], defaultPersona: 'ops', via: 'api-key' },
    narrow: { id: 'twin', roles: ['caller'], personas: ['intern'], defaultPersona: 'intern', via: 'api-key' },
    again: { id: 'twin', roles: ['caller'], personas: ['ops'], defaultPersona: 'ops', via: 'api-key' },
    other: { id: 'someone', roles: ['caller'], personas: ['ops'], defaultPersona: 'ops', via: 'api-key' },
  };
  let twins: IdentityApi;
  let handler: McpHttpHandler;
  beforeAll(async () => {
    const authenticate = async (request: Request): Promise<AuthOutcome> => {
      const principal = TWINS[request.headers.get('authorization')?.replace(/^Bearer tok-/, '') ?? ''];
      return principal ? { ok: true, principal } : { ok: false, code: 'INVALID_TOKEN', message: 'Unknown token.' };
    };
    twins = await identityApi({}, { auth: { authenticate }, mcp: (request, context) => handler(request, context) });
    handler = mcpHttpHandler({ registry: twins.registry, runtime: twins.runtime });
  });
  afterAll(async () => {
    await handler.close();
    await twins.close();
  });

  const rpc = (who: string, message: unknown, sessionId?: string, method = 'POST') =>
    call(twins.app, '/mcp', {
      method,
      headers: { authorization: `Bearer tok-${who}`, ...JSON_TYPE, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
      ...(method === 'POST' ? { body: JSON.stringify(message) } : {}),
    });
  const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
  const CALL = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ops.reverse', arguments: { text: 'abc' } } };

  async function open(): Promise<string> {
    const init = await rpc('wide', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rt', version: '1' } } });
    const id = init.headers.get('mcp-session-id');
    if (init.status !== 200 || !id) throw new Error(`initialize: ${init.status} ${await init.text()}`);
    await rpc('wide', { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
    return id;
  }

  it.each([
    ['narrow', LIST, 404],
    ['narrow', CALL, 404],
    ['other', LIST, 404],
    ['again', LIST, 200],
    ['wide', CALL, 200],
  ] as const)('a session opened with ops grants, asked by %s: %j -> %i', async (who, message, status) => {
    const id = await open();
    for (const header of ['mcp-session-id', 'Mcp-Session-Id']) {
      const res = await call(twins.app, '/mcp', {
        method: 'POST',
        headers: { authorization: `Bearer tok-${who}`, ...JSON_TYPE, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', [header]: id },
        body: JSON.stringify(message),
      });
      const text = await res.text();
      expect(res.status, text.slice(0, 200)).toBe(status);
      if (status === 404) expect(JSON.parse(text)).toMatchObject({ error: { code: -32001 } });
      else expect(text).toContain(message === LIST ? 'ops.reverse' : 'cba');
    }
  });

  it('a narrower key cannot close the session; its opener still uses it, then closes it', async () => {
    const id = await open();
    expect((await rpc('narrow', undefined, id, 'DELETE')).status).toBe(404);
    expect((await rpc('wide', LIST, id)).status).toBe(200);
    expect((await rpc('wide', undefined, id, 'DELETE')).status).toBe(200);
    expect((await rpc('wide', LIST, id)).status).toBe(404);
  });
});
