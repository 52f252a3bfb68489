/**
 * One connection per Streamable HTTP upstream, reused for every call, and no
 * abort-listener build-up on it: McpClients against the real everything
 * server, 80 calls, counting the abort listeners each AbortSignal holds at
 * the end (the SDK transport's shared signal held one per call before
 * isolated-fetch.ts). The same calls through a bare SDK transport show the
 * build-up the test would catch. The requests go out on undici's request()
 * rather than fetch (lean-fetch.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpClients } from '../../src/mcp/clients.js';
import { mcpConfig, removeTemps, serverConfig, startEverythingHttp, tempDir } from './helpers.js';

const CALLS = 80;

/** Net abort listeners per signal while `work` runs: adds minus removes, the largest one left at the end. */
async function mostListenersLeft(work: () => Promise<void>): Promise<number> {
  const net = new Map<EventTarget, number>();
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  const remove = proto.removeEventListener;
  proto.addEventListener = function (this: EventTarget, type: string, ...rest: unknown[]) {
    if (type === 'abort' && this instanceof AbortSignal) net.set(this, (net.get(this) ?? 0) + 1);
    return (add as (...a: unknown[]) => void).call(this, type, ...rest);
  } as typeof proto.addEventListener;
  proto.removeEventListener = function (this: EventTarget, type: string, ...rest: unknown[]) {
    if (type === 'abort' && this instanceof AbortSignal && net.has(this)) net.set(this, (net.get(this) ?? 1) - 1);
    return (remove as (...a: unknown[]) => void).call(this, type, ...rest);
  } as typeof proto.removeEventListener;
  try {
    await work();
  } finally {
    proto.addEventListener = add;
    proto.removeEventListener = remove;
  }
  // listeners undici leaves until garbage collection are not removed here: a collection could run in between, so only
  // signals still reachable (net.keys) are counted, and the bound below is far under CALLS
  return Math.max(0, ...net.values());
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((s) => s()));
});
afterAll(removeTemps);

describe('a Streamable HTTP upstream', () => {
  it(`keeps one connection and leaves no abort listener per call on it (${CALLS} calls)`, { timeout: 60_000 }, async () => {
    const http = await startEverythingHttp();
    stops.push(http.stop);
    const c = new McpClients(mcpConfig([serverConfig('web', { transport: 'http', url: http.url })]), { cacheDir: tempDir() });
    stops.push(() => c.close());
    await c.start();
    expect(c.status()[0]).toMatchObject({ state: 'up' });
    const left = await mostListenersLeft(async () => {
      for (let i = 0; i < CALLS; i++) {
        expect(await c.callTool('web', 'echo', { message: `call ${i}` }, new AbortController().signal)).toEqual({ content: [{ type: 'text', text: `Echo: call ${i}` }] });
      }
    });
    expect(left).toBeLessThanOrEqual(2);
    // still the same connection: up, never reconnected
    expect(c.status()[0]).toMatchObject({ state: 'up' });
  });

  it('a bare SDK transport gathers a listener per call on its shared signal (what the test above would catch)', { timeout: 60_000 }, async () => {
    const http = await startEverythingHttp();
    stops.push(http.stop);
    const client = new Client({ name: 'bare', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    stops.push(() => client.close());
    const left = await mostListenersLeft(async () => {
      for (let i = 0; i < CALLS; i++) await client.callTool({ name: 'echo', arguments: { message: 'x' } });
    });
    // undici drops them only when a request is collected, so some may be gone already: far more than two stay
    expect(left).toBeGreaterThan(10);
  });

  it('sends its requests on undici request(), not WHATWG fetch (lean-fetch.ts), and the answers are the same', { timeout: 60_000 }, async () => {
    const http = await startEverythingHttp();
    stops.push(http.stop);
    const c = new McpClients(mcpConfig([serverConfig('web', { transport: 'http', url: http.url })]), { cacheDir: tempDir() });
    stops.push(() => c.close());
    const real = globalThis.fetch;
    let fetched = 0;
    globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
      fetched++;
      return real(...args);
    }) as typeof fetch;
    try {
      await c.start();
      expect(c.status()[0]).toMatchObject({ state: 'up' });
      for (let i = 0; i < 5; i++) expect(await c.callTool('web', 'echo', { message: `call ${i}` }, new AbortController().signal)).toEqual({ content: [{ type: 'text', text: `Echo: call ${i}` }] });
    } finally {
      globalThis.fetch = real;
    }
    expect(fetched).toBe(0);
  });
});
