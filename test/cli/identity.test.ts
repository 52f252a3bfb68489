/**
 * Who is asking, from the command line: `toolcap keys` (a key printed once,
 * working against the store's Authenticator until revoked), `toolcap serve`
 * refusing a bind beyond loopback without auth (and warning under
 * --insecure), HTTPS from server.tls, and the CLI as a client (`--server`
 * with TOOLCAP_API_KEY): a call as one principal, the self-approval refused,
 * the approval by another, all against an in-process `toolcap serve`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { serveCli as serve } from './helpers.js';
import { Authenticator } from '../../src/runtime/identity/authenticate.js';
import { openStore } from '../../src/store/open.js';

let root: string;
let project: string;
let notesFile: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'toolcap-cli-identity-'));
  // the notes provider writes three folders above its own: <root>/ws/.toolcap/notes.txt
  project = join(root, 'ws', 'proj');
  mkdirSync(project, { recursive: true });
  cpSync('examples/manifests/toolcap', join(project, 'toolcap'), { recursive: true });
  notesFile = join(root, 'ws', '.toolcap', 'notes.txt');
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** A config in the project folder; `name` keeps each test's store apart. */
function config(name: string, extra: string): string {
  const file = join(project, `${name}.config.yaml`);
  writeFileSync(file, `sources: [toolcap/]\nstore: { path: .toolcap/${name}.db }\n${extra}`);
  return file;
}

/** Run the CLI in-process with an environment (TOOLCAP_API_KEY) of its own. */
async function cli(env: Record<string, string>, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  return { code, stdout, stderr };
}


async function createKey(file: string, ...flags: string[]): Promise<string> {
  const r = await cli({}, 'keys', 'create', '--config', file, ...flags);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('toolcap keys', () => {
  it('create prints the key once; list never shows a secret; the key works until revoked', async () => {
    const file = config('keys', 'auth: { apiKeys: { enabled: true } }\n');
    const created = await cli({}, 'keys', 'create', '--config', file, '--principal', 'ci-bot', '--role', 'caller', '--persona', 'Atlas', '--expires', '30d');
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^tcap_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/only time the key is shown/);
    const keyId = token.slice(5, 21);

    const listed = await cli({}, 'keys', 'list', '--config', file, '--json');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(token.slice(22));
    const { keys } = JSON.parse(listed.stdout) as { keys: Array<Record<string, unknown>> };
    expect(keys).toEqual([expect.objectContaining({ id: keyId, principal: 'ci-bot', roles: ['caller'], personas: ['Atlas'], revokedAt: null })]);
    // one persona granted is the default persona too: a request that names none means it
    expect(keys[0]).toMatchObject({ defaultPersona: 'Atlas' });
    expect(keys[0]).not.toHaveProperty('hash');
    expect(keys[0]).not.toHaveProperty('salt');
    expect(Date.parse(keys[0]!['expiresAt'] as string) - Date.now()).toBeGreaterThan(29 * 86_400_000);

    const store = await openStore({ kind: 'sqlite', path: join(project, '.toolcap', 'keys.db') });
    try {
      const auth = new Authenticator({ config: { apiKeys: { enabled: true } }, keys: store });
      expect(await auth.authenticate(`Bearer ${token}`)).toMatchObject({ ok: true, principal: { id: 'ci-bot', roles: ['caller'], personas: ['Atlas'], defaultPersona: 'Atlas', via: 'api-key' } });
      const revoked = await cli({}, 'keys', 'revoke', keyId, '--config', file);
      expect(revoked.code).toBe(0);
      expect(await new Authenticator({ config: { apiKeys: { enabled: true } }, keys: store }).authenticate(`Bearer ${token}`)).toMatchObject({ ok: false, code: 'REVOKED' });
    } finally {
      await store.close();
    }
    expect((await cli({}, 'keys', 'revoke', keyId, '--config', file)).code).toBe(1);
    expect(JSON.parse((await cli({}, 'keys', 'list', '--config', file, '--json')).stdout).keys).toEqual([]);
    expect(JSON.parse((await cli({}, 'keys', 'list', '--config', file, '--all', '--json')).stdout).keys).toHaveLength(1);
  });

  it.each([
    ['no role', ['--principal', 'x']],
    ['an unknown role', ['--principal', 'x', '--role', 'root']],
    ['a persona that is not a name', ['--principal', 'x', '--role', 'caller', '--persona', 'intern ']],
    ['a default persona not granted', ['--principal', 'x', '--role', 'caller', '--persona', 'a', '--default-persona', 'b']],
    ['approver grants for a caller', ['--principal', 'x', '--role', 'caller', '--approves-tool', 'notes.*']],
    ['a bad expiry', ['--principal', 'x', '--role', 'caller', '--expires', 'soon']],
  ])('create with %s is a usage error (exit 2), and stores nothing', async (_name, flags) => {
    const file = config('keys-bad', '');
    const r = await cli({}, 'keys', 'create', '--config', file, ...flags);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('toolcap serve on the network', () => {
  it('refuses 0.0.0.0 without auth (exit 2, naming --insecure), and nothing listens', async () => {
    const r = await cli({}, 'serve', '--config', config('open', ''), '--host', '0.0.0.0', '--port', '0', '--no-watch');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to listen on 0\.0\.0\.0/);
    expect(r.stderr).toContain('--insecure');
    expect(r.stdout).toBe('');
  });

  it('starts on 0.0.0.0 with --insecure, warning loudly, in local mode', async () => {
    const s = await serve(['--config', config('insecure', ''), '--host', '0.0.0.0', '--insecure']);
    try {
      expect(s.stderr()).toMatch(/INSECURE: listening on 0\.0\.0\.0 with no authentication/);
      expect(s.stdout()).toMatch(/identity: local mode, every request is principal "local"/);
      const port = new URL(s.url).port;
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('serves HTTPS with server.tls (a self-signed certificate made here)', async () => {
    const cert = join(project, 'cert.pem');
    const key = join(project, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    const s = await serve(['--config', config('tls', 'server: { tls: { cert: cert.pem, key: key.pem } }\n')]);
    try {
      expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const status = await new Promise<number>((resolve, reject) => {
        get(`${s.url}/health`, { ca: readFileSync(cert) }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      });
      expect(status).toBe(200);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});

describe('the CLI as a client (--server, TOOLCAP_API_KEY)', () => {
  it('calls as one principal, refuses its own approval, is approved by another; audit needs audit.read', async () => {
    const file = config('client', 'auth: { apiKeys: { enabled: true } }\n');
    // the agent may also approve, so only four eyes stands in its way
    const agent = await createKey(file, '--principal', 'ci-bot', '--role', 'caller', '--role', 'approver', '--approves-persona', '*');
    const reviewer = await createKey(file, '--principal', 'ann', '--role', 'approver', '--approves-persona', '*');
    const admin = await createKey(file, '--principal', 'root', '--role', 'admin');
    const s = await serve(['--config', file]);
    try {
      expect(s.stdout()).toMatch(/auth: api keys; approvals: four eyes/);
      const anonymous = await cli({}, 'call', 'text.reverse', '--server', s.url, '--args', '{"text":"a"}');
      expect(anonymous.code).toBe(1);
      expect(anonymous.stderr).toMatch(/UNAUTHENTICATED/);

      const asked = await cli({ TOOLCAP_API_KEY: agent }, 'call', 'notes.append', '--server', s.url, '--args', '{"line":"four eyes"}', '--json');
      expect(asked.code, asked.stderr).toBe(75); // waiting for approval, over --server too
      const pending = JSON.parse(asked.stdout) as { status: string; approval: { id: string; requestedByPrincipal: string } };
      expect(pending).toMatchObject({ status: 'pending_approval', approval: { requestedByPrincipal: 'ci-bot' } });
      const id = pending.approval.id;

      const self = await cli({ TOOLCAP_API_KEY: agent }, 'approvals', 'approve', id, '--server', s.url, '--by', 'security-officer');
      expect(self.code).toBe(1);
      expect(self.stderr).toMatch(/SELF_APPROVAL/);

      const approved = await cli({ TOOLCAP_API_KEY: reviewer }, 'approvals', 'approve', id, '--server', s.url, '--json');
      expect(approved.code, approved.stderr).toBe(0);
      expect(JSON.parse(approved.stdout)).toMatchObject({ approval: { id, status: 'executed', decidedByPrincipal: 'ann', decidedVia: 'http' }, call: { status: 'ok', result: { appended: 'four eyes' } } });
      expect(readFileSync(notesFile, 'utf8')).toContain('four eyes\n');

      const shown = await cli({ TOOLCAP_API_KEY: agent }, 'approvals', 'show', id, '--server', s.url, '--json');
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.stdout).approval).toMatchObject({ id, status: 'executed', outcome: { status: 'ok' } });

      const forbidden = await cli({ TOOLCAP_API_KEY: agent }, 'audit', '--server', s.url);
      expect(forbidden.code).toBe(1);
      expect(forbidden.stderr).toMatch(/FORBIDDEN/);
      const audit = await cli({ TOOLCAP_API_KEY: admin }, 'audit', '--server', s.url, '--json');
      expect(audit.code).toBe(0);
      const actors = (JSON.parse(audit.stdout) as { audit: Array<{ actor: string }> }).audit.map((r) => r.actor);
      expect(actors).toContain('ci-bot');
      expect(actors).toContain('ann');
      expect(actors).not.toContain('security-officer');
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('an unreachable server is exit 2', async () => {
    const r = await cli({}, 'approvals', 'list', '--server', 'http://127.0.0.1:9');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot reach/);
  });
});
