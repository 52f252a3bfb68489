/**
 * The red-team table: what an attacker on 127.0.0.1 tried against
 * authentication and authorization and what held, kept as rows so it stays
 * held. In-process with `app.fetch`, real API keys (redteam-fixture.ts):
 * path tricks to admin routes, every other method on every route, header
 * tricks around the bearer key, Host and Origin, persona tricks in query,
 * header and body, approvals of others and outside one's grants, and /mcp
 * without a key. What got through is in identity-redteam-holes.test.ts and
 * identity-redteam-socket.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedMethods, ROUTE_LIST } from '../../src/server/route-table.js';
import { call, cleanFolders } from './helpers.js';
import { ORIGIN } from './identity-fixture.js';
import { redteamApi, type Holder, type RedteamApi } from './redteam-fixture.js';

let api: RedteamApi;
/** Pending approvals: one intern-bot asked for (persona intern), one ops-bot asked for (persona ops). */
const pending = { intern: '', ops: '' };

beforeAll(async () => {
  api = await redteamApi();
  const asked = async (holder: 'intern' | 'ops', tool: string) => {
    const res = await call(api.app, `/tools/${tool}/call`, { method: 'POST', headers: { ...auth(holder), 'content-type': 'application/json' }, body: JSON.stringify({ arguments: { text: `asked by ${holder}` } }) });
    const body = (await res.json()) as { approval: { id: string } };
    if (res.status !== 202) throw new Error(`${tool} for ${holder} should need approval: ${JSON.stringify(body)}`);
    return body.approval.id as string;
  };
  pending.intern = await asked('intern', 'text.reverse');
  pending.ops = await asked('ops', 'ops.reverse');
});
afterAll(async () => {
  await api.close();
  cleanFolders();
});

type Who = Holder | 'none';
const auth = (who: Who): Record<string, string> => (who === 'none' ? {} : { authorization: `Bearer ${api.keys[who].token}` });

/** One attempt: who sends what, and the status (and code) it must get. Paths may name `{intern}`/`{ops}`: the pending approvals. */
interface Attempt {
  who: Who;
  method?: string;
  path: string;
  headers?: Record<string, string> | ((keys: RedteamApi['keys']) => Record<string, string> | Array<[string, string]>);
  body?: unknown;
  status: number;
  code?: string;
  /** Text the answer must not contain (a tool, a persona's data). */
  hides?: string;
}
type Row = [label: string, attempt: Attempt];

const ADMIN_PATHS = ['/audit', '/metrics'];
/** Spellings of an admin path and whether the router takes them as that path (then 401/403) or as no path (404). */
const SPELLINGS: Array<[(p: string) => string, 'route' | 'none']> = [
  [(p) => `/${p}`, 'none'],
  [(p) => `${p}/`, 'route'],
  [(p) => p.toUpperCase(), 'none'],
  [(p) => `/tools/..${p}`, 'route'],
  [(p) => `/tools/%2e%2e${p}`, 'route'],
  [(p) => `/health/..${p}`, 'route'],
  [(p) => `/.well-known/..${p}`, 'route'],
  [(p) => `/%${p.charCodeAt(1).toString(16)}${p.slice(2)}`, 'route'],
  [(p) => `${p};x`, 'none'],
  [(p) => `${p}?`, 'route'],
  [(p) => `${p}%2f`, 'none'],
  [(p) => `${p}%00`, 'none'],
  [(p) => `${p}%20`, 'none'],
  [(p) => `/.${p}`, 'route'],
  [(p) => `${p}/.`, 'route'],
];
const pathRows: Row[] = ADMIN_PATHS.flatMap((p) =>
  SPELLINGS.flatMap(([spell, kind]): Row[] => [
    [`none ${spell(p)}`, { who: 'none', path: spell(p), status: kind === 'route' ? 401 : 404 }],
    [`caller ${spell(p)}`, { who: 'intern', path: spell(p), status: kind === 'route' ? 403 : 404 }],
    [`approver ${spell(p)}`, { who: 'approver', path: spell(p), status: kind === 'route' ? 403 : 404 }],
  ]),
);

/** HEAD is GET without the body: [no key, a caller's key] per GET route (text.reverse is shared; /search needs q; apr_x is nobody's). */
const HEAD_STATUS: Record<string, [number, number]> = {
  '/tools': [401, 200], '/tools/{name}': [401, 200], '/search': [401, 400], '/skills': [401, 200], '/agents': [401, 200], '/jobs': [401, 200],
  '/summary': [401, 403], '/health': [200, 200], '/openapi.json': [200, 200], '/approvals': [401, 200], '/approvals/{id}': [401, 404],
  '/audit': [401, 403], '/metrics': [401, 403], '/tasks/snapshot': [401, 200], '/tools/learned': [401, 200],
  '/workflows/{id}': [401, 403], '/workflows/{id}/signals': [401, 403],
};
const concrete = (path: string) => path.replace('{name}', 'text.reverse').replace('{id}', 'apr_x');
const OTHER_METHODS = ['OPTIONS', 'PUT', 'DELETE', 'PATCH', 'PROPFIND', 'FOO'];
// routes sharing a path (GET, PUT and DELETE /tools/{name}) share its rows: one per label
const methodRows: Row[] = ROUTE_LIST.filter((route, i) => ROUTE_LIST.findIndex((r) => r.path === route.path) === i).flatMap((route): Row[] => [
  // methods the table has on the same path (PUT and DELETE /tools/{name}) are not other methods there
  ...OTHER_METHODS.filter((m) => !(allowedMethods(concrete(route.path)) ?? '').split(', ').includes(m)).flatMap((method): Row[] =>
    (['none', 'intern'] as const).map((who): Row => [`${who} ${method} ${route.path}`, { who, method, path: concrete(route.path), status: 405, code: 'METHOD_NOT_ALLOWED' }]),
  ),
  ...(route.method === 'GET'
    ? (['none', 'intern'] as const).map((who): Row => [`${who} HEAD ${route.path}`, { who, method: 'HEAD', path: concrete(route.path), status: HEAD_STATUS[route.path]![who === 'none' ? 0 : 1] }])
    : []),
]);

const mcpRows: Row[] = ['GET', 'POST', 'DELETE', 'OPTIONS', 'PUT'].flatMap((method): Row[] => [
  [`no key ${method} /mcp`, { who: 'none', method, path: '/mcp', status: 401, code: 'UNAUTHENTICATED' }],
  [`revoked key ${method} /mcp`, { who: 'revoked', method, path: '/mcp', status: 401, code: 'UNAUTHENTICATED' }],
  [`no key ${method} /mcp/`, { who: 'none', method, path: '/mcp/', status: 401 }],
]);

const admin = (k: RedteamApi['keys']) => k.admin.token;
const headerRows: Row[] = [
  ['lower-case scheme is the same key (RFC 7235)', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `bearer ${admin(k)}` }), status: 200 }],
  ['BEARER scheme', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `BEARER ${admin(k)}` }), status: 200 }],
  ['two spaces after Bearer', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `Bearer  ${admin(k)}` }), status: 200 }],
  ['trailing whitespace', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `Bearer ${admin(k)}   ` }), status: 200 }],
  ['a tab for the space', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `Bearer\t${admin(k)}` }), status: 401 }],
  ['two Authorization headers, caller then admin', { who: 'none', path: '/audit', headers: (k) => [['authorization', `Bearer ${k.intern.token}`], ['authorization', `Bearer ${admin(k)}`]], status: 401 }],
  ['two Authorization headers, admin then caller', { who: 'none', path: '/audit', headers: (k) => [['authorization', `Bearer ${admin(k)}`], ['authorization', `Bearer ${k.intern.token}`]], status: 401 }],
  ['two Authorization headers, the same admin key', { who: 'none', path: '/audit', headers: (k) => [['authorization', `Bearer ${admin(k)}`], ['authorization', `Bearer ${admin(k)}`]], status: 401 }],
  ['two credentials in one header', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `Bearer ${admin(k)}, Bearer ${k.intern.token}` }), status: 401 }],
  ['the admin key id with the caller secret', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `Bearer ${k.intern.token.replace(k.intern.id, k.admin.id)}` }), status: 401 }],
  ['a character appended to the key', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `Bearer ${admin(k)}x` }), status: 401 }],
  ['the key one character short', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `Bearer ${admin(k).slice(0, -1)}` }), status: 401 }],
  ['a revoked admin key', { who: 'revoked', path: '/audit', status: 401 }],
  ['Basic with the key as password', { who: 'none', path: '/audit', headers: (k) => ({ authorization: `Basic ${Buffer.from(`root:${admin(k)}`).toString('base64')}` }), status: 401 }],
  ['the key as X-Api-Key', { who: 'none', path: '/audit', headers: (k) => ({ 'x-api-key': admin(k) }), status: 401 }],
  ['the key as Proxy-Authorization', { who: 'none', path: '/audit', headers: (k) => ({ 'proxy-authorization': `Bearer ${admin(k)}` }), status: 401 }],
  ['the key as a cookie', { who: 'none', path: '/audit', headers: (k) => ({ cookie: `token=${admin(k)}` }), status: 401 }],
  ['X-Toolcap-Caller naming root', { who: 'intern', path: '/audit', headers: { 'x-toolcap-caller': 'root' }, status: 403 }],
  ['Host of another name', { who: 'admin', path: '/audit', headers: { host: 'evil.example' }, status: 421, code: 'MISDIRECTED_REQUEST' }],
  ['Host with the allowed name as a prefix', { who: 'admin', path: '/audit', headers: { host: 'toolcap.test.evil.example' }, status: 421 }],
  ['Host with a trailing dot', { who: 'admin', path: '/audit', headers: { host: 'toolcap.test.' }, status: 421 }],
  ['X-Forwarded-Host to pass the Host check', { who: 'admin', path: '/audit', headers: { host: 'evil.example', 'x-forwarded-host': 'toolcap.test' }, status: 421 }],
  ['Forwarded host= to pass the Host check', { who: 'admin', path: '/audit', headers: { host: 'evil.example', forwarded: 'host=toolcap.test' }, status: 421 }],
  ['Origin of another site', { who: 'admin', path: '/audit', headers: { origin: 'http://evil.example' }, status: 403, code: 'FORBIDDEN_ORIGIN' }],
  ['Origin null', { who: 'admin', path: '/audit', headers: { origin: 'null' }, status: 403 }],
  ['Origin with the allowed name as a prefix', { who: 'admin', path: '/audit', headers: { origin: `${ORIGIN}.evil.example` }, status: 403 }],
  ['Origin allowed, with a trailing slash', { who: 'admin', path: '/audit', headers: { origin: `${ORIGIN}/` }, status: 200 }],
];
headerRows.push(['?access_token=', { who: 'none', path: '/audit?access_token=KEY', status: 401 }]);

const json = { 'content-type': 'application/json' };
const callOps = (body: unknown, headers: Record<string, string> = {}): Attempt => ({ who: 'intern', method: 'POST', path: '/tools/ops.reverse/call', headers: { ...json, ...headers }, body, status: 0 });
const personaRows: Row[] = [
  ['persona twice, the second not granted', { who: 'intern', path: '/tools?persona=intern&persona=ops', status: 403, code: 'FORBIDDEN_PERSONA' }],
  ['persona twice on a one-persona read', { who: 'intern', path: '/skills?persona=intern&persona=ops', status: 400, code: 'BAD_PARAMETER' }],
  ['persona[]=', { who: 'intern', path: '/tools?persona[]=ops', status: 400, code: 'BAD_PARAMETER' }],
  ['Persona= (another case)', { who: 'intern', path: '/tools?Persona=ops', status: 400, code: 'BAD_PARAMETER' }],
  ['pers%6Fna= (an encoded name)', { who: 'intern', path: '/tools?pers%6Fna=ops', status: 403, code: 'FORBIDDEN_PERSONA' }],
  ['persona=* (the grant wildcard)', { who: 'intern', path: '/tools?persona=*', status: 404, code: 'UNKNOWN_PERSONA' }],
  ['persona=%00none (the no-persona view)', { who: 'intern', path: '/tools?persona=%00none', status: 404, code: 'UNKNOWN_PERSONA' }],
  ['persona=-shared alone keeps the default persona', { who: 'intern', path: '/tools?persona=-shared', status: 200, hides: 'ops.reverse' }],
  ['persona=Ops', { who: 'ops', path: '/tools?persona=Ops', status: 404, code: 'UNKNOWN_PERSONA' }],
  ['persona=ops%20', { who: 'ops', path: '/tools?persona=ops%20', status: 404 }],
  ['persona=ops%00', { who: 'ops', path: '/tools?persona=ops%00', status: 404 }],
  ['persona=ops,intern', { who: 'ops', path: '/tools?persona=ops,intern', status: 404 }],
  ['a Cyrillic О in ops', { who: 'intern', path: `/tools?persona=${encodeURIComponent('\u041eps')}`, status: 404, code: 'UNKNOWN_PERSONA' }],
  ['a Cyrillic о in ops', { who: 'intern', path: `/tools?persona=${encodeURIComponent('\u043eps')}`, status: 404, code: 'UNKNOWN_PERSONA' }],
  ['café in NFC, as granted', { who: 'cafe', path: `/tools?persona=${encodeURIComponent('café'.normalize('NFC'))}`, status: 200 }],
  ['café in NFD', { who: 'cafe', path: `/tools?persona=${encodeURIComponent('café'.normalize('NFD'))}`, status: 404, code: 'UNKNOWN_PERSONA' }],
  ['café in NFD as the call persona', { ...callOps({ arguments: { text: 'x' }, persona: 'café'.normalize('NFD') }), who: 'cafe', status: 404, code: 'UNKNOWN_PERSONA' }],
  ['X-Toolcap-Persona on a read is not a persona', { who: 'intern', path: '/tools', headers: { 'x-toolcap-persona': 'ops' }, status: 200, hides: 'ops.reverse' }],
  ['a persona-scoped tool by name', { who: 'intern', path: '/tools/ops.reverse', status: 404, code: 'TOOL_NOT_FOUND' }],
  ['search as another persona', { who: 'intern', path: '/search?q=reverse&persona=ops', status: 403 }],
  ['search with -shared only', { who: 'intern', path: '/search?q=reverse&persona=-shared', status: 200, hides: 'ops.reverse' }],
  ['call: persona in the body', { ...callOps({ arguments: { text: 'x' }, persona: 'ops' }), status: 403, code: 'FORBIDDEN_PERSONA' }],
  ['call: persona in the header', { ...callOps({ arguments: { text: 'x' } }, { 'x-toolcap-persona': 'ops' }), status: 403, code: 'FORBIDDEN_PERSONA' }],
  ['call: body intern, header ops (the body wins)', { ...callOps({ arguments: { text: 'x' }, persona: 'intern' }, { 'x-toolcap-persona': 'ops' }), status: 404, code: 'TOOL_NOT_FOUND' }],
  ['call: body ops, header intern', { ...callOps({ arguments: { text: 'x' }, persona: 'ops' }, { 'x-toolcap-persona': 'intern' }), status: 403 }],
  ['call: persona in the query', { ...callOps({ arguments: { text: 'x' } }), path: '/tools/ops.reverse/call?persona=ops', status: 404, code: 'TOOL_NOT_FOUND' }],
  ['call: two X-Toolcap-Persona headers', { ...callOps({ arguments: { text: 'x' } }), headers: (): Array<[string, string]> => [['content-type', 'application/json'], ['x-toolcap-persona', 'intern'], ['x-toolcap-persona', 'ops']], status: 404, code: 'UNKNOWN_PERSONA' }],
  ['call: persona inside arguments', { ...callOps({ arguments: { text: 'x', persona: 'ops' } }), status: 404, code: 'TOOL_NOT_FOUND' }],
  ['call: duplicate persona keys, the last not granted', { ...callOps('{"persona":"intern","arguments":{"text":"x"},"persona":"ops"}'), status: 403, code: 'FORBIDDEN_PERSONA' }],
  ['call: __proto__ carrying a persona', { ...callOps('{"__proto__":{"persona":"ops"},"arguments":{"text":"x"}}'), status: 400, code: 'BAD_BODY' }],
  ['call: constructor.prototype carrying a persona', { ...callOps({ constructor: { prototype: { persona: 'ops' } }, arguments: { text: 'x' } }), status: 400, code: 'BAD_BODY' }],
  ['call: persona as an array', { ...callOps({ arguments: { text: 'x' }, persona: ['ops'] }), status: 400, code: 'BAD_BODY' }],
  ['call: persona empty', { ...callOps({ arguments: { text: 'x' }, persona: '' }), status: 400, code: 'BAD_BODY' }],
  ['call: persona as text/plain', { ...callOps({ arguments: { text: 'x' }, persona: 'ops' }), headers: { 'content-type': 'text/plain' }, status: 415 }],
  ['call: caller in the body names nobody', { ...callOps({ arguments: { text: 'x' }, caller: 'ops-bot' }), status: 404, code: 'TOOL_NOT_FOUND' }],
];

const decide = (who: Who, id: string, verb: 'approve' | 'deny', body: unknown = {}): Attempt => ({ who, method: 'POST', path: `/approvals/{${id}}/${verb}`, headers: json, body, status: 0 });
const approvalRows: Row[] = [
  ["a caller approves another's approval", { ...decide('ops', 'intern', 'approve'), status: 403, code: 'FORBIDDEN' }],
  ["a caller denies another's approval", { ...decide('ops', 'intern', 'deny'), status: 403, code: 'FORBIDDEN' }],
  ['a caller approves its own, naming an approver in by', { ...decide('intern', 'intern', 'approve', { by: 'reviewer' }), status: 403, code: 'FORBIDDEN' }],
  ["a caller reads another's approval", { who: 'ops', path: '/approvals/{intern}', status: 404, code: 'APPROVAL_NOT_FOUND' }],
  ['an approver approves outside its persona grants', { ...decide('approver', 'ops', 'approve'), status: 403, code: 'FORBIDDEN' }],
  ['an approver denies outside its persona grants', { ...decide('approver', 'ops', 'deny'), status: 403, code: 'FORBIDDEN' }],
  ['a caller approves through an encoded slash', { who: 'ops', method: 'POST', path: '/approvals/{intern}%2Fapprove', headers: json, body: {}, status: 405 }],
  ['a caller approves through a dot segment', { who: 'ops', method: 'POST', path: '/approvals/x/../{intern}/approve', headers: json, body: {}, status: 403 }],
  ['a decision without a JSON body type', { who: 'approver', method: 'POST', path: '/approvals/{intern}/deny', headers: { 'content-type': 'text/plain' }, body: {}, status: 415 }],
  ['?status= with SQL', { who: 'intern', path: "/approvals?status=pending'%20OR%201=1--", status: 400, code: 'BAD_PARAMETER' }],
  ['?tool= with SQL lists none', { who: 'intern', path: "/approvals?tool=x'%20OR%20'1'='1", status: 200, hides: 'apr_' }],
  ['?requestedBy= to list another principal', { who: 'intern', path: '/approvals?requestedBy=ops-bot', status: 400, code: 'BAD_PARAMETER' }],
  ['?requested_by_principal=', { who: 'intern', path: '/approvals?requested_by_principal=ops-bot', status: 400, code: 'BAD_PARAMETER' }],
  ["a caller's list hides another's approvals", { who: 'intern', path: '/approvals?limit=1000', status: 200, hides: 'ops-bot' }],
  ['status twice', { who: 'intern', path: '/approvals?status=pending&status=approved', status: 400, code: 'BAD_PARAMETER', hides: 'ops-bot' }],
];

const TABLE: Row[] = [...pathRows, ...methodRows, ...mcpRows, ...headerRows, ...personaRows, ...approvalRows];

describe('red team: every attempt that held stays held', () => {
  it('is a table of many attempts, no two with the same label', () => {
    expect(new Set(TABLE.map(([label]) => label)).size).toBe(TABLE.length);
    expect(TABLE.length).toBeGreaterThanOrEqual(250);
  });

  it.each(TABLE)('%s', async (_label, attempt) => {
    const path = attempt.path.replace('{intern}', pending.intern).replace('{ops}', pending.ops).replace('KEY', api.keys.admin.token);
    const extra = typeof attempt.headers === 'function' ? attempt.headers(api.keys) : (attempt.headers ?? {});
    const headers = new Headers(Array.isArray(extra) ? extra : Object.entries(extra));
    for (const [k, v] of Object.entries(auth(attempt.who))) if (!headers.has(k)) headers.set(k, v);
    const body = attempt.body === undefined ? undefined : typeof attempt.body === 'string' ? attempt.body : JSON.stringify(attempt.body);
    const res = await call(api.app, path, { method: attempt.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(attempt.status);
    if (attempt.code) expect(JSON.parse(text)).toMatchObject({ code: attempt.code });
    if (attempt.hides) expect(text).not.toContain(attempt.hides);
    if (res.status === 405) expect(res.headers.get('allow')).toMatch(/^(GET, HEAD|POST|GET, HEAD, PUT, DELETE)$/);
  });
});
