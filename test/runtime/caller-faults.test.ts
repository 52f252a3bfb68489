/**
 * The circuit breaker counts only provider faults. A caller that sends input
 * the provider refuses (HTTP 4xx, an MCP tool error) gets TOOL_REJECTED and
 * cannot trip the tool for everyone; connection failures and 5xx still open
 * the circuit. Runs the real `http` provider against a real local server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { ProviderError, providerFault } from '../../src/runtime/providers/types.js';
import { callErrorWire } from '../../src/runtime/errors.js';
import { closeAll, expectCode, fakeTool, harness } from './helpers.js';

afterEach(closeAll);

let server: Server;
/** The test servers listen on loopback, which the egress policy refuses unless listed. */
const LOOPBACK = { egress: { allow: ['127.0.0.1'] } };
let base: string;
/** What the server answers now: a status for bad input, and whether it is down (500). */
const state = { down: false };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const args = JSON.parse(body || '{}') as { n?: unknown };
      res.setHeader('content-type', 'application/json');
      if (state.down) return void res.writeHead(500).end(JSON.stringify({ error: 'down' }));
      if (typeof args.n !== 'number') return void res.writeHead(422).end(JSON.stringify({ error: 'n must be a number' }));
      res.writeHead(200).end(JSON.stringify({ double: args.n * 2 }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const httpTool = (baseUrl: string) =>
  fakeTool('math.double', {
    providers: [{ name: 'api', priority: 0, config: { type: 'http', baseUrl, method: 'POST', path: '/double' } }],
  });

describe('providerFault: whose fault a failure is', () => {
  it.each([
    [400, undefined, 'caller'],
    [404, undefined, 'caller'],
    [422, undefined, 'caller'],
    [499, undefined, 'caller'],
    [408, undefined, 'provider'],
    [425, undefined, 'provider'],
    [429, undefined, 'provider'],
    [500, undefined, 'provider'],
    [503, undefined, 'provider'],
    [1, undefined, 'provider'], // a process exit code
    [-32602, undefined, 'provider'], // a JSON-RPC error answer
    [undefined, { isError: true, content: [] }, 'caller'], // an MCP tool result with isError
    [undefined, { isError: false }, 'provider'],
    [undefined, undefined, 'provider'], // connection refused, DNS, crash
  ] as const)('status %s, detail %j -> %s', (status, detail, fault) => {
    expect(providerFault(status, detail)).toBe(fault);
    expect(new ProviderError('PROVIDER_ERROR', 'x', false, { ...(status !== undefined ? { status } : {}), detail }).fault).toBe(fault);
  });

  it('an abort is never the caller\'s fault', () => {
    expect(new ProviderError('ABORTED', 'aborted', false, { status: 400 }).fault).toBe('provider');
  });
});

describe('the circuit breaker and caller faults', () => {
  it('800 calls the provider rejects with a 4xx leave the circuit closed, and a legitimate call then succeeds', async () => {
    state.down = false;
    const h = await harness([httpTool(base)], { providers: new ProviderTypes(), environment: LOOPBACK });
    for (let i = 0; i < 800; i++) {
      const e = await expectCode(h.runtime.call('math.double', { n: 'not a number' }), 'TOOL_REJECTED');
      if (i === 0) {
        expect(e.status).toBe(422);
        expect(e.message).toMatch(/HTTP 422/);
        expect(callErrorWire(e)).toMatchObject({ status: 422, code: 'TOOL_REJECTED' });
      }
    }
    expect(h.runtime.health.circuit('math.double', 'api')).toMatchObject({ consecutiveFailures: 0, backoffUntil: 0, probing: false });
    // rejected input says nothing about the tool's health either
    expect(h.runtime.health.lookup('math.double')).toBeUndefined();
    const good = await h.runtime.call('math.double', { n: 21 });
    expect(good).toMatchObject({ status: 'ok', provider: 'api', result: { double: 42 } });
    await h.flush();
    const calls = await h.sqlite.listCalls({ limit: 2000 });
    expect(calls.filter((c) => c.errorCode === 'TOOL_REJECTED')).toHaveLength(800);
    // a restart does not count them as failures either
    const restarted = h.another();
    await restarted.loadHealth();
    expect(restarted.health.lookup('math.double')).toMatchObject({ calls: 1, successRate: 1 });
  }, 60_000);

  it('5xx answers still open the circuit', async () => {
    state.down = true;
    try {
      const h = await harness([httpTool(base)], { providers: new ProviderTypes(), environment: LOOPBACK });
      await expectCode(h.runtime.call('math.double', { n: 1 }), 'PROVIDER_ERROR');
      expect(h.runtime.health.circuit('math.double', 'api').consecutiveFailures).toBe(1);
      expect(h.runtime.health.circuit('math.double', 'api').backoffUntil).toBeGreaterThan(h.clock.now);
      await expectCode(h.runtime.call('math.double', { n: 1 }), 'NO_HEALTHY_PROVIDER');
    } finally {
      state.down = false;
    }
  });

  it('connection failures still open the circuit', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const h = await harness([httpTool(`http://127.0.0.1:${port}`)], { providers: new ProviderTypes(), environment: LOOPBACK });
    await expectCode(h.runtime.call('math.double', { n: 1 }), 'PROVIDER_ERROR');
    expect(h.runtime.health.circuit('math.double', 'api').consecutiveFailures).toBeGreaterThan(0);
    expect(h.runtime.health.circuit('math.double', 'api').backoffUntil).toBeGreaterThan(h.clock.now);
    await expectCode(h.runtime.call('math.double', { n: 1 }), 'NO_HEALTHY_PROVIDER');
  });

  it('a caller fault is not retried and does not fail over: the same input would be refused again', async () => {
    const h = await harness([fakeTool('t.x', { execution: { timeoutSec: 5, retryClass: 'safe', allowParallel: true }, providers: [{ name: 'a', priority: 0, config: { type: 'fake' } }, { name: 'b', priority: 1, config: { type: 'fake' } }] })]);
    h.fakes.on('a', async () => {
      throw new ProviderError('PROVIDER_ERROR', 'MCP tool said: bad input', false, { detail: { isError: true, content: [{ type: 'text', text: 'bad input' }] } });
    });
    const e = await expectCode(h.runtime.call('t.x', {}), 'TOOL_REJECTED');
    expect(e.message).toMatch(/bad input/);
    expect(h.fakes.order('t.x')).toEqual(['a']);
    expect(h.runtime.health.circuit('t.x', 'a').consecutiveFailures).toBe(0);
  });

  it('a caller fault during a half-open probe gives the probe slot back without closing the circuit', async () => {
    const h = await harness([fakeTool('t.y')]);
    h.fakes.on('p1', async () => {
      throw new ProviderError('PROVIDER_ERROR', 'boom', false, { status: 503 });
    });
    await expectCode(h.runtime.call('t.y', {}), 'PROVIDER_ERROR');
    const open = h.runtime.health.circuit('t.y', 'p1');
    h.clock.tick(open.backoffUntil - h.clock.now + 1);
    h.fakes.on('p1', async () => {
      throw new ProviderError('PROVIDER_ERROR', 'bad', false, { status: 400 });
    });
    await expectCode(h.runtime.call('t.y', {}), 'TOOL_REJECTED');
    expect(h.runtime.health.circuit('t.y', 'p1')).toMatchObject({ consecutiveFailures: 1, probing: false });
    h.fakes.on('p1', async () => 'fine');
    expect(await h.runtime.call('t.y', {})).toMatchObject({ status: 'ok', result: 'fine' });
    expect(h.runtime.health.circuit('t.y', 'p1')).toMatchObject({ consecutiveFailures: 0, backoffUntil: 0 });
  });
});
