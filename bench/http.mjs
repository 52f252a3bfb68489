// Issue 4 benchmark: GET /tools?persona=… throughput of `toolcap serve` under
// autocannon, against a bare node:http handler returning the same bytes,
// measured in the same run on the same machine (one core for the server,
// the load generator in this process). Also /search, and /tools with the
// body cache defeated (a fresh query string each request), for what a cache
// miss costs.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Registry } from '../dist/index.js';
import { createApi, listen } from '../dist/entries/server.js';
import { benchTools } from './query.mjs';
import { fmt } from './stats.mjs';

const COUNT = 10_000;
const SECONDS = 5;
const ROUNDS = 3;
const CONNECTIONS = 20;

function load(url, extra = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS, pipelining: 1, ...extra }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const row = (name, r, base) =>
  console.log(
    `| ${name} | ${fmt(r.requests.average, 0)} | ${fmt(r.latency.p50, 1)} ms | ${fmt(r.latency.p99, 1)} ms | ${fmt(r.throughput.average / 1024 / 1024, 1)} MiB/s | ${r.non2xx} | ${base ? `${(r.requests.average / base.requests.average).toFixed(2)}x` : '1.00x'} |`,
  );

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-http-'));
  const registry = new Registry({ paths: [join(dir, 'catalog.json')] });
  let server;
  let bare;
  try {
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ toolcap: 1, tools: benchTools(COUNT) }));
    const started = await registry.start();
    if (started.kind !== 'reloaded') throw new Error(`the bench catalog did not build: ${JSON.stringify(started.diagnostics?.slice(0, 3))}`);
    server = await listen(createApi(registry), { port: 0 });
    const path = '/tools?persona=Atlas&max_risk=medium&limit=50';
    const response = await fetch(`${server.url}${path}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    const etag = response.headers.get('etag');
    // the baseline: node:http answering the same bytes with the same headers, no routing, no parsing
    const plain = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag, 'cache-control': 'no-cache', 'content-length': bytes.length });
      res.end(bytes);
    });
    await new Promise((r) => plain.listen(0, '127.0.0.1', r));
    bare = plain;
    const bareUrl = `http://127.0.0.1:${plain.address().port}${path}`;

    console.log(`\n## HTTP throughput, ${COUNT} corpus tools, autocannon ${CONNECTIONS} connections x ${SECONDS} s, body ${bytes.length} bytes`);
    console.log('| target | req/s | p50 | p99 | throughput | non-2xx | ratio to bare |');
    console.log('| --- | --- | --- | --- | --- | --- | --- |');
    await load(bareUrl, { duration: 2 }); // warm-up
    await load(`${server.url}${path}`, { duration: 2 });
    // alternate the two, ROUNDS times each, and keep each one's median round: the machine's noise hits both alike
    const bareRuns = [];
    const toolRuns = [];
    for (let i = 0; i < ROUNDS; i++) {
      bareRuns.push(await load(bareUrl));
      toolRuns.push(await load(`${server.url}${path}`));
    }
    const median = (runs) => [...runs].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(runs.length / 2)];
    const base = median(bareRuns);
    const tools = median(toolRuns);
    row(`bare node:http, same bytes (baseline; median of ${ROUNDS})`, base, undefined);
    row(`toolcap GET ${path} (median of ${ROUNDS})`, tools, base);
    const revalidate = await load(`${server.url}${path}`, { headers: { 'if-none-match': etag } });
    row('toolcap, same with If-None-Match (304)', revalidate, base);
    let n = 0;
    const miss = await load(`${server.url}${path}`, {
      requests: [{ setupRequest: (req) => ({ ...req, path: `/tools?persona=Atlas&max_risk=medium&limit=50&offset=${n++ % 5000}` }) }],
    });
    row('toolcap, body cache defeated (offset varies: page + serialise each time; the filtered list is reused)', miss, base);
    let f = 0;
    const filterMiss = await load(`${server.url}${path}`, {
      requests: [{ setupRequest: (req) => ({ ...req, path: `/tools?persona=Atlas&max_risk=medium&limit=50&tag=t${f++}` }) }],
    });
    row('toolcap, every request a new filter (tag varies: filter 10,000 tools each time)', filterMiss, base);
    const search = await load(`${server.url}/search?q=send+an+email+to+a+customer&persona=Atlas&max_risk=medium`);
    row('toolcap GET /search (cached body)', search, base);
    let m = 0;
    const words = ['weather', 'stock price', 'translate text', 'send email', 'book a flight', 'search papers', 'create issue', 'list files'];
    const searchMiss = await load(`${server.url}/search`, {
      requests: [{ setupRequest: (req) => ({ ...req, path: `/search?persona=Atlas&max_risk=medium&q=${encodeURIComponent(`${words[m % words.length]} ${m++}`)}` }) }],
    });
    row('toolcap GET /search, cache defeated (rank each time)', searchMiss, base);
    const ratio = tools.requests.average / base.requests.average;
    console.log(`aim GET /tools >= 0.5x bare node:http: ${ratio >= 0.5 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x)`);
  } finally {
    await server?.close();
    await new Promise((r) => (bare ? bare.close(r) : r()));
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
