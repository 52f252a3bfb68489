import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedDispatcher } from '../../../src/runtime/containment/dispatcher.js';
import { EgressGuard, type Resolver } from '../../../src/runtime/containment/egress.js';

let server: Server;
let port: number;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.headers.host ?? ''} ${req.url ?? ''}`);
    if (req.url === '/hop') {
      res.writeHead(302, { location: `http://other.test:${port}/landed` }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

/** A resolver that answers loopback once, then a private address: a rebinding attack. */
function rebinding(): { resolver: Resolver; calls: () => number } {
  let calls = 0;
  const resolver: Resolver = async () => {
    calls++;
    return [{ address: calls === 1 ? '127.0.0.1' : '10.9.9.9', family: 4 }];
  };
  return { resolver, calls: () => calls };
}

describe('guardedDispatcher', () => {
  it('connects to the checked address and keeps the Host header (undici fetch and global fetch)', async () => {
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const dispatcher = guardedDispatcher(new EgressGuard({ allow: ['svc.test', '127.0.0.1'] }, { resolver }));
    const a = await undiciFetch(`http://svc.test:${port}/a`, { dispatcher });
    expect(await a.json()).toEqual({ ok: true });
    const b = await fetch(`http://svc.test:${port}/b`, { dispatcher } as unknown as RequestInit);
    expect(b.status).toBe(200);
    await b.arrayBuffer();
    expect(seen).toEqual(expect.arrayContaining([`svc.test:${port} /a`, `svc.test:${port} /b`]));
    await dispatcher.close();
  });

  it('connects to the address it checked: a rebinding answer is never used, and a new connection is checked again', async () => {
    const { resolver, calls } = rebinding();
    const guard = new EgressGuard({ allow: ['svc.test', '127.0.0.1'] }, { resolver });
    const first = guardedDispatcher(guard);
    expect((await undiciFetch(`http://svc.test:${port}/first`, { dispatcher: first })).status).toBe(200);
    expect(calls()).toBe(1); // one lookup, and the connect went to its answer
    await first.close();
    const second = guardedDispatcher(guard);
    const err = (await undiciFetch(`http://svc.test:${port}/second`, { dispatcher: second }).catch((e: unknown) => e)) as Error;
    expect(err.cause).toMatchObject({ code: 'ADDRESS_NOT_ALLOWED', address: '10.9.9.9' });
    expect(seen.some((s) => s.endsWith('/second'))).toBe(false);
    await second.close();
  });

  it.each([
    ['a loopback answer not listed by address', ['svc.test'], `http://svc.test:PORT/x`, 'ADDRESS_NOT_ALLOWED'],
    ['a host not listed', ['127.0.0.1'], `http://evil.test:PORT/x`, 'HOST_NOT_ALLOWED'],
    ['an IP literal not listed', ['svc.test'], `http://127.0.0.1:PORT/x`, 'ADDRESS_NOT_ALLOWED'],
  ])('refuses %s, with the EgressError as cause', async (_, allow, url, code) => {
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const dispatcher = guardedDispatcher(new EgressGuard({ allow }, { resolver }));
    const before = seen.length;
    const err = (await undiciFetch(url.replace('PORT', String(port)), { dispatcher }).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TypeError);
    expect(err.cause).toMatchObject({ name: 'EgressError', code });
    expect(seen.length).toBe(before); // nothing reached the server
    await dispatcher.close();
  });

  it('checks every redirect hop', async () => {
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const dispatcher = guardedDispatcher(new EgressGuard({ allow: ['svc.test', '127.0.0.1'] }, { resolver }));
    const err = (await undiciFetch(`http://svc.test:${port}/hop`, { dispatcher }).catch((e: unknown) => e)) as Error;
    expect(err.cause).toMatchObject({ code: 'HOST_NOT_ALLOWED', host: 'other.test' });
    expect(seen.some((s) => s.endsWith('/landed'))).toBe(false);
    await dispatcher.close();
  });
});
