/**
 * The identity parts of a config: the `auth` section, approvals'
 * self-approval and elicitation, the server's allowed names and TLS, the
 * gateway's session limits. Every bad field is reported at its line and
 * pointer, and the JSON Schema agrees; config/identity.ts turns them into
 * the runtime's options, the bind address's names and the banner line.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configJsonSchema, loadConfig } from '../../src/config/config.js';
import { bindNames, createIdentity, identityRuntimeOptions, isLoopback, LOCAL_MODE, principalNamed } from '../../src/config/identity.js';
import { consoleLoginOptions } from '../../src/config/sections/console-login.js';
import { createAjv } from '../../src/model/validator.js';

function project(text: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolcap-identity-config-')));
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'm', 'tools.yaml'), 'toolcap: 1\ntools: []\n');
  writeFileSync(join(dir, 'cert.pem'), 'not checked here');
  const path = join(dir, 'toolcap.config.yaml');
  writeFileSync(path, text);
  return path;
}

const S = 'sources: [m]\n';
const CASES: Array<[string, string, Array<{ code: string; line: number; pointer: string }>]> = [
  ['auth not an object', `${S}auth: on\n`, [{ code: 'TYPE_MISMATCH', line: 2, pointer: '/auth' }]],
  ['an unknown auth field (warning)', `${S}auth:\n  tokens: 3\n`, [{ code: 'UNKNOWN_FIELD', line: 3, pointer: '/auth/tokens' }]],
  ['a local role that is not a role', `${S}auth:\n  local:\n    roles: [root]\n`, [{ code: 'UNKNOWN_ENUM_VALUE', line: 4, pointer: '/auth/local/roles/0' }]],
  ['an empty local principal', `${S}auth:\n  local: { principal: "" }\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/auth/local/principal' }]],
  ['a local persona that is not a name', `${S}auth:\n  local:\n    personas: ["intern "]\n`, [{ code: 'INVALID_VALUE', line: 4, pointer: '/auth/local/personas/0' }]],
  ['a local default persona not granted', `${S}auth:\n  local:\n    personas: [ops]\n    defaultPersona: dev\n`, [{ code: 'INVALID_VALUE', line: 5, pointer: '/auth/local/defaultPersona' }]],
  ['apiKeys.enabled not a boolean', `${S}auth:\n  apiKeys: { enabled: "yes" }\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/auth/apiKeys/enabled' }]],
  ['oidc without an issuer', `${S}auth:\n  oidc:\n    audience: toolcap\n`, [{ code: 'MISSING_FIELD', line: 4, pointer: '/auth/oidc' }]],
  ['oidc without an audience', `${S}auth:\n  oidc:\n    issuer: https://id.example\n`, [{ code: 'MISSING_FIELD', line: 4, pointer: '/auth/oidc' }]],
  ['an oidc issuer that is not a URL', `${S}auth:\n  oidc:\n    issuer: id.example\n    audience: toolcap\n`, [{ code: 'INVALID_VALUE', line: 4, pointer: '/auth/oidc/issuer' }]],
  ['an oidc audience that is a number', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: 5\n`, [{ code: 'TYPE_MISMATCH', line: 5, pointer: '/auth/oidc/audience' }]],
  ['a negative clock tolerance', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: t\n    clockToleranceSec: -1\n`, [{ code: 'INVALID_VALUE', line: 6, pointer: '/auth/oidc/clockToleranceSec' }]],
  ['an oidc default role that is not a role', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: t\n    defaultRoles: [god]\n`, [{ code: 'UNKNOWN_ENUM_VALUE', line: 6, pointer: '/auth/oidc/defaultRoles/0' }]],
  ['a principal grant with an unknown role', `${S}auth:\n  principals:\n    alice:\n      roles: [boss]\n`, [{ code: 'UNKNOWN_ENUM_VALUE', line: 5, pointer: '/auth/principals/alice/roles/0' }]],
  ['approver grants without a list', `${S}auth:\n  principals:\n    alice:\n      approves: { personas: x, tools: ["*"] }\n`, [{ code: 'TYPE_MISMATCH', line: 5, pointer: '/auth/principals/alice/approves/personas' }]],
  ['an unknown grant field (warning)', `${S}auth:\n  principals:\n    alice: { admin: true }\n`, [{ code: 'UNKNOWN_FIELD', line: 4, pointer: '/auth/principals/alice/admin' }]],
  ['a rate limit of a fraction', `${S}auth:\n  rateLimit: { points: 1.5 }\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/auth/rateLimit/points' }]],
  ['a rate limit window of 0', `${S}auth:\n  rateLimit: { durationSec: 0 }\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/auth/rateLimit/durationSec' }]],
  ['a negative per-principal limit', `${S}auth:\n  rateLimit:\n    principals: { ci: -1 }\n`, [{ code: 'INVALID_VALUE', line: 4, pointer: '/auth/rateLimit/principals/ci' }]],
  ['approvals.selfApproval not a boolean', `${S}approvals:\n  selfApproval: yes please\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/approvals/selfApproval' }]],
  ['a rule elicitation not a boolean', `${S}approvals:\n  rules:\n    - { tools: [a], elicitation: 1 }\n`, [{ code: 'TYPE_MISMATCH', line: 4, pointer: '/approvals/rules/0/elicitation' }]],
  ['allowedHosts not a list', `${S}server:\n  allowedHosts: localhost\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/server/allowedHosts' }]],
  ['an allowed host with a path', `${S}server:\n  allowedHosts: [a.example/x]\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/server/allowedHosts/0' }]],
  ['an allowed origin without a scheme', `${S}server:\n  allowedOrigins: [a.example]\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/server/allowedOrigins/0' }]],
  ['tls without a key', `${S}server:\n  tls: { cert: cert.pem }\n`, [{ code: 'MISSING_FIELD', line: 3, pointer: '/server/tls' }]],
  ['a tls key that is a number', `${S}server:\n  tls: { cert: cert.pem, key: 5 }\n`, [{ code: 'TYPE_MISMATCH', line: 3, pointer: '/server/tls/key' }]],
  ['a tls key that does not exist', `${S}server:\n  tls: { cert: cert.pem, key: gone.pem }\n`, [{ code: 'PATH_NOT_FOUND', line: 3, pointer: '/server/tls/key' }]],
  ['a console client without an id', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: t\n    console:\n      scope: openid\n`, [{ code: 'MISSING_FIELD', line: 7, pointer: '/auth/oidc/console' }]],
  ['a console client secret written as a literal', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: t\n    console:\n      clientId: c\n      clientSecret: hunter2\n`, [{ code: 'INVALID_VALUE', line: 8, pointer: '/auth/oidc/console/clientSecret' }]],
  ['a console client secret env that is not a name', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: t\n    console:\n      clientId: c\n      clientSecret: { env: "A B" }\n`, [{ code: 'INVALID_VALUE', line: 8, pointer: '/auth/oidc/console/clientSecret' }]],
  ['a console redirect URI elsewhere than the callback', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: t\n    console:\n      clientId: c\n      redirectUri: https://t.example/callback\n`, [{ code: 'INVALID_VALUE', line: 8, pointer: '/auth/oidc/console/redirectUri' }]],
  ['an unknown console field (warning)', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: t\n    console:\n      clientId: c\n      prompt: login\n`, [{ code: 'UNKNOWN_FIELD', line: 8, pointer: '/auth/oidc/console/prompt' }]],
  ['the console\'s client id as the audience (warning)', `${S}auth:\n  oidc:\n    issuer: https://id.example\n    audience: [https://t.example, c]\n    console:\n      clientId: c\n`, [{ code: 'INVALID_VALUE', line: 5, pointer: '/auth/oidc/audience' }]],
  ['a session cap of 0', `${S}mcp:\n  sessions: { maxTotal: 0 }\n`, [{ code: 'INVALID_VALUE', line: 3, pointer: '/mcp/sessions/maxTotal' }]],
  ['an unknown session field (warning)', `${S}mcp:\n  sessions: { ttl: 5 }\n`, [{ code: 'UNKNOWN_FIELD', line: 3, pointer: '/mcp/sessions/ttl' }]],
];

const codes = (path: string) => loadConfig(path).diagnostics.map((d) => ({ code: d.code, line: d.line, pointer: d.pointer }));

describe('the identity sections: every bad field at its line', () => {
  it.each(CASES)('%s', (_name, text, expected) => {
    expect(codes(project(text))).toEqual(expected);
  });

  it('a rule with only selfApproval and elicitation has no condition', () => {
    expect(codes(project(`${S}approvals:\n  rules:\n    - { selfApproval: true, elicitation: true }\n`))).toEqual([{ code: 'INVALID_VALUE', line: 4, pointer: '/approvals/rules/0' }]);
  });
});

describe('configJsonSchema agrees on the identity sections', () => {
  const validate = createAjv().compile(configJsonSchema());
  /** Only the loader can judge these: they depend on the file system or on another field. */
  const LOADER_ONLY = new Set(['a tls key that does not exist', 'a local default persona not granted', 'the console\'s client id as the audience (warning)']);
  it.each(CASES.filter(([name]) => !LOADER_ONLY.has(name)))('rejects: %s', (_name, text) => {
    expect(validate(parse(text))).toBe(false);
  });
  it('accepts every field', () => {
    expect(validate(parse(FULL))).toBe(true);
  });
});

const FULL = `${S}auth:
  local: { principal: ann, roles: [admin], personas: [ops, dev], defaultPersona: ops }
  apiKeys: { enabled: true, touchIntervalMs: 1000 }
  oidc:
    issuer: https://id.example/realms/main
    audience: [https://toolcap.example]
    clockToleranceSec: 10
    rolesClaim: realm_access.roles
    defaultRoles: [caller]
    console: { clientId: toolcap-console, clientSecret: { env: CONSOLE_SECRET }, redirectUri: https://toolcap.example/ui/login/callback, scope: openid tools, resource: https://toolcap.example }
  principals:
    bob@example.org: { roles: [approver], approves: { personas: ["*"], tools: [notes.*] } }
  rateLimit: { points: 10, durationSec: 1, principals: { ci-bot: 0 } }
approvals:
  selfApproval: false
  rules:
    - { tools: [notes.append], selfApproval: true, elicitation: true }
server:
  host: 0.0.0.0
  allowedHosts: [toolcap.example, 10.0.0.5:4317]
  allowedOrigins: [https://toolcap.example]
  tls: { cert: cert.pem, key: cert.pem }
mcp:
  sessions: { maxPerPrincipal: 4, maxTotal: 32, idleSec: 60 }
`;

describe('the identity sections, read', () => {
  it('without auth: local mode, the default local principal, no call limit, four eyes', () => {
    const { config } = loadConfig(project(S));
    expect(config?.auth).toEqual(LOCAL_MODE.auth);
    expect(identityRuntimeOptions(config!)).toEqual({});
    expect(principalNamed(config!.auth)).toEqual({ id: 'local', roles: ['admin'], personas: ['*'], via: 'local' });
  });

  it('reads every field', () => {
    const { config, diagnostics } = loadConfig(project(FULL));
    expect(diagnostics).toEqual([]);
    expect(config?.auth.enabled).toBe(true);
    expect(config?.auth.local).toEqual({ principal: 'ann', roles: ['admin'], personas: ['ops', 'dev'], defaultPersona: 'ops' });
    expect(config?.auth.config).toMatchObject({
      apiKeys: { enabled: true, touchIntervalMs: 1000 },
      oidc: { issuer: 'https://id.example/realms/main', audience: ['https://toolcap.example'], clockToleranceSec: 10, rolesClaim: 'realm_access.roles', defaultRoles: ['caller'] },
      principals: { 'bob@example.org': { roles: ['approver'], approves: { personas: ['*'], tools: ['notes.*'] } } },
      rateLimit: { points: 10, durationSec: 1, principals: { 'ci-bot': 0 } },
    });
    expect(config?.approvals).toMatchObject({ selfApproval: false, rules: [{ tools: ['notes.append'], selfApproval: true, elicitation: true }] });
    expect(config?.server).toMatchObject({ host: '0.0.0.0', allowedHosts: ['toolcap.example', '10.0.0.5:4317'], allowedOrigins: ['https://toolcap.example'], tls: { cert: join(config!.root, 'cert.pem') } });
    expect(config?.mcp.sessions).toEqual({ maxPerPrincipal: 4, maxTotal: 32, idleSec: 60 });
    expect(config?.auth.consoleLogin).toEqual({ clientId: 'toolcap-console', clientSecretEnv: 'CONSOLE_SECRET', redirectUri: 'https://toolcap.example/ui/login/callback', scope: 'openid tools', resource: 'https://toolcap.example' });
    expect(config?.auth.config.oidc).not.toHaveProperty('console');
    expect(identityRuntimeOptions(config!)).toEqual({ rateLimit: { points: 10, durationSec: 1, principals: { 'ci-bot': 0 } }, selfApproval: false, personas: ['dev', 'ops'] });
    expect(principalNamed(config!.auth, 'bob@example.org')).toMatchObject({ id: 'bob@example.org', roles: ['approver'], personas: [], approves: { tools: ['notes.*'] } });
  });

  it.each([
    ['apiKeys given but not enabled', 'auth:\n  apiKeys: { touchIntervalMs: 5 }\n', false],
    ['apiKeys enabled', 'auth:\n  apiKeys: { enabled: true }\n', true],
    ['oidc alone (API keys stay off)', 'auth:\n  oidc: { issuer: "https://id.example", audience: t }\n', true],
    ['only a local principal', 'auth:\n  local: { principal: me }\n', false],
  ])('auth is on or off: %s', (_name, text, on) => {
    const { config } = loadConfig(project(`${S}${text}`));
    expect(config?.auth.enabled).toBe(on);
    expect(config?.auth.config.apiKeys?.enabled ?? false).toBe(text.includes('enabled: true'));
  });
});

describe('config/identity', () => {
  it.each([
    ['127.0.0.1', true], ['127.1.2.3', true], ['localhost', true], ['::1', true], ['[::1]', true],
    ['0.0.0.0', false], ['::', false], ['10.0.0.5', false], ['example.org', false],
  ])('isLoopback(%s) is %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
  });

  it('a loopback bind answers its loopback names with the port, over http and https', () => {
    expect(bindNames('127.0.0.1', 4317)).toEqual({
      allowedHosts: ['127.0.0.1:4317', 'localhost:4317', '[::1]:4317'],
      allowedOrigins: ['http://127.0.0.1:4317', 'https://127.0.0.1:4317', 'http://localhost:4317', 'https://localhost:4317', 'http://[::1]:4317', 'https://[::1]:4317'],
    });
    expect(bindNames('10.0.0.5', 80).allowedHosts).toEqual(['10.0.0.5:80']);
    expect(bindNames('0.0.0.0', 80).allowedHosts).toEqual(expect.arrayContaining(['127.0.0.1:80', 'localhost:80']));
  });

  it('local mode authenticates every request as the local principal, and the banner says so', async () => {
    const identity = createIdentity({ ...LOCAL_MODE, approvals: { selfApproval: true } }, { getKey: async () => undefined, touchKey: async () => undefined });
    expect(identity.mode).toBe('local');
    expect(await identity.api.authenticate(new Request('http://x/'))).toEqual({ ok: true, principal: identity.local });
    expect(identity.describe()).toMatch(/local mode.*"local".*self-approval ON/);
    expect(createIdentity(LOCAL_MODE, { getKey: async () => undefined, touchKey: async () => undefined }).describe()).toMatch(/four eyes/);
  });

  it('with auth on, requests need credentials, and the banner names the ways in', async () => {
    const { config } = loadConfig(project(`${S}auth:\n  apiKeys: { enabled: true }\n  oidc: { issuer: "https://id.example", audience: "https://toolcap.example" }\n`));
    const identity = createIdentity(config!, { getKey: async () => undefined, touchKey: async () => undefined });
    expect(identity.mode).toBe('auth');
    expect(await identity.api.authenticate(new Request('http://x/'))).toMatchObject({ ok: false, code: 'UNAUTHENTICATED' });
    expect(identity.api.resourceMetadata).toEqual({ resource: 'https://toolcap.example', authorizationServers: ['https://id.example'] });
    expect(identity.describe()).toMatch(/^auth: api keys, oidc https:\/\/id\.example; approvals: four eyes/);
  });
});

describe('the console\'s browser sign-in options', () => {
  const ISSUER = 'https://id.example';
  it.each([
    ['a public client: the redirect URI from the bound URL', { clientId: 'c' }, 'http://127.0.0.1:4317', {}, { options: { issuer: ISSUER, clientId: 'c', redirectUri: 'http://127.0.0.1:4317/ui/login/callback' } }],
    ['the secret read from the environment', { clientId: 'c', clientSecretEnv: 'S', scope: 'openid tools' }, 'https://[::1]:9', { S: 'sh' }, { options: { issuer: ISSUER, clientId: 'c', clientSecret: 'sh', scope: 'openid tools', redirectUri: 'https://[::1]:9/ui/login/callback' } }],
    ['a configured redirect URI wins', { clientId: 'c', redirectUri: 'https://t.example/ui/login/callback' }, 'http://0.0.0.0:4317', {}, { options: { issuer: ISSUER, clientId: 'c', redirectUri: 'https://t.example/ui/login/callback' } }],
    ['a wildcard bind and no redirect URI: off', { clientId: 'c' }, 'http://0.0.0.0:4317', {}, { warning: expect.stringMatching(/set auth\.oidc\.console\.redirectUri/) }],
    ['the secret\'s variable unset: off', { clientId: 'c', clientSecretEnv: 'S' }, 'http://127.0.0.1:1', {}, { warning: expect.stringMatching(/S is not set/) }],
  ])('%s', (_name, login, url, env, expected) => {
    expect(consoleLoginOptions(login, ISSUER, url, env)).toEqual(expected);
  });
});
