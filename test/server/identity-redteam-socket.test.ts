/**
 * The red team's raw requests over a real socket (`listen()`), where Node's
 * parser and Hono's adapter see them before the app does: an absolute-form
 * target naming another host got through the Host check (fixed in
 * host-guard.ts), and a Host or target the adapter cannot make a URL of was
 * answered 500 INTERNAL, a "toolcap bug" (now 421 or 404, listen.ts). The
 * rest held: NUL and folded headers, two Host or Authorization headers.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type RunningServer } from '../../src/server/listen.js';
import { cleanFolders } from './helpers.js';
import { HOST } from './identity-fixture.js';
import { redteamApi, type RedteamApi } from './redteam-fixture.js';

let api: RedteamApi;
let server: RunningServer;
beforeAll(async () => {
  api = await redteamApi();
  server = await listen(api.app, { port: 0 });
});
afterAll(async () => {
  await server.close();
  await api.close();
  cleanFolders();
});

/** Send bytes as they are; resolve with the status and the body's problem code (if any). */
function raw(text: string): Promise<{ status: number; code: string | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let out = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0);
      const code = /"code":"([A-Z_]+)"/.exec(out)?.[1];
      resolve({ status, code });
    });
    // no FIN of ours: Node ends a half-closed connection before a slow answer (a first scrypt check) is written
    socket.write(text);
  });
}

const GOOD = `Host: ${HOST}`;
/** A request: the request line, headers, and the admin key unless told otherwise. */
const request = (line: string, headers: string[], key: 'admin' | 'none' = 'admin') =>
  [line, ...headers, ...(key === 'admin' ? [`Authorization: Bearer ${api.keys.admin.token}`] : []), 'Connection: close', '', ''].join('\r\n');

type Row = [label: string, build: () => string, status: number, code?: string];
const ROWS: Row[] = [
  // got through: the Host header was checked, the target's authority was not
  ['absolute-form target of another host', () => request('GET http://evil.example/audit HTTP/1.1', [GOOD]), 421, 'MISDIRECTED_REQUEST'],
  ['absolute-form target of 127.0.0.1', () => request(`GET http://127.0.0.1:${server.port}/audit HTTP/1.1`, [GOOD]), 421, 'MISDIRECTED_REQUEST'],
  ['absolute-form target with userinfo', () => request(`GET http://x@${HOST}:${server.port}/audit HTTP/1.1`, [GOOD]), 200],
  ['absolute-form target with userinfo of another host', () => request(`GET http://${HOST}@evil.example/audit HTTP/1.1`, [GOOD]), 421, 'MISDIRECTED_REQUEST'],
  ['absolute-form target of this host', () => request(`GET http://${HOST}/audit HTTP/1.1`, [GOOD]), 200],
  // were 500 INTERNAL
  ['Host with userinfo after the port', () => request('GET /audit HTTP/1.1', [`Host: ${HOST}:80@evil`]), 421, 'MISDIRECTED_REQUEST'],
  ['Host with a path', () => request('GET /audit HTTP/1.1', [`Host: ${HOST}/x`]), 421, 'MISDIRECTED_REQUEST'],
  ['Host with a query', () => request('GET /audit HTTP/1.1', [`Host: ${HOST}?`]), 421, 'MISDIRECTED_REQUEST'],
  ['Host with a fragment', () => request('GET /audit HTTP/1.1', [`Host: ${HOST}#`]), 421, 'MISDIRECTED_REQUEST'],
  ['HTTP/1.0 without Host', () => request('GET /audit HTTP/1.0', []), 421, 'MISDIRECTED_REQUEST'],
  ['HTTP/1.0 without Host, public route', () => request('GET /health HTTP/1.0', [], 'none'), 421, 'MISDIRECTED_REQUEST'],
  ['OPTIONS *', () => request('OPTIONS * HTTP/1.1', [GOOD], 'none'), 404, 'NOT_FOUND'],
  ['a backslash path to audit as a caller', () => request('GET /tools\\..\\audit HTTP/1.1', [GOOD], 'none'), 404, 'NOT_FOUND'],
  // held
  ['the key with a NUL', () => request('GET /audit HTTP/1.1', [GOOD, `Authorization: Bearer ${api.keys.admin.token}\u0000`], 'none'), 400],
  ['the key folded onto a second line', () => request('GET /audit HTTP/1.1', [GOOD, 'Authorization: Bearer', ` ${api.keys.admin.token}`], 'none'), 400],
  ['the key with trailing spaces and a tab', () => request('GET /audit HTTP/1.1', [GOOD, `Authorization: Bearer ${api.keys.admin.token}  \t`], 'none'), 200],
  ['two Authorization headers, caller then admin', () => request('GET /audit HTTP/1.1', [GOOD, `Authorization: Bearer ${api.keys.intern.token}`]), 401, 'UNAUTHENTICATED'],
  ['two Host headers, allowed first', () => request('GET /audit HTTP/1.1', [GOOD, 'Host: evil.example']), 421, 'MISDIRECTED_REQUEST'],
  ['two Host headers, allowed second', () => request('GET /audit HTTP/1.1', ['Host: evil.example', GOOD]), 421, 'MISDIRECTED_REQUEST'],
  ['X-Forwarded-Host with another Host', () => request('GET /audit HTTP/1.1', ['Host: evil.example', `X-Forwarded-Host: ${HOST}`]), 421, 'MISDIRECTED_REQUEST'],
  ['an unknown method', () => request('FOO /audit HTTP/1.1', [GOOD]), 400],
  ['a target without a slash', () => request('GET audit HTTP/1.1', [GOOD]), 400],
  ['//audit as a path', () => request('GET //audit HTTP/1.1', [GOOD]), 404, 'NOT_FOUND'],
  ['//evil.example/audit as a path', () => request('GET //evil.example/audit HTTP/1.1', [GOOD]), 404, 'NOT_FOUND'],
];

describe('raw requests over a socket', () => {
  it.each(ROWS)('%s', async (_label, build, status, code) => {
    const got = await raw(build());
    expect(got.status).toBe(status);
    if (code) expect(got.code).toBe(code);
  });
});
