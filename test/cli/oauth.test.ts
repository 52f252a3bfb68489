/**
 * `toolcap oauth connect|status|disconnect` and `toolcap call` of an OAuth
 * tool, in-process, against a real authorization server (oidc-provider):
 * the command prints the URL, the test's browser follows it, the redirect
 * listener receives the code, and the call then runs with the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { browse, CLIENT_SECRET, CLIENTS, startAuthServer, type TestAuthServer } from '../helpers/oauth-server.js';
import { newKey, oauthProject, type OAuthProject } from '../runtime/oauth/fixture.js';
import { cli } from './helpers.js';

let as: TestAuthServer;
let project: OAuthProject;

beforeAll(async () => {
  as = await startAuthServer();
  project = oauthProject([
    {
      authorizationUrl: as.authorizationUrl,
      tokenUrl: as.tokenUrl,
      clientId: CLIENTS.basic,
      clientSecret: CLIENT_SECRET,
      redirectUrl: 'http://127.0.0.1/callback',
      scopes: ['openid', 'email'],
      pkceType: 'S256',
      refreshToken: 'true',
      requestTokenContentType: 'application/x-www-form-urlencoded',
      requestTokenAuthHeader: 'basic',
    },
  ]);
});

afterAll(async () => {
  delete process.env[project.keyEnv];
  project.cleanup();
  await as.close();
});

/** Run `toolcap oauth connect`, following the URL it prints with the test's browser. */
async function connect(...extra: string[]): Promise<{ code: number; stdout: string; stderr: string; page?: { status: number } }> {
  let stdout = '';
  let stderr = '';
  let page: Promise<{ status: number }> | undefined;
  const code = await run(['oauth', 'connect', 'me.profile', '--config', project.config, '--timeout', '20', ...extra], {
    stdout: (t) => {
      stdout += t;
      if (t.startsWith('http')) page = browse(t.trim());
    },
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr, ...(page ? { page: await page } : {}) };
}

const call = () => cli('call', 'me.profile', '--config', project.config, '--args', JSON.stringify({ userinfo: as.userinfoUrl }), '--json');

describe('toolcap oauth', () => {
  it('walks through status, a refused call, a refused connect without a key, connect, call and disconnect', async () => {
    let r = await cli('oauth', 'status', '--config', project.config, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ connections: [{ tool: 'me.profile', service: 'idp', connected: false, command: 'toolcap oauth connect me.profile --service idp' }] });

    r = await call();
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', code: 'OAUTH_NOT_CONNECTED', command: 'toolcap oauth connect me.profile --service idp' });
    expect(r.stderr).toContain('Run: toolcap oauth connect me.profile --service idp');

    // no key: refused before any URL is printed
    let c = await connect();
    expect(c.code).toBe(2);
    expect(c.stdout).toBe('');
    expect(c.stderr).toContain(`${project.keyEnv} is not set`);

    process.env[project.keyEnv] = newKey();
    c = await connect();
    expect(c.stderr).toMatch(/open this URL in a browser/);
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\?.*code_challenge_method=S256/);
    expect(c.page?.status).toBe(200);
    expect(c.stderr).toMatch(/connected "me\.profile" to idp; the access token expires .* \(refresh token kept\)/);

    r = await cli('oauth', 'status', 'me.profile', '--config', project.config, '--json');
    expect(JSON.parse(r.stdout).connections).toEqual([expect.objectContaining({ tool: 'me.profile', service: 'idp', connected: true, refreshToken: true, scope: 'openid email' })]);
    r = await cli('oauth', 'status', '--config', project.config);
    expect(r.stdout).toMatch(/^me\.profile {2}idp {2}connected, expires .*, refresh token kept\n$/);
    expect(r.stdout + r.stderr).not.toMatch(/eyJ|access_token/);

    r = await call();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', result: { sub: 'alice', email: 'alice@example.test' } });

    r = await cli('oauth', 'disconnect', 'me.profile', '--config', project.config);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('disconnected "me.profile": 1 connection(s) forgotten');
    r = await cli('audit', '--config', project.config, '--json');
    const kinds = (JSON.parse(r.stdout) as { audit: Array<{ kind: string; tool: string }> }).audit.filter((a) => a.kind.startsWith('oauth.'));
    expect(kinds.map((a) => `${a.kind} ${a.tool}`)).toEqual(['oauth.connected me.profile', 'oauth.disconnected me.profile']);
    r = await call();
    expect(JSON.parse(r.stdout)).toMatchObject({ code: 'OAUTH_NOT_CONNECTED' });
  });

  it.each([
    ['an unknown tool', ['oauth', 'connect', 'no.such'], 2, /no tool named "no\.such"/],
    ['an unknown service', ['oauth', 'connect', 'me.profile', '--service', 'nope'], 2, /has no OAuth service "nope"; it has idp/],
    ['a bad --timeout', ['oauth', 'connect', 'me.profile', '--timeout', 'soon'], 2, /--timeout must be a positive number/],
    ['disconnecting what is not connected', ['oauth', 'disconnect', 'me.profile', '--service', 'idp'], 1, /had no stored OAuth connection/],
  ])('refuses %s', async (_label, argv, code, message) => {
    process.env[project.keyEnv] = newKey();
    const r = await cli(...argv, '--config', project.config);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });
});
