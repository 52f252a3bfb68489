// MCP gateway benchmark: `tools/call` of the everything server's `echo` tool
// through toolcap's gateway (SDK client -> Streamable HTTP -> mcpHttpHandler
// -> runtime.call -> McpClients -> Streamable HTTP -> everything server)
// against an SDK client calling the same server directly, same transport
// (Streamable HTTP), same run. Calls are sequential; the legs are
// interleaved in rounds so the machine's noise hits all of them alike.
// A third leg, `runtime.call` on the same runtime without the gateway in
// front, splits the added time into the runtime's share and the gateway's
// (the second HTTP hop, the SDK server, result shaping); a fourth, the
// same runtime over SQLite with synchronous=normal, shows the fsync's share,
// and a fifth, a gateway over that store (`store.synchronous: normal`, the
// explicit opt-out). echo carries `readOnlyHint: true`, so toolcap reads it
// as `mode: read`: the call waits for no store commit, its record is written
// behind the answer; what `full` cost it was that commit's fsync holding the
// event loop (the next call waited), which the store now runs on the thread
// pool (src/store/wal-sync.ts).
// Aim (issue): under 1 ms added at p50.
// The in-process legs put mcpHttpHandler on the Hono Node adapter as a
// library user may, without `listen()`: they take the Web-standard path.
// `toolcap serve` (the served legs) answers POSTs to open sessions on the
// socket lane (src/server/mcp-lane.ts). The served legs also call get-sum,
// declared a write by the served catalog, so its call waits for the commit
// of its record: the cost of a call that may write.
//
// Second part: the bytes an agent's context pays for the tool list. The
// GitHub MCP server's 114 tool definitions (../shared/corpus/mcp-github-server)
// loaded as a catalog and served by the gateway in full mode and in search
// mode: the JSON of every `tools/list` result (all pages) as the server sends
// it, and of search answers (the whole CallToolResult, and its text alone).
import { spawn } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { getRequestListener } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { PassThrough } from 'node:stream';
import { isolatedSignalFetch } from '../dist/mcp/isolated-fetch.js';
import { Registry } from '../dist/index.js';
import { McpClients } from '../dist/mcp/clients.js';
import { MCP_DEFAULTS } from '../dist/mcp/config.js';
import { mcpHttpHandler } from '../dist/mcp/http.js';
import { createApi } from '../dist/server/app.js';
import { listen } from '../dist/server/listen.js';
import { createGatewayServer } from '../dist/mcp/server.js';
import { ProviderTypes } from '../dist/runtime/providers/provider-types.js';
import { Runtime } from '../dist/runtime/runtime.js';
import { openSqliteStore } from '../dist/store/sqlite.js';
import { fmt } from './stats.mjs';

const WARMUP = 200;
const CALLS = 2_000;
const ROUNDS = 4; // CALLS / ROUNDS calls per leg per round, legs interleaved
const ECHO = { message: 'hello from the toolcap bench' };
const TOOL = 'mcp.everything.echo';
/** A call that may write: the everything server's get-sum, declared `effects.mode: write` by the served catalog's reviewed layer. */
const WRITE_TOOL = 'mcp.everything.get-sum';
const SUM = { a: 19, b: 23 };
const GITHUB_TOOLS = fileURLToPath(new URL('../../shared/corpus/mcp-github-server/tools.json', import.meta.url));
/** Tasks as an agent would put them to the GitHub tools, for the search answers measured. */
const SEARCHES = ['create a new issue in a repository', 'which pull requests are open', 'delete a file', 'list the workflow runs of a repository', 'add a comment to a pull request'];
const EVERYTHING = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The everything server over Streamable HTTP, as the tests start it (PORT env var). */
async function startEverything() {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const deadline = Date.now() + 20_000;
  while (!output.includes(`port ${port}`) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (!output.includes(`port ${port}`)) {
    child.kill('SIGKILL');
    throw new Error(`the everything server did not start: ${output.slice(-500)}`);
  }
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid, stop };
}

/**
 * CPU time (user + system, all threads) process `pid` has used so far, in
 * ms, from /proc (Linux; undefined elsewhere). Ticks of 10 ms: read over a
 * block of hundreds of calls, not one.
 */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
/** USER_HZ: the unit of /proc/<pid>/stat times (100 on Linux on every architecture Node runs on). */
const CLOCK_TICKS = 100;

// both bench clients use toolcap's per-request-signal fetch (as McpClients does), so neither leg
// pays the SDK transport's abort-listener build-up (src/mcp/isolated-fetch.ts)
async function sdkClient(url) {
  const client = new Client({ name: 'toolcap-bench', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: isolatedSignalFetch() }));
  return client;
}

/** A client transport over two in-process streams (the gateway's stdio, without a process between). */
class StreamClientTransport {
  #buffer = new ReadBuffer();
  constructor(input, output) {
    this.input = input;
    this.output = output;
  }
  async start() {
    this.input.on('data', (chunk) => {
      this.#buffer.append(chunk);
      for (let m = this.#buffer.readMessage(); m !== null; m = this.#buffer.readMessage()) this.onmessage?.(m);
    });
  }
  async send(message) {
    this.output.write(serializeMessage(message));
  }
  async close() {
    this.input.removeAllListeners('data');
    this.onclose?.();
  }
}

function mcpConfig(url) {
  return {
    enabled: true,
    allowTools: [],
    denyTools: [],
    servers: [
      {
        name: 'everything',
        transport: 'http',
        url,
        args: [],
        env: {},
        headers: {},
        allowTools: [],
        denyTools: [],
        healthCheckIntervalSec: 300,
        defaults: { ...MCP_DEFAULTS },
        location: { file: 'bench/mcp.mjs' },
      },
    ],
  };
}

const summed = (result) => {
  if (result?.isError || !JSON.stringify(result?.content ?? '').includes('42')) throw new Error(`unexpected get-sum result: ${JSON.stringify(result).slice(0, 400)}`);
};

const echoed = (result) => {
  const text = result?.content?.[0]?.text;
  if (result?.isError || typeof text !== 'string' || !text.includes(ECHO.message)) throw new Error(`unexpected echo result: ${JSON.stringify(result).slice(0, 400)}`);
};

function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  const total = s.reduce((a, b) => a + b, 0);
  return { p50: at(0.5), p99: at(0.99), mean: total / s.length, perSec: (s.length / total) * 1000, n: s.length };
}

async function timeCalls(fn, n, into) {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    into.push(performance.now() - t0);
  }
}

/** A client connected in memory to a gateway, and the JSON size of every result the server sent it (bytes of UTF-8). */
async function measuredClient(gateway) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.server.connect(serverSide);
  const client = new Client({ name: 'toolcap-bench', version: '0' });
  await client.connect(clientSide);
  const sizes = [];
  const deliver = clientSide.onmessage;
  clientSide.onmessage = (message, extra) => {
    if ('result' in message) sizes.push(Buffer.byteLength(JSON.stringify(message.result), 'utf8'));
    deliver?.(message, extra);
  };
  return { client, lastBytes: () => sizes.at(-1) ?? 0 };
}

/** Every page of tools/list: tool count, pages and the bytes of all results. */
async function listBytes({ client, lastBytes }) {
  let bytes = 0;
  let tools = 0;
  let pages = 0;
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    bytes += lastBytes();
    tools += page.tools.length;
    pages++;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { bytes, tools, pages };
}

const kb = (n) => `${n.toLocaleString('en-US')} B (${fmt(n / 1024, 1)} KiB)`;

/** tools/list of the GitHub MCP server's 114 tools in full and in search mode, and search answers. */
async function toolListBytes() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-mcp-bytes-'));
  let registry;
  let store;
  let runtime;
  const gateways = [];
  try {
    registry = new Registry({ paths: [GITHUB_TOOLS] });
    const started = await registry.start();
    if (started.kind !== 'reloaded') throw new Error(`the GitHub catalog did not build: ${JSON.stringify(started.diagnostics?.slice(0, 3))}`);
    store = await openSqliteStore(join(dir, 'toolcap.db'));
    runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => undefined });
    const open = async (tools) => {
      const gateway = createGatewayServer({ registry, runtime, tools });
      gateways.push(gateway);
      return measuredClient(gateway);
    };
    const full = await listBytes(await open('full'));
    const searching = await open('search');
    const search = await listBytes(searching);
    const answers = [];
    for (const query of SEARCHES) {
      const result = await searching.client.callTool({ name: 'toolcap_search_tools', arguments: { query } });
      if (result.isError) throw new Error(`search failed: ${JSON.stringify(result).slice(0, 300)}`);
      answers.push({ query, bytes: searching.lastBytes(), text: Buffer.byteLength(result.content[0].text, 'utf8'), matches: result.structuredContent.matches.length });
    }
    const afterFirst = await open('search');
    await afterFirst.client.callTool({ name: 'toolcap_search_tools', arguments: { query: SEARCHES[0] } });
    const listedAfter = await listBytes(afterFirst);
    const grown = await listBytes(searching);

    console.log(`\n## MCP tools/list bytes: the GitHub MCP server's ${full.tools} tool definitions as a toolcap catalog (JSON of each tools/list result as sent, all pages)`);
    console.log('| gateway mode | tools listed | pages | bytes | ratio to full |');
    console.log('| --- | --- | --- | --- | --- |');
    console.log(`| full (default) | ${full.tools} | ${full.pages} | ${kb(full.bytes)} | 1.00x |`);
    console.log(`| search, before any search | ${search.tools} | ${search.pages} | ${kb(search.bytes)} | ${(search.bytes / full.bytes).toFixed(3)}x |`);
    console.log(`| search, after one search (5 found) | ${listedAfter.tools} | ${listedAfter.pages} | ${kb(listedAfter.bytes)} | ${(listedAfter.bytes / full.bytes).toFixed(3)}x |`);
    console.log(`| search, after ${SEARCHES.length} searches (last 20 found kept) | ${grown.tools} | ${grown.pages} | ${kb(grown.bytes)} | ${(grown.bytes / full.bytes).toFixed(3)}x |`);
    console.log('\n| toolcap_search_tools answer (limit 5, the default) | matches | whole result | its text alone |');
    console.log('| --- | --- | --- | --- |');
    for (const a of answers) console.log(`| "${a.query}" | ${a.matches} | ${kb(a.bytes)} | ${kb(a.text)} |`);
    const sorted = answers.map((a) => a.bytes).sort((x, y) => x - y);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(`typical (median) search answer: ${kb(median)}; tools/list in search mode plus one such answer: ${kb(search.bytes + median)}, ${(((search.bytes + median) / full.bytes) * 100).toFixed(1)}% of the full list`);
  } finally {
    for (const g of gateways) await g.close().catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    await registry?.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The same call with the upstream over stdio: an SDK client talking to the
 * everything server (a child process, stdio) directly, against toolcap's
 * gateway served over stdio streams (in-process pipes: the client's side of
 * the hop costs no process boundary here) -> runtime.call -> McpClients over
 * stdio -> the same kind of child.
 */
async function stdioLegs() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-mcp-stdio-'));
  const cacheDir = join(dir, 'cache');
  const reviewedDir = join(dir, 'reviewed');
  let direct;
  let clients;
  let registry;
  let store;
  let runtime;
  let gateway;
  let viaGateway;
  let storeNormal;
  let runtimeNormal;
  let gatewayNormal;
  let viaGatewayNormal;
  try {
    for (const d of [cacheDir, reviewedDir]) mkdirSync(d, { recursive: true });
    writeFileSync(join(reviewedDir, 'echo.json'), JSON.stringify({ toolcap: 1, tools: [{ name: TOOL, approval: { consent: false } }] }, null, 2));
    direct = new Client({ name: 'toolcap-bench', version: '0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
    const config = mcpConfig('unused');
    config.servers[0] = { ...config.servers[0], transport: 'stdio', url: undefined, command: process.execPath, args: [EVERYTHING, 'stdio'] };
    clients = new McpClients(config, { cacheDir, warn: (m) => console.error(`mcp: ${m}`) });
    await clients.start();
    const status = clients.status().find((x) => x.server === 'everything');
    if (status?.state !== 'up') throw new Error(`McpClients (stdio) did not connect: ${JSON.stringify(status)}`);
    registry = new Registry({ paths: [{ path: cacheDir, discovered: true }, reviewedDir] });
    const started = await registry.start();
    if (started.kind !== 'reloaded') throw new Error(`the stdio catalog did not build: ${JSON.stringify(started.diagnostics?.slice(0, 3))}`);
    store = await openSqliteStore(join(dir, 'toolcap.db'));
    runtime = new Runtime({ registry, store, providers: new ProviderTypes({ mcpConnector: clients }), onWarning: (m) => console.error(`runtime: ${m}`) });
    gateway = createGatewayServer({ registry, runtime });
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    await gateway.server.connect(new StdioServerTransport(toServer, fromServer));
    viaGateway = new Client({ name: 'toolcap-bench', version: '0' });
    await viaGateway.connect(new StreamClientTransport(fromServer, toServer));
    // the same gateway over a store with synchronous=normal (store.synchronous: normal)
    storeNormal = await openSqliteStore(join(dir, 'toolcap-normal.db'), { synchronous: 'normal' });
    runtimeNormal = new Runtime({ registry, store: storeNormal, providers: new ProviderTypes({ mcpConnector: clients }), onWarning: (m) => console.error(`runtime: ${m}`) });
    gatewayNormal = createGatewayServer({ registry, runtime: runtimeNormal });
    const toNormal = new PassThrough();
    const fromNormal = new PassThrough();
    await gatewayNormal.server.connect(new StdioServerTransport(toNormal, fromNormal));
    viaGatewayNormal = new Client({ name: 'toolcap-bench', version: '0' });
    await viaGatewayNormal.connect(new StreamClientTransport(fromNormal, toNormal));
    const legs = {
      direct: async () => echoed(await direct.callTool({ name: 'echo', arguments: ECHO })),
      runtime: async () => {
        const r = await runtime.call(TOOL, ECHO);
        if (r.status !== 'ok') throw new Error(`runtime.call (stdio): ${r.status} ${JSON.stringify(r).slice(0, 300)}`);
      },
      gateway: async () => echoed(await viaGateway.callTool({ name: TOOL, arguments: ECHO })),
      gatewayNormal: async () => echoed(await viaGatewayNormal.callTool({ name: TOOL, arguments: ECHO })),
    };
    const samples = { direct: [], runtime: [], gateway: [], gatewayNormal: [] };
    for (const fn of Object.values(legs)) await timeCalls(fn, WARMUP, []);
    for (let round = 0; round < ROUNDS; round++) for (const [name, fn] of Object.entries(legs)) await timeCalls(fn, CALLS / ROUNDS, samples[name]);
    const d = summary(samples.direct);
    const r = summary(samples.runtime);
    const g = summary(samples.gateway);
    const gn = summary(samples.gatewayNormal);
    console.log(`\n## MCP gateway over stdio: tools/call of the everything server's echo, upstream over stdio, ${CALLS} sequential calls per leg after ${WARMUP} warm-up (${ROUNDS} interleaved rounds)`);
    console.log('| path | p50 | p99 | mean | calls/s | added at p50 | added at p99 | p50 ratio to direct |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    const row = (name, x, base) =>
      console.log(`| ${name} | ${fmt(x.p50, 3)} ms | ${fmt(x.p99, 3)} ms | ${fmt(x.mean, 3)} ms | ${fmt(x.perSec, 0)} | ${base ? `${fmt(x.p50 - base.p50, 3)} ms` : '-'} | ${base ? `${fmt(x.p99 - base.p99, 3)} ms` : '-'} | ${base ? `${(x.p50 / base.p50).toFixed(2)}x` : '1.00x'} |`);
    row('SDK Client -> everything server over stdio (baseline)', d, undefined);
    row(`runtime.call('${TOOL}') -> McpClients -> everything server over stdio`, r, d);
    row('SDK Client -> toolcap gateway over stdio streams -> runtime.call -> McpClients -> everything server over stdio', g, d);
    row('same gateway, store.synchronous: normal', gn, d);
    console.log(`stdio: gateway adds ${fmt(g.p50 - d.p50, 3)} ms at p50, ${fmt(g.p99 - d.p99, 3)} ms at p99 (runtime.call ${fmt(r.p50 - d.p50, 3)} ms at p50); with store.synchronous: normal ${fmt(gn.p50 - d.p50, 3)} ms at p50, ${fmt(gn.p99 - d.p99, 3)} ms at p99; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await viaGateway?.close().catch(() => undefined);
    await viaGatewayNormal?.close().catch(() => undefined);
    await gateway?.close().catch(() => undefined);
    await gatewayNormal?.close().catch(() => undefined);
    await runtimeNormal?.close().catch(() => undefined);
    await storeNormal?.close().catch(() => undefined);
    await direct?.close().catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    await clients?.close().catch(() => undefined);
    await registry?.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The gateway as its own process, as it is deployed: `toolcap serve` (its
 * /mcp route, local mode) in front of the same everything server, once with
 * the default store (synchronous=full) and once with `store.synchronous:
 * normal`, against the direct call; the bench process only runs the client,
 * so the gateway does not share its event loop with the caller (the legs
 * above measure it in process). Legs interleaved as above. Each leg also
 * reports the CPU time its server process spent per call (user + system,
 * all threads, from /proc, read around each block of calls): the toolcap
 * serve child for the served legs, the everything server for the direct
 * ones. On a machine shared with the client and the upstream, wall time is
 * partly waiting for a core; CPU time is what the gateway costs the host,
 * its write-behind record and WAL sync included.
 */
async function servedLegs(everythingUrl, everythingPid) {
  const BIN = fileURLToPath(new URL('../bin/toolcap.js', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-mcp-serve-'));
  const children = [];
  const clients = [];
  try {
    /** One `toolcap serve` over the everything server with this store sync setting; its /mcp URL. */
    const serve = async (synchronous) => {
      const root = join(dir, synchronous);
      mkdirSync(join(root, 'reviewed'), { recursive: true });
      // get-sum declared a write here (the server hints read): its call waits for the store's commit of its record
      const reviewed = { toolcap: 1, tools: [{ name: TOOL, approval: { consent: false } }, { name: WRITE_TOOL, effects: { mode: 'write' }, approval: { required: false, consent: false } }] };
      writeFileSync(join(root, 'reviewed', 'echo.json'), JSON.stringify(reviewed, null, 2));
      const config = ['sources: [reviewed/]', `store: { path: toolcap.db, synchronous: ${synchronous} }`, 'server: { host: 127.0.0.1 }', 'mcp:', '  servers:', '    everything:', `      url: ${everythingUrl}`].join('\n');
      writeFileSync(join(root, 'toolcap.config.yaml'), `${config}\n`);
      const child = spawn(process.execPath, [BIN, 'serve', '--no-watch', '--port', '0', '--config', join(root, 'toolcap.config.yaml')], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let printed = '';
      child.stderr.on('data', (d) => (printed += d));
      const url = await new Promise((resolve, reject) => {
        child.stdout.on('data', (d) => {
          printed += d;
          const m = / at (https?:\/\/\S+)/.exec(printed);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`serve ended (${code}): ${printed.slice(-500)}`)));
      });
      const client = await sdkClient(`${url}/mcp`);
      clients.push(client);
      // discovery runs in the background at start: wait until the tool is listed
      const deadline = Date.now() + 20_000;
      const listed = async () => (await client.listTools()).tools.map((t) => t.name);
      for (let names = await listed(); !names.includes(TOOL) || !names.includes(WRITE_TOOL); names = await listed()) {
        if (Date.now() > deadline) throw new Error(`serve (${synchronous}) does not list ${TOOL}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return { client, pid: child.pid };
    };
    const direct = await sdkClient(everythingUrl);
    clients.push(direct);
    const { client: full, pid: fullPid } = await serve('full');
    const { client: normal, pid: normalPid } = await serve('normal');
    /** Whose CPU time each leg reads: the process that answers its client. */
    const server = { direct: everythingPid, full: fullPid, normal: normalPid, directSum: everythingPid, fullWrite: fullPid, normalWrite: normalPid };
    const legs = {
      direct: async () => echoed(await direct.callTool({ name: 'echo', arguments: ECHO })),
      full: async () => echoed(await full.callTool({ name: TOOL, arguments: ECHO })),
      normal: async () => echoed(await normal.callTool({ name: TOOL, arguments: ECHO })),
      directSum: async () => summed(await direct.callTool({ name: 'get-sum', arguments: SUM })),
      fullWrite: async () => summed(await full.callTool({ name: WRITE_TOOL, arguments: SUM })),
      normalWrite: async () => summed(await normal.callTool({ name: WRITE_TOOL, arguments: SUM })),
    };
    const samples = Object.fromEntries(Object.keys(legs).map((name) => [name, []]));
    const cpu = Object.fromEntries(Object.keys(legs).map((name) => [name, 0]));
    for (const fn of Object.values(legs)) await timeCalls(fn, WARMUP, []);
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, fn] of Object.entries(legs)) {
        const before = cpuMs(server[name]);
        await timeCalls(fn, CALLS / ROUNDS, samples[name]);
        const after = cpuMs(server[name]);
        cpu[name] = before === undefined || after === undefined || cpu[name] === undefined ? undefined : cpu[name] + after - before;
      }
    /** CPU time of the leg's server process per call, in µs ('-' without /proc). */
    const cpuPerCall = (name) => (cpu[name] === undefined ? '-' : `${fmt((cpu[name] * 1000) / CALLS, 0)} µs`);
    const d = summary(samples.direct);
    const f = summary(samples.full);
    const n = summary(samples.normal);
    const ds = summary(samples.directSum);
    const fw = summary(samples.fullWrite);
    const nw = summary(samples.normalWrite);
    console.log(`\n## MCP gateway as its own process (toolcap serve, /mcp): tools/call of echo over Streamable HTTP, ${CALLS} sequential calls per leg after ${WARMUP} warm-up (${ROUNDS} interleaved rounds)`);
    console.log('| path | p50 | p99 | mean | calls/s | added at p50 | added at p99 | p50 ratio to direct | CPU per call of the answering process |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    const row = (name, x, base, leg) =>
      console.log(`| ${name} | ${fmt(x.p50, 3)} ms | ${fmt(x.p99, 3)} ms | ${fmt(x.mean, 3)} ms | ${fmt(x.perSec, 0)} | ${base ? `${fmt(x.p50 - base.p50, 3)} ms` : '-'} | ${base ? `${fmt(x.p99 - base.p99, 3)} ms` : '-'} | ${base ? `${(x.p50 / base.p50).toFixed(2)}x` : '1.00x'} | ${cpuPerCall(leg)} |`);
    row('SDK Client -> everything server (baseline; CPU: the everything server)', d, undefined, 'direct');
    row('SDK Client -> toolcap serve /mcp (store synchronous=full, the default) -> everything server (CPU: toolcap serve)', f, d, 'full');
    row('same, store.synchronous: normal', n, d, 'normal');
    row('SDK Client -> everything server, get-sum (baseline of the write legs)', ds, undefined, 'directSum');
    row(`SDK Client -> toolcap serve /mcp, ${WRITE_TOOL} declared a write (waits for its record's commit; synchronous=full)`, fw, ds, 'fullWrite');
    row('same write, store.synchronous: normal', nw, ds, 'normalWrite');
    console.log(`a call that may write (${WRITE_TOOL}): toolcap serve adds ${fmt(fw.p50 - ds.p50, 3)} ms at p50 (${fmt(fw.p99 - ds.p99, 3)} ms at p99) with synchronous=full, ${fmt(nw.p50 - ds.p50, 3)} ms at p50 (${fmt(nw.p99 - ds.p99, 3)} ms at p99) with normal`);
    console.log(`toolcap serve adds ${fmt(f.p50 - d.p50, 3)} ms at p50 (${fmt(f.p99 - d.p99, 3)} ms at p99); with store.synchronous: normal ${fmt(n.p50 - d.p50, 3)} ms at p50 (${fmt(n.p99 - d.p99, 3)} ms at p99); aim under 1 ms at p50: ${n.p50 - d.p50 < 1 ? 'met with normal' : 'NOT met'}${f.p50 - d.p50 < 1 ? ', met with full' : ''}; CPU per echo call: toolcap serve ${cpuPerCall('full')} (full), ${cpuPerCall('normal')} (normal), the everything server ${cpuPerCall('direct')} (direct); load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
    // each child gone before its folder is removed (under load one may still be writing its store a while after the signal)
    await Promise.all(children.map((child) => (child.exitCode !== null || child.signalCode !== null ? undefined : new Promise((r) => (child.once('exit', r), child.kill())))));
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

export async function run() {
  await toolListBytes();
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-mcp-'));
  const cacheDir = join(dir, 'cache');
  const reviewedDir = join(dir, 'reviewed');
  let everything;
  let direct;
  let clients;
  let registry;
  let store;
  let runtime;
  let storeNormal;
  let runtimeNormal;
  let mcp;
  let http;
  let viaGateway;
  let mcpNormal;
  let httpNormal;
  let viaGatewayNormal;
  let mcpLane;
  let served;
  let viaLane;
  try {
    everything = await startEverything();
    direct = await sdkClient(everything.url);

    // toolcap: discovered tools of the same server, plus a reviewed layer letting echo run without consent
    for (const d of [cacheDir, reviewedDir]) mkdirSync(d, { recursive: true });
    writeFileSync(join(reviewedDir, 'echo.json'), JSON.stringify({ toolcap: 1, tools: [{ name: TOOL, approval: { consent: false } }] }, null, 2));
    clients = new McpClients(mcpConfig(everything.url), { cacheDir, warn: (m) => console.error(`mcp: ${m}`) });
    await clients.start();
    const status = clients.status().find((s) => s.server === 'everything');
    if (status?.state !== 'up') throw new Error(`McpClients did not connect: ${JSON.stringify(status)}`);
    registry = new Registry({ paths: [{ path: cacheDir, discovered: true }, reviewedDir] });
    const started = await registry.start();
    if (started.kind !== 'reloaded') throw new Error(`the catalog did not build: ${JSON.stringify(started.diagnostics?.slice(0, 3))}`);
    store = await openSqliteStore(join(dir, 'toolcap.db'));
    runtime = new Runtime({ registry, store, providers: new ProviderTypes({ mcpConnector: clients }), onWarning: (m) => console.error(`runtime: ${m}`) });
    // the same runtime over an SQLite store with synchronous=normal (no fsync per commit): the store's share of runtime.call
    storeNormal = await openSqliteStore(join(dir, 'toolcap-normal.db'), { synchronous: 'normal' });
    runtimeNormal = new Runtime({ registry, store: storeNormal, providers: new ProviderTypes({ mcpConnector: clients }), onWarning: (m) => console.error(`runtime: ${m}`) });
    mcp = mcpHttpHandler({ registry, runtime });
    const listener = getRequestListener((request) => (new URL(request.url).pathname === '/mcp' ? mcp(request) : new Response('not found', { status: 404 })));
    http = createServer(listener);
    await new Promise((r) => http.listen(0, '127.0.0.1', r));
    viaGateway = await sdkClient(`http://127.0.0.1:${http.address().port}/mcp`);
    mcpNormal = mcpHttpHandler({ registry, runtime: runtimeNormal });
    httpNormal = createServer(getRequestListener((request) => (new URL(request.url).pathname === '/mcp' ? mcpNormal(request) : new Response('not found', { status: 404 }))));
    await new Promise((r) => httpNormal.listen(0, '127.0.0.1', r));
    viaGatewayNormal = await sdkClient(`http://127.0.0.1:${httpNormal.address().port}/mcp`);
    // the same handler mounted on the HTTP API and put on a socket with listen(), as toolcap serve does: its socket lane answers the calls
    mcpLane = mcpHttpHandler({ registry, runtime });
    served = await listen(createApi(registry, { runtime, mcp: mcpLane }), { port: 0 });
    viaLane = await sdkClient(`${served.url}/mcp`);

    const listed = (await viaGateway.listTools()).tools.map((t) => t.name);
    if (!listed.includes(TOOL)) throw new Error(`${TOOL} is not listed by the gateway: ${listed.join(', ')}`);
    const first = await runtime.call(TOOL, ECHO);
    if (first.status !== 'ok') throw new Error(`${TOOL} did not run without approval (reviewed layer not applied?): ${JSON.stringify(first).slice(0, 400)}`);

    const legs = {
      direct: async () => echoed(await direct.callTool({ name: 'echo', arguments: ECHO })),
      runtime: async () => {
        const r = await runtime.call(TOOL, ECHO);
        if (r.status !== 'ok') throw new Error(`runtime.call: ${r.status}`);
      },
      runtimeNormal: async () => {
        const r = await runtimeNormal.call(TOOL, ECHO);
        if (r.status !== 'ok') throw new Error(`runtime.call: ${r.status}`);
      },
      gateway: async () => echoed(await viaGateway.callTool({ name: TOOL, arguments: ECHO })),
      gatewayNormal: async () => echoed(await viaGatewayNormal.callTool({ name: TOOL, arguments: ECHO })),
      lane: async () => echoed(await viaLane.callTool({ name: TOOL, arguments: ECHO })),
    };
    const samples = { direct: [], runtime: [], runtimeNormal: [], gateway: [], gatewayNormal: [], lane: [] };
    for (const fn of Object.values(legs)) await timeCalls(fn, WARMUP, []);
    globalThis.gc?.();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, fn] of Object.entries(legs)) await timeCalls(fn, CALLS / ROUNDS, samples[name]);
    }

    const d = summary(samples.direct);
    const r = summary(samples.runtime);
    const rn = summary(samples.runtimeNormal);
    const g = summary(samples.gateway);
    const gn = summary(samples.gatewayNormal);
    const gl = summary(samples.lane);
    console.log(`\n## MCP gateway: tools/call of the everything server's echo, Streamable HTTP both legs, ${CALLS} sequential calls per leg after ${WARMUP} warm-up (${ROUNDS} interleaved rounds)`);
    console.log('| path | p50 | p99 | mean | calls/s | added at p50 | added at p99 | p50 ratio to direct |');
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    const row = (name, s, base) =>
      console.log(
        `| ${name} | ${fmt(s.p50, 3)} ms | ${fmt(s.p99, 3)} ms | ${fmt(s.mean, 3)} ms | ${fmt(s.perSec, 0)} | ${base ? `${fmt(s.p50 - base.p50, 3)} ms` : '-'} | ${base ? `${fmt(s.p99 - base.p99, 3)} ms` : '-'} | ${base ? `${(s.p50 / base.p50).toFixed(2)}x` : '1.00x'} |`,
      );
    row('SDK Client -> everything server (baseline)', d, undefined);
    row(`runtime.call('${TOOL}') -> McpClients -> everything server (no gateway)`, r, d);
    row(`same, SQLite synchronous=normal (no fsync per commit; not the gateway's store)`, rn, d);
    row(`SDK Client -> toolcap gateway /mcp -> runtime.call -> McpClients -> everything server`, g, d);
    row(`same gateway, store.synchronous: normal`, gn, d);
    row(`same handler on the HTTP API under listen() (its socket lane, as toolcap serve), store full`, gl, d);
    const added = g.p50 - d.p50;
    console.log(
      `split of the gateway's added p50 (${fmt(added, 3)} ms): runtime.call (pipeline + SQLite record) ${fmt(r.p50 - d.p50, 3)} ms, gateway (second HTTP hop, SDK server, result shaping) ${fmt(g.p50 - r.p50, 3)} ms`,
    );
    console.log(`of runtime.call's share, SQLite synchronous=full vs normal at p50: ${fmt(r.p50 - rn.p50, 3)} ms`);
    console.log(`under listen() (the socket lane): ${fmt(gl.p50 - d.p50, 3)} ms added at p50, ${fmt(gl.p99 - d.p99, 3)} ms at p99; the same handler on the bare Hono adapter ${fmt(added, 3)} ms`);
    console.log(`aim under 1 ms added at p50: ${added < 1 ? 'met' : 'NOT met'} (${fmt(added, 3)} ms added, ${fmt(g.p99 - d.p99, 3)} ms at p99); with store.synchronous: normal ${fmt(gn.p50 - d.p50, 3)} ms added at p50, ${fmt(gn.p99 - d.p99, 3)} ms at p99; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    await servedLegs(everything.url, everything.pid);
  } finally {
    await viaGateway?.close().catch(() => undefined);
    await viaGatewayNormal?.close().catch(() => undefined);
    await viaLane?.close().catch(() => undefined);
    await direct?.close().catch(() => undefined);
    await mcp?.close().catch(() => undefined);
    await mcpLane?.close().catch(() => undefined);
    await served?.close().catch(() => undefined);
    await mcpNormal?.close().catch(() => undefined);
    for (const server of [http, httpNormal]) if (server) await new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); });
    await runtime?.close().catch(() => undefined);
    await runtimeNormal?.close().catch(() => undefined);
    await clients?.close().catch(() => undefined);
    await registry?.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    await storeNormal?.close().catch(() => undefined);
    await everything?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  await stdioLegs();
}
