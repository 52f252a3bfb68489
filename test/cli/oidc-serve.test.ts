/**
 * OIDC end to end: `toolcap serve` with `auth.oidc` pointing at a real
 * OpenID provider (oidc-provider, in process, issuing signed JWT access
 * tokens by client credentials), over a real socket. The challenge and the
 * protected resource metadata a client discovers the issuer from; roles and
 * personas from the token's claims (through the config's claim mapping) and
 * from `auth.principals` grants by the token's `sub`; four eyes between two
 * clients, with the actors the audit log records taken from the tokens; and
 * tokens for another audience or tampered with refused as invalid_token.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { serveCli as serve } from './helpers.js';
import { startIssuer, type TestIssuer } from '../helpers/oidc.js';

const AUDIENCE = 'https://toolcap.test';

/** Claims the provider puts in each client's tokens: only ci-bot's say who it is beyond `sub`. */
const CLIENTS = {
  'ci-bot': { toolcap_roles: ['caller', 'approver'], toolcap_personas: 'atlas', default_persona: 'atlas' },
  'review-bot': {},
  'auditor': {},
};

/**
 * Grants by `sub`: ci-bot may approve too (so only four eyes refuses its own
 * approval), review-bot approves notes in atlas, auditor is admin. Naming
 * `ops` and `atlas` here makes them personas the runtime knows.
 */
const AUTH = (issuer: string) => `auth:
  oidc:
    issuer: ${issuer}
    audience: ${AUDIENCE}
    rolesClaim: toolcap_roles
    personasClaim: toolcap_personas
  principals:
    ci-bot: { approves: { personas: [atlas], tools: ["notes.*"] } }
    review-bot: { roles: [approver], approves: { personas: [atlas], tools: ["notes.*"] } }
    auditor: { roles: [admin], personas: [ops] }
`;

let root: string;
let notesFile: string;
let idp: TestIssuer;
let server: { url: string; stdout: () => string; stop: () => Promise<number> };
const tokens: Record<keyof typeof CLIENTS, string> = { 'ci-bot': '', 'review-bot': '', 'auditor': '' };


beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-cli-oidc-'));
  // the notes provider writes three folders above its own: <root>/ws/.toolcap/notes.txt
  const project = join(root, 'ws', 'proj');
  mkdirSync(project, { recursive: true });
  cpSync('examples/manifests/toolcap', join(project, 'toolcap'), { recursive: true });
  notesFile = join(root, 'ws', '.toolcap', 'notes.txt');
  idp = await startIssuer({ audience: AUDIENCE, clients: CLIENTS });
  const file = join(project, 'oidc.config.yaml');
  writeFileSync(file, `sources: [toolcap/]\nstore: { path: .toolcap/oidc.db }\n${AUTH(idp.issuer)}`);
  server = await serve(['--config', file]);
  for (const client of Object.keys(tokens) as Array<keyof typeof CLIENTS>) tokens[client] = await idp.token(client);
}, 20_000);

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  await idp?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A request to the served toolcap with a token (or none), its body read. */
async function api(path: string, token: string | undefined, init: { method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

/** The token with its payload changed and its signature kept. */
function tamper(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  change(payload);
  return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
}

describe('toolcap serve with auth.oidc and a real OpenID provider', () => {
  it('says it checks tokens of that issuer', () => {
    expect(server.stdout()).toContain(`auth: oidc ${idp.issuer}; approvals: four eyes`);
  });

  it('challenges a request without a token, pointing at the protected resource metadata, which names the issuer', async () => {
    const anonymous = await api('/tools', undefined);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    // the metadata lives at the origin of the resource (the audience), which stays right behind a proxy
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer realm="toolcap", resource_metadata="${AUDIENCE}/.well-known/oauth-protected-resource"`);

    const metadata = await api('/.well-known/oauth-protected-resource', undefined);
    expect(metadata.status).toBe(200);
    expect(metadata.body).toEqual({ resource: AUDIENCE, authorization_servers: [idp.issuer], bearer_methods_supported: ['header'] });
  });

  it('lists for a persona the token grants, and refuses one it does not', async () => {
    const atlas = await api('/tools?persona=atlas', tokens['ci-bot']);
    expect(atlas.status).toBe(200);
    expect((atlas.body['tools'] as Array<{ name: string }>).map((t) => t.name)).toContain('notes.append');

    const ops = await api('/tools?persona=ops', tokens['ci-bot']);
    expect(ops.status).toBe(403);
    expect(ops.body).toMatchObject({ code: 'FORBIDDEN_PERSONA', allowed: ['atlas'] });
  });

  it('holds a write for approval, refuses the asker approving it, runs it on another client\'s approval, and audits both by their tokens', async () => {
    const asked = await api('/tools/notes.append/call', tokens['ci-bot'], { method: 'POST', body: { arguments: { line: 'signed by oidc' }, persona: 'atlas', caller: 'someone-else' } });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ status: 'pending_approval', approval: { requestedByPrincipal: 'ci-bot', persona: 'atlas' } });
    const id = (asked.body['approval'] as { id: string }).id;

    const self = await api(`/approvals/${id}/approve`, tokens['ci-bot'], { method: 'POST', body: {} });
    expect(self.status).toBe(403);
    expect(self.body).toMatchObject({ code: 'SELF_APPROVAL' });

    // with a principal, the body's `by` is ignored: the decider is the token's sub
    const approved = await api(`/approvals/${id}/approve`, tokens['review-bot'], { method: 'POST', body: { by: 'security-officer' } });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ approval: { id, status: 'executed', decidedByPrincipal: 'review-bot', decidedVia: 'http' }, call: { status: 'ok', result: { appended: 'signed by oidc' } } });
    expect(readFileSync(notesFile, 'utf8')).toContain('signed by oidc\n');

    expect(await api('/audit', tokens['ci-bot'])).toMatchObject({ status: 403, body: { code: 'FORBIDDEN', action: 'audit.read' } });
    const audit = await api(`/audit?call_id=${(approved.body['call'] as { callId: string }).callId}`, tokens['auditor']);
    expect(audit.status).toBe(200);
    const rows = audit.body['audit'] as Array<{ kind: string; actor: string }>;
    expect(rows.map((r) => [r.kind, r.actor])).toEqual(expect.arrayContaining([['call.pending_approval', 'ci-bot'], ['approval.approved', 'review-bot']]));
    const actors = rows.map((r) => r.actor);
    expect(actors).not.toContain('someone-else');
    expect(actors).not.toContain('security-officer');
  });

  it.each<[string, () => Promise<string>]>([
    ['a token for another resource (audience)', () => idp.token('ci-bot', { resource: 'https://elsewhere.test' })],
    ['a token whose sub was changed to the admin', async () => tamper(tokens['ci-bot'], (p) => (p['sub'] = 'auditor'))],
    ['a token whose audience was changed to this one', async () => tamper(await idp.token('ci-bot', { resource: 'https://elsewhere.test' }), (p) => (p['aud'] = AUDIENCE))],
  ])('refuses %s: 401 invalid_token', async (_label, make) => {
    const refused = await api('/tools?persona=atlas', await make());
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'INVALID_TOKEN' });
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer realm="toolcap", error="invalid_token", resource_metadata="${AUDIENCE}/.well-known/oauth-protected-resource"`);
  });

  it('signs in to the web console with an access token of that provider, and refuses a tampered one', async () => {
    const signIn = async (token: string) => {
      const form = await fetch(`${server.url}/ui/login`);
      const loginCookie = /toolcap_login=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')![1]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      return fetch(`${server.url}/ui/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `toolcap_login=${loginCookie}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, credential: token, next: '/' }),
      });
    };
    const ok = await signIn(tokens.auditor);
    expect(ok.status).toBe(303);
    const session = ok.headers.getSetCookie().find((c) => c.startsWith('toolcap_session='))!;
    expect(session).toMatch(/HttpOnly; SameSite=Strict/);
    const page = await fetch(`${server.url}/ui/audit`, { headers: { cookie: session.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/Signed in as <strong>auditor<\/strong> \(admin\)/);
    const bad = await signIn(`${tokens.auditor.slice(0, -4)}AAAA`);
    expect(bad.status).toBe(401);
  });
});
