// The gateway's inbound hop alone, lane against Hono path: one mcpHttpHandler
// and one session behind two sockets, listen() (the socket lane answers POSTs
// to open sessions) and the bare Hono adapter (the Web-standard path), a local
// tool (examples' text.reverse, a module provider: no upstream hop), the SDK
// client's calls alternated one by one so the machine's noise hits both alike.
// `node bench/mcp-inbound.mjs` (after `npm run build`).
import { createServer } from 'node:http';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Registry } from '../dist/index.js';
import { isolatedSignalFetch } from '../dist/mcp/isolated-fetch.js';
import { mcpHttpHandler } from '../dist/mcp/http.js';
import { ProviderTypes } from '../dist/runtime/providers/provider-types.js';
import { Runtime } from '../dist/runtime/runtime.js';
import { createApi } from '../dist/server/app.js';
import { listen } from '../dist/server/listen.js';
import { openSqliteStore } from '../dist/store/sqlite.js';

const CALLS = Number(process.env.CALLS ?? 3000);
const WARMUP = 300;
const EXAMPLES = fileURLToPath(new URL('../examples/manifests/toolcap', import.meta.url));

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-inbound-'));
  const manifests = join(dir, 'manifests');
  cpSync(EXAMPLES, manifests, { recursive: true });
  const registry = new Registry({ paths: [manifests] });
  await registry.start();
  const store = await openSqliteStore(join(dir, 'toolcap.db'));
  const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => undefined });
  const mcp = mcpHttpHandler({ registry, runtime });
  const options = { runtime, mcp, allowedHosts: ['127.0.0.1'] };
  const lane = await listen(createApi(registry, options), { port: 0 });
  const plain = createServer(getRequestListener(createApi(registry, options).fetch));
  await new Promise((r) => plain.listen(0, '127.0.0.1', r));
  const client = new Client({ name: 'inbound-bench', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${lane.url}/mcp`), { fetch: isolatedSignalFetch() });
  await client.connect(transport);
  // a second session of the same handler, over the plain socket
  const viaPlain = new Client({ name: 'inbound-bench', version: '0' });
  const plainTransport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${plain.address().port}/mcp`), { fetch: isolatedSignalFetch() });
  await viaPlain.connect(plainTransport);
  const call = (c) => async () => {
    const r = await c.callTool({ name: 'text.reverse', arguments: { text: 'inbound' } });
    if (r.isError) throw new Error(JSON.stringify(r).slice(0, 300));
  };
  const legs = { lane: call(client), hono: call(viaPlain) };
  const samples = { lane: [], hono: [] };
  for (let i = 0; i < WARMUP; i++) for (const fn of Object.values(legs)) await fn();
  const load = os.loadavg();
  for (let i = 0; i < CALLS; i++) {
    for (const [name, fn] of i % 2 ? Object.entries(legs) : Object.entries(legs).reverse()) {
      const t = performance.now();
      await fn();
      samples[name].push(performance.now() - t);
    }
  }
  const q = (s, p) => [...s].sort((a, b) => a - b)[Math.floor(p * s.length)];
  console.log(`\n## MCP inbound hop: tools/call of a local tool (text.reverse), SDK client in process, ${CALLS} calls per path alternated one by one`);
  console.log('| path | p50 | p90 | p99 |');
  console.log('| --- | --- | --- | --- |');
  for (const [name, s] of Object.entries(samples)) console.log(`| ${name === 'lane' ? 'listen(): the socket lane' : 'bare Hono adapter: Web-standard path'} | ${q(s, 0.5).toFixed(3)} ms | ${q(s, 0.9).toFixed(3)} ms | ${q(s, 0.99).toFixed(3)} ms |`);
  console.log(`lane saves ${(q(samples.hono, 0.5) - q(samples.lane, 0.5)).toFixed(3)} ms at p50; load average ${load.map((l) => l.toFixed(1)).join(' ')} -> ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await client.close();
  await viaPlain.close();
  await mcp.close();
  await lane.close();
  plain.closeAllConnections();
  await new Promise((r) => plain.close(r));
  await runtime.close();
  await registry.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
