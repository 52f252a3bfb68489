/**
 * Issue 14's "a Shinkai tool with configurations, OAuth and SQL tables runs
 * end to end": examples/shinkai's Team Notes, copied to a temporary folder
 * with its OAuth service and userinfo URL pointed at a real authorization
 * server in this process (oidc-provider, test/helpers/oauth-server.ts), as an
 * operator points them at theirs. The walk a user takes:
 *
 * 1. a call before connecting is refused with OAUTH_NOT_CONNECTED and the
 *    command to run;
 * 2. `toolcap oauth connect` (the CLI, in-process; the test's browser
 *    follows the URL it prints through login and consent);
 * 3. `toolcap call`: the tool gets its configuration (team, userinfo URL,
 *    the signing key from the environment) and the access token, asks
 *    userinfo who is signed in, and stores the note with that author in its
 *    own SQLite table;
 * 4. `toolcap serve` as its own process (a restart on the same store
 *    folder) and the HTTP API: the earlier note is there, a new one is added;
 * 5. the access token expires while nothing runs; the next `toolcap call`
 *    (a new host again) refreshes it and lists every note;
 * 6. that access token revoked at the provider, the tool's userinfo request
 *    fails (the tool really uses the token it is handed);
 * 7. no token, client secret or signing key in clear in the audit log, the
 *    store's rows, the tool's database or the traces.
 */
import { openSqlite } from '../../src/store/sqlite-driver.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, type ChildBundle } from '../helpers/child-bundle.js';
import { stopChild } from '../helpers/stop-child.js';
import { run } from '../../src/cli/program.js';
import { createToolcap } from '../../src/host.js';
import type { TokenSet } from '../../src/runtime/oauth/token-client.js';
import { browse, CLIENT_SECRET, CLIENTS, startAuthServer, type TestAuthServer } from '../helpers/oauth-server.js';
import { newKey } from '../runtime/oauth/fixture.js';
import { cli } from './helpers.js';

// the CLI compiled once for this file and run with node (through vite-node each start transpiled the sources again)
let toolcapChild: ChildBundle;
beforeAll(async () => {
  toolcapChild = await bundleChild(new URL('./toolcap-child.ts', import.meta.url));
});
afterAll(() => toolcapChild.remove());
const SIGNING_KEY = 'team-notes-signing-key-3b9e0c7f21';
const SECRET_KEY = newKey();
/** What the test sets in the environment (and restores afterwards). */
const ENV: Record<string, string> = { NOTES_SIGNING_KEY: SIGNING_KEY, TOOLCAP_SECRET_KEY: SECRET_KEY, TOOLCAP_OAUTH_IDP_CLIENT_SECRET: CLIENT_SECRET };
const COMMAND = 'toolcap oauth connect team_notes --service idp';

let as: TestAuthServer;
let root: string;
let config: string;
let server: ChildProcess | undefined;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  as = await startAuthServer();
  root = mkdtempSync(join(tmpdir(), 'toolcap-shinkai-all-'));
  cpSync('examples/shinkai', root, { recursive: true });
  // what the example tells an operator to change: the provider's URLs and the client id
  const point = (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replaceAll('https://idp.example.com', as.issuer).replaceAll('toolcap-team-notes', CLIENTS.post));
  point(join(root, 'tools', 'team-notes', 'metadata.json'));
  point(join(root, 'toolcap.config.yaml'));
  config = join(root, 'toolcap.config.yaml');
  for (const [name, value] of Object.entries(ENV)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});

afterAll(async () => {
  // waited for: the folder is removed below
  await stopChild(server);
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(root, { recursive: true, force: true });
  await as.close();
});

const call = (args: object) => cli('call', 'team_notes', '--config', config, '--args', JSON.stringify(args), '--json');

/** `toolcap oauth connect team_notes`, the test's browser following the URL it prints. */
async function connect(): Promise<{ code: number; stdout: string; stderr: string; page: { status: number; text: string } | undefined }> {
  let stdout = '';
  let stderr = '';
  let page: Promise<{ status: number; text: string }> | undefined;
  const code = await run(['oauth', 'connect', 'team_notes', '--config', config, '--timeout', '20'], {
    stdout: (t) => {
      stdout += t;
      if (t.startsWith('http')) page = browse(t.trim());
    },
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr, page: page ? await page : undefined };
}

/** The stored tokens, opened with the key (a host of its own, closed again). */
async function storedTokens(): Promise<TokenSet & { revision: number }> {
  const toolcap = await createToolcap(config, { mcp: false, warn: () => undefined });
  try {
    const row = (await toolcap.oauth.list('team_notes'))[0]!;
    return { ...(JSON.parse(toolcap.oauth.box().open(row.sealed, 'team_notes\u0000idp')) as TokenSet), revision: row.revision };
  } finally {
    await toolcap.close();
  }
}

/** The signature the tool must have made with the configured key. */
const signature = (author: string, text: string) => createHmac('sha256', SIGNING_KEY).update(`${author}\n${text}`).digest('hex').slice(0, 16);

/** Every row of every table of an SQLite file, as one string. */
function dump(file: string): string {
  const db = openSqlite(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
    return JSON.stringify(tables.map(({ name }) => ({ name, rows: db.prepare(`SELECT * FROM "${name}"`).all() })));
  } finally {
    db.close();
  }
}

/** `toolcap serve` as its own process; resolves to its base URL. */
function serve(): Promise<string> {
  server = spawn(process.execPath, [toolcapChild.file, 'serve', '--config', config, '--port', '0'], { env: { ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise<string>((resolve, reject) => {
    server!.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /at (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    server!.on('close', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}

async function stopServer(): Promise<void> {
  const child = server;
  server = undefined;
  await stopChild(child);
}

describe('examples/shinkai Team Notes: configurations, OAuth and SQL tables end to end', () => {
  it('refuses before connecting, connects, runs through the CLI and the HTTP API, survives a restart and a token expiry', async () => {
    // 1. not connected: refused before it runs, with the command
    let r = await call({ action: 'list' });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', code: 'OAUTH_NOT_CONNECTED', command: COMMAND });
    expect(r.stderr).toContain(`Run: ${COMMAND}`);

    // 2. connect: the URL printed, the browser logs alice in, the listener gets the code
    const c = await connect();
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(new RegExp(`^${as.authorizationUrl.replaceAll('.', '\\.')}\\?.*code_challenge_method=S256`));
    expect(c.page).toMatchObject({ status: 200, text: expect.stringMatching(/toolcap is connected/) });
    expect(c.stderr).toMatch(/connected "team_notes" to idp; the access token expires .* \(refresh token kept\)/);
    const first = await storedTokens();
    expect(first.accessToken).toEqual(expect.any(String));
    expect(first.refreshToken).toEqual(expect.any(String));

    // 3. the CLI: the configuration and the token reach the tool, the note lands in its table with the author from userinfo
    r = await call({ action: 'add', text: 'ship the release notes' });
    expect(r.stderr).not.toContain(SIGNING_KEY);
    expect(r.code).toBe(0);
    const added = JSON.parse(r.stdout);
    expect(added).toMatchObject({
      status: 'ok',
      provider: 'module',
      result: { team: 'research', user: 'alice@example.test', total: 1, notes: [{ author: 'alice@example.test', text: 'ship the release notes', signature: signature('alice@example.test', 'ship the release notes') }] },
    });
    const toolDbs = readdirSync(join(root, '.toolcap', 'tools'));
    expect(toolDbs).toEqual([expect.stringMatching(/^team_notes_[0-9a-f]{8}\.db$/)]);
    const toolDb = join(root, '.toolcap', 'tools', toolDbs[0]!);
    const db = openSqlite(toolDb, { readonly: true });
    expect(db.prepare('SELECT team, author, text FROM team_notes').all()).toEqual([{ team: 'research', author: 'alice@example.test', text: 'ship the release notes' }]);
    db.close();

    // 4. a restart: `toolcap serve` as its own process on the same store folder, called over HTTP
    const url = await serve();
    const post = (args: object) => fetch(`${url}/tools/team_notes/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ arguments: args }) });
    let res = await post({ action: 'list' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', result: { user: 'alice@example.test', total: 1, notes: [{ id: added.result.notes[0].id, author: 'alice@example.test' }] } });
    res = await post({ action: 'add', text: 'book the demo room' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', result: { total: 2, notes: [{ author: 'alice@example.test', signature: signature('alice@example.test', 'book the demo room') }] } });
    res = await post({ action: 'add' });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ code: 'PROVIDER_ERROR', detail: expect.stringMatching(/add needs a non-empty "text"/) });
    const tool = (await (await fetch(`${url}/tools/team_notes`)).json()) as { health: unknown };
    expect(tool.health).toMatchObject({ resultDrift: { mismatches: 0 } });
    await stopServer();

    // 5. the access token expires while nothing runs; the next process refreshes it and sees every note
    const expired = await createToolcap(config, { mcp: false, warn: () => undefined });
    await expired.oauth.save('team_notes', 'idp', { ...(await storedTokens()), expiresAt: new Date(Date.now() - 1000).toISOString() });
    await expired.close();
    const beforeRefresh = await storedTokens();
    r = await call({ action: 'list' });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).result).toMatchObject({ team: 'research', user: 'alice@example.test', total: 2 });
    expect(JSON.parse(r.stdout).result.notes.map((n: { text: string }) => n.text)).toEqual(['ship the release notes', 'book the demo room']);
    const refreshed = await storedTokens();
    expect(refreshed.accessToken).not.toBe(beforeRefresh.accessToken);
    expect(refreshed.revision).toBeGreaterThan(beforeRefresh.revision);
    expect(Date.parse(refreshed.expiresAt!)).toBeGreaterThan(Date.now());

    // 6. the tool really asks userinfo with the token it is handed: revoked at the provider, the call fails there
    // (the refreshed one, so the message can be checked for it)
    await as.revoke(refreshed.accessToken, CLIENTS.post);
    r = await call({ action: 'list' });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'error', code: 'PROVIDER_ERROR', message: expect.stringMatching(/userinfo endpoint answered 401/) });
    expect(r.stdout + r.stderr).not.toContain(refreshed.accessToken);

    // 7. no secret in clear anywhere toolcap wrote
    r = await cli('audit', '--config', config, '--json');
    expect(r.code).toBe(0);
    const audit = (JSON.parse(r.stdout) as { audit: Array<{ kind: string; tool: string }> }).audit;
    expect(audit.filter((a) => a.kind.startsWith('oauth.')).map((a) => `${a.kind} ${a.tool}`)).toEqual(['oauth.connected team_notes']);
    expect(audit.filter((a) => a.tool === 'team_notes').length).toBeGreaterThanOrEqual(5);
    const traces = join(root, '.toolcap', 'traces.jsonl');
    const written = [r.stdout, dump(join(root, '.toolcap', 'toolcap.db')), dump(toolDb), existsSync(traces) ? readFileSync(traces, 'utf8') : ''].join('\n');
    expect(written).toContain('team_notes');
    const secrets = [first.accessToken, first.refreshToken!, beforeRefresh.accessToken, refreshed.accessToken, refreshed.refreshToken!, CLIENT_SECRET, SIGNING_KEY, SECRET_KEY];
    for (const secret of secrets) expect(written).not.toContain(secret);
  }, 120_000);
});
