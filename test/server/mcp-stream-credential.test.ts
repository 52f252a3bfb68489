/**
 * An MCP session's open `GET /mcp` event stream is held to the credential it
 * was opened with. POSTs were authenticated each time, but the stream is
 * one request that stays open: with its API key revoked, or its access
 * token expired, it kept receiving `list_changed` notices (and would have
 * carried elicitation requests) until the idle sweep, 15 minutes later.
 * Over a real socket (`listen()`), with the real Authenticator: API keys
 * in the SQLite store and tokens from a real OpenID provider.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from '../../src/mcp/http.js';
import { issueApiKey, type KeyGrant } from '../../src/runtime/identity/api-keys.js';
import { Authenticator } from '../../src/runtime/identity/authenticate.js';
import { listen, type RunningServer } from '../../src/server/listen.js';
import type { KeyStore } from '../../src/store/types.js';
import { startIssuer, type TestIssuer } from '../helpers/oidc.js';
import { cleanFolders } from './helpers.js';
import { identityApi, type IdentityApi } from './identity-fixture.js';

const CHEAP = { N: 1024, r: 8, p: 1, keyLength: 32 };
const GRANT: KeyGrant = { principal: 'ops-bot', roles: ['caller'], personas: ['ops'], defaultPersona: 'ops' };
const TOKEN_TTL_SEC = 2;

let issuer: TestIssuer;
let api: IdentityApi;
let server: RunningServer;
let store: IdentityApi['store'] & KeyStore;
let handler: McpHttpHandler | undefined;
const warnings: string[] = [];

beforeAll(async () => {
  issuer = await startIssuer({ ttlSec: TOKEN_TTL_SEC, clients: { 'ops-bot': { roles: ['caller'], personas: ['ops'] } } });
  let authenticator: Authenticator | undefined;
  // fetch cannot send the fixture's Host (toolcap.test): this app serves the bound address (the guard is tested elsewhere)
  api = await identityApi({}, {
    allowedHosts: ['127.0.0.1'],
    auth: { authenticate: (request) => authenticator!.authenticate(request.headers.get('authorization')) },
    mcp: (request, context) => handler!(request, context),
  });
  store = api.store as typeof store;
  authenticator = new Authenticator({ keys: store, config: { oidc: { issuer: issuer.issuer, audience: issuer.audience, clockToleranceSec: 0 } } });
  server = await listen(api.app, { port: 0 });
}, 20_000);
afterEach(async () => {
  await handler?.close();
  handler = undefined;
  warnings.length = 0;
});
afterAll(async () => {
  await server.close();
  await api.close();
  await issuer.close();
  cleanFolders();
});

function useHandler(options: Partial<McpHttpOptions> = {}): McpHttpHandler {
  handler = mcpHttpHandler({ registry: api.registry, runtime: api.runtime, warn: (line) => warnings.push(line), ...options });
  return handler;
}

const newKey = async () => (await issueApiKey(store, GRANT, { params: CHEAP })) as { token: string; record: { id: string } };
const url = () => `http://127.0.0.1:${server.port}/mcp`;
const headers = (credential: string, session?: string) => ({
  authorization: `Bearer ${credential}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
  ...(session ? { 'mcp-session-id': session } : {}),
});

async function initialize(credential: string): Promise<string> {
  const res = await fetch(url(), {
    method: 'POST',
    headers: headers(credential),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const session = res.headers.get('mcp-session-id')!;
  await res.text();
  const note = await fetch(url(), { method: 'POST', headers: headers(credential, session), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  expect(note.status).toBe(202);
  return session;
}

const list = (credential: string, session: string) =>
  fetch(url(), { method: 'POST', headers: headers(credential, session), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });

/** The session's event stream, read as text: `next(ms)` is what arrived within ms, or 'END' once the stream ended. */
async function stream(credential: string, session: string) {
  const controller = new AbortController();
  const res = await fetch(url(), { method: 'GET', headers: { ...headers(credential, session), accept: 'text/event-stream' }, signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let pending: Promise<{ done: boolean; value?: Uint8Array | undefined }> | undefined;
  return {
    /** Text until `until` matches, 'END' when the stream ends first, 'TIMEOUT' after ms. */
    async next(ms: number, until = /\n\n/): Promise<string> {
      const deadline = Date.now() + ms;
      let text = '';
      for (;;) {
        pending ??= reader.read().catch(() => ({ done: true, value: undefined }));
        const left = deadline - Date.now();
        const got = await Promise.race([pending, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), Math.max(0, left)))]);
        if (got === 'timeout') return 'TIMEOUT';
        pending = undefined;
        if (got.done) return 'END';
        text += decoder.decode(got.value);
        if (until.test(text)) return text;
      }
    },
    close: () => controller.abort(),
  };
}

describe('a revoked API key', () => {
  it('ends the event stream before the next notice goes out on it, and the session with it', async () => {
    const mcp = useHandler();
    const { token, record } = await newKey();
    const session = await initialize(token);
    const events = await stream(token, session);
    mcp.notifyAll();
    expect(await events.next(2000, /list_changed/)).toContain('notifications/tools/list_changed');

    await store.revokeKey(record.id, new Date().toISOString());
    // no timer: the default recheck (60 s) is far away; the notice itself checks the key first
    mcp.notifyAll();
    expect(await events.next(2000, /list_changed/)).toBe('END');
    // a revoked key is never renewed: the session is gone too, for another key of the same principal and grants as well
    expect(mcp.sessionCount).toBe(0);
    const other = await newKey();
    expect((await list(other.token, session)).status).toBe(404);
    expect(warnings.join('\n')).toMatch(/its API key no longer authenticates \(REVOKED\)/);
    events.close();
  });

  it('ends a silent stream within the recheck period, nothing sent', async () => {
    const mcp = useHandler({ streamRecheckMs: 200 });
    const { token, record } = await newKey();
    const session = await initialize(token);
    const events = await stream(token, session);
    expect(await events.next(500)).toBe('TIMEOUT');
    await store.revokeKey(record.id, new Date().toISOString());
    expect(await events.next(2000)).toBe('END');
    expect(mcp.sessionCount).toBe(0);
  });

  it('is refused when the stream opens after the revocation (401), and a stream of a valid key stays open', async () => {
    const mcp = useHandler({ streamRecheckMs: 100 });
    const { token, record } = await newKey();
    const session = await initialize(token);
    const events = await stream(token, session);
    expect(await events.next(600)).toBe('TIMEOUT');
    mcp.notifyAll();
    expect(await events.next(2000, /list_changed/)).toContain('list_changed');
    expect(mcp.sessionCount).toBe(1);
    events.close();
    await store.revokeKey(record.id, new Date().toISOString());
    const res = await fetch(url(), { method: 'GET', headers: { ...headers(token, session), accept: 'text/event-stream' } });
    expect(res.status).toBe(401);
    await res.text();
  });
});

describe('an expiring access token', () => {
  it('ends the event stream at its expiry, nothing sent; the session stays for the renewed token', async () => {
    const mcp = useHandler();
    const token = await issuer.token('ops-bot');
    const exp = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp * 1000;
    const session = await initialize(token);
    const events = await stream(token, session);
    // the default recheck is 60 s away: only the token's own exp can end the stream this soon
    expect(await events.next(exp - Date.now() + 3000)).toBe('END');
    expect(Date.now()).toBeGreaterThanOrEqual(exp);
    // POSTs with the expired token are refused; a renewed token (same principal, same grants) keeps the session and its stream
    expect((await list(token, session)).status).toBe(401);
    const fresh = await issuer.token('ops-bot');
    expect((await list(fresh, session)).status).toBe(200);
    expect(mcp.sessionCount).toBe(1);
    const again = await stream(fresh, session);
    mcp.notifyAll();
    expect(await again.next(2000, /list_changed/)).toContain('list_changed');
    again.close();
    expect(warnings).toEqual([]);
  }, 15_000);
});
