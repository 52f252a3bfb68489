/**
 * The HTTP side of identity beyond the table: `Prefer: wait`, the rate
 * limit's 429, the 401 challenge and RFC 9728 metadata, /health detail, the
 * security the OpenAPI document declares, and the Host/Origin and Prefer
 * parsers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../../src/registry/registry.js';
import { createApi } from '../../src/server/app.js';
import { challenge } from '../../src/server/auth.js';
import { hostAllowed } from '../../src/server/host-guard.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { ROUTE_LIST } from '../../src/server/route-table.js';
import { preferWait } from '../../src/server/routes/calls.js';
import { call, cleanFolders, getJson, until } from './helpers.js';
import { authenticate, bearer, identityApi, ORIGIN, type IdentityApi, type Who } from './identity-fixture.js';

let api: IdentityApi;
beforeAll(async () => {
  api = await identityApi();
});
afterAll(async () => {
  await api.close();
  cleanFolders();
});

const post = (app: IdentityApi, who: Who, path: string, body: unknown, headers: Record<string, string> = {}) =>
  getJson(app.app, path, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(who), ...headers }, body: JSON.stringify(body) });

describe('Prefer: wait=N on a call that needs approval', () => {
  it('answers 200 with the result once another principal approves and it runs', async () => {
    const waiting = post(api, 'intern', '/tools/notes.append/call', { arguments: { line: 'waited' } }, { prefer: 'wait=20' });
    const pending = await until(async () => (await api.runtime.listApprovals({ status: 'pending', requestedBy: 'intern-bot' })).find((a) => (a.arguments as { line: string }).line === 'waited'));
    const decided = await post(api, 'approver', `/approvals/${pending.id}/approve`, {});
    expect(decided.res.status).toBe(200);
    const { res, body } = await waiting;
    expect(res.status).toBe(200);
    expect(res.headers.get('preference-applied')).toBe('wait=20');
    expect(body).toMatchObject({ status: 'ok', tool: 'notes.append', approval: { id: pending.id, status: 'executed' } });
  });

  it('answers 409 APPROVAL_CONFLICT when the approval is denied while it waits', async () => {
    const waiting = post(api, 'intern', '/tools/notes.append/call', { arguments: { line: 'denied' } }, { prefer: 'wait=20' });
    const pending = await until(async () => (await api.runtime.listApprovals({ status: 'pending', requestedBy: 'intern-bot' })).find((a) => (a.arguments as { line: string }).line === 'denied'));
    await post(api, 'approver', `/approvals/${pending.id}/deny`, {});
    const { res, body } = await waiting;
    expect({ status: res.status, code: body.code }).toEqual({ status: 409, code: 'APPROVAL_CONFLICT' });
    expect(body.approval.status).toBe('denied');
  });

  it('answers 202 as before when nobody decides in time, saying the preference was applied', async () => {
    const { res, body } = await post(api, 'intern', '/tools/notes.append/call', { arguments: { line: 'undecided' } }, { prefer: 'wait=1' });
    expect(res.status).toBe(202);
    expect(res.headers.get('preference-applied')).toBe('wait=1');
    expect(body.status).toBe('pending_approval');
  });

  it.each([
    ['wait=10', 10],
    ['respond-async, wait=5', 5],
    ['wait="7"', 7],
    ['wait=600', 60],
    ['wait=abc', undefined],
    ['handling=lenient', undefined],
    [undefined, undefined],
  ])('preferWait(%j) is %j', (header, seconds) => {
    expect(preferWait(header)).toBe(seconds);
  });
});

describe('the rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a principal is over its calls', async () => {
    const limited = await identityApi({ rateLimit: { points: 2, durationSec: 60 } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await post(limited, 'ops', '/tools/text.reverse/call', { arguments: { text: `r${i}` } })).res);
      expect(statuses.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(Number(statuses[2]?.headers.get('retry-after'))).toBeGreaterThan(0);
      // another principal has its own budget
      expect((await post(limited, 'admin', '/tools/text.reverse/call', { arguments: { text: 'r' } })).res.status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('401, 503 and the protected resource metadata', () => {
  it('a bad token is 401 with error="invalid_token"; an unreachable issuer is 503 AUTH_UNAVAILABLE', async () => {
    const bad = await getJson(api.app, '/tools', { headers: bearer('bad') });
    expect(bad.res.status).toBe(401);
    expect(bad.res.headers.get('www-authenticate')).toBe(`Bearer realm="toolcap", error="invalid_token", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource"`);
    const down = await getJson(api.app, '/tools', { headers: bearer('down') });
    expect({ status: down.res.status, code: down.body.code }).toEqual({ status: 503, code: 'AUTH_UNAVAILABLE' });
  });

  it('GET /.well-known/oauth-protected-resource is RFC 9728 metadata, without credentials', async () => {
    const { res, body } = await getJson(api.app, '/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    expect(body).toEqual({ resource: `${ORIGIN}/`, authorization_servers: ['https://issuer.example'], bearer_methods_supported: ['header'] });
  });

  it('without resource metadata it is 404, and the challenge names none', async () => {
    const plain = await identityApi({}, { auth: { authenticate } });
    try {
      expect((await call(plain.app, '/.well-known/oauth-protected-resource')).status).toBe(404);
      expect((await call(plain.app, '/tools')).headers.get('www-authenticate')).toBe('Bearer realm="toolcap"');
    } finally {
      await plain.close();
    }
  });
});

describe('/health', () => {
  it('is public with a minimal body; detail only for a principal allowed health.detail', async () => {
    const anonymous = await getJson(api.app, '/health');
    expect(anonymous.res.status).toBe(200);
    expect(Object.keys(anonymous.body).sort()).toEqual(['status', 'version']);
    expect(Object.keys((await getJson(api.app, '/health', { headers: bearer('ops') })).body).sort()).toEqual(['status', 'version']);
    expect((await getJson(api.app, '/health', { headers: bearer('admin') })).body).toHaveProperty('watching');
  });
});

describe('/openapi.json declares the security', () => {
  const doc = openApiDocument('0') as any;

  it('two bearer schemes: API keys and OIDC access tokens (both sent as Authorization: Bearer)', () => {
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.oidc).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it.each(ROUTE_LIST.map((r) => [r.method, r.path, r] as const))('%s %s names its action, the roles allowed it, and 401/403 unless public', (method, path, route) => {
    const op = doc.paths[path][method.toLowerCase()];
    expect(op['x-required-action']).toBe(route.action);
    if (route.action === 'public') {
      expect(op.security).toEqual([]);
    } else {
      expect(op.security).toEqual([{ apiKey: expect.arrayContaining(['admin']) }, { oidc: expect.arrayContaining(['admin']) }]);
      expect(op.responses['401'].description).toContain('UNAUTHENTICATED');
      expect(op.responses['403'].description).toContain('FORBIDDEN');
    }
  });

  it('a caller\'s operations name caller; the audit names only admin', () => {
    expect(doc.paths['/tools/{name}/call'].post.security).toEqual([{ apiKey: ['caller', 'admin'] }, { oidc: ['caller', 'admin'] }]);
    expect(doc.paths['/audit'].get.security).toEqual([{ apiKey: ['admin'] }, { oidc: ['admin'] }]);
  });
});

describe('hostAllowed', () => {
  it.each([
    ['localhost:4317', ['localhost:4317'], true],
    ['LOCALHOST:4317', ['localhost:4317'], true],
    ['localhost:4318', ['localhost:4317'], false],
    ['localhost:9999', ['localhost'], true],
    ['localhost', ['localhost:4317'], false],
    ['[::1]:4317', ['[::1]:4317'], true],
    ['[::1]:4317', ['[::1]'], true],
    ['evil.example', ['127.0.0.1', 'localhost', '[::1]'], false],
    ['localhost.evil.example', ['localhost'], false],
  ] as const)('%s against %j is %s', (host, allowed, ok) => {
    expect(hostAllowed(host, allowed)).toBe(ok);
  });

  it('an API without allowedHosts or auth answers any Host, as before', async () => {
    const registry = new Registry({ paths: ['examples/manifests'] });
    await registry.start();
    try {
      const app = createApi(registry);
      expect((await call(app, '/tools', { headers: { host: 'evil.example', origin: 'http://evil.example' } })).status).toBe(200);
    } finally {
      await registry.close();
    }
  });
});

describe('the 401 challenge with an audience that is not a URL', () => {
  it.each([
    ['toolcap', 'http://toolcap.test'],
    ['api://toolcap', 'http://toolcap.test'],
    ['https://resource.example/api', 'https://resource.example'],
  ])('audience %s: resource_metadata at %s, never a 500', (resource, origin) => {
    const auth = { authenticate: async () => ({ ok: false as const, code: 'UNAUTHENTICATED' as const, message: 'no credentials' }), resourceMetadata: { resource, authorizationServers: ['https://issuer.example'] } };
    expect(challenge(auth, 'UNAUTHENTICATED', 'http://toolcap.test/tools?x=1')).toBe(`Bearer realm="toolcap", resource_metadata="${origin}/.well-known/oauth-protected-resource"`);
  });
});
