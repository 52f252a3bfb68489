// Issue 4 benchmark: GET /tools?persona=… throughput of `toolcap serve` under
// autocannon, against a bare node:http handler returning the same bytes,
// measured in the same run on the same machine (one core for the server,
// the load generator in this process). Also /search, and /tools with the
// body cache defeated (a fresh query string each request), for what a cache
// miss costs. Issue 16 item 4: the same path on a server whose body cache is
// off (`cacheEntries: 0`: filter, page and serialise every request, same
// bytes as the baseline), and a new filter every request that answers the
// same bytes (`min_success_rate=0.000…n`: every tool is unmeasured here, so
// every one passes), both against the 0.5x aim.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
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
  let uncached;
  let bare;
  try {
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ toolcap: 1, tools: benchTools(COUNT) }));
    const started = await registry.start();
    if (started.kind !== 'reloaded') throw new Error(`the bench catalog did not build: ${JSON.stringify(started.diagnostics?.slice(0, 3))}`);
    server = await listen(createApi(registry), { port: 0 });
    uncached = await listen(createApi(registry, { cacheEntries: 0 }), { port: 0 });
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
    const uncachedRuns = [];
    const newFilterRuns = [];
    let nf = 0;
    const newFilter = { requests: [{ setupRequest: (req) => ({ ...req, path: `${path}&min_success_rate=0.${String(++nf).padStart(9, '0')}` }) }] };
    await load(`${uncached.url}${path}`, { duration: 2 });
    for (const url of [`${uncached.url}${path}`, `${server.url}${path}&min_success_rate=0.000000001`]) {
      const same = Buffer.from(await (await fetch(url)).arrayBuffer());
      if (!same.equals(bytes)) throw new Error(`${url} does not answer the baseline's bytes`);
    }
    for (let i = 0; i < ROUNDS; i++) {
      bareRuns.push(await load(bareUrl));
      toolRuns.push(await load(`${server.url}${path}`));
      uncachedRuns.push(await load(`${uncached.url}${path}`));
      newFilterRuns.push(await load(`${server.url}${path}`, newFilter));
    }
    const median = (runs) => [...runs].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(runs.length / 2)];
    const base = median(bareRuns);
    const tools = median(toolRuns);
    const off = median(uncachedRuns);
    const fresh = median(newFilterRuns);
    row(`bare node:http, same bytes (baseline; median of ${ROUNDS})`, base, undefined);
    row(`toolcap GET ${path} (median of ${ROUNDS})`, tools, base);
    row(`toolcap, body cache off (cacheEntries 0): same path and bytes, filter + page + serialise each request (median of ${ROUNDS})`, off, base);
    row(`toolcap, a new filter every request, same bytes (min_success_rate=0.000…n; median of ${ROUNDS})`, fresh, base);
    const revalidate = await load(`${server.url}${path}`, { headers: { 'if-none-match': etag } });
    row('toolcap, same with If-None-Match (304)', revalidate, base);
    let n = 0;
    const miss = await load(`${server.url}${path}`, {
      requests: [{ setupRequest: (req) => ({ ...req, path: `/tools?persona=Atlas&max_risk=medium&limit=50&offset=${n++ % 5000}` }) }],
    });
    row('toolcap, body cache defeated (offset varies: filter + page + serialise each time)', miss, base);
    let f = 0;
    const filterMiss = await load(`${server.url}${path}`, {
      requests: [{ setupRequest: (req) => ({ ...req, path: `/tools?persona=Atlas&max_risk=medium&limit=50&tag=t${f++}` }) }],
    });
    row('toolcap, every request a new filter (tag varies; an empty answer: the filter alone)', filterMiss, base);
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
    for (const [what, r] of [['body cache off', off], ['a new filter every request', fresh]]) {
      const x = r.requests.average / base.requests.average;
      console.log(`aim first-time filter over ${COUNT} tools >= 0.5x bare, ${what}: ${x >= 0.5 ? 'met' : 'NOT met'} (${x.toFixed(2)}x)`);
    }
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; process CPU ${fmt(process.cpuUsage().user / 1e6, 1)} s user`);
  } finally {
    await server?.close();
    await uncached?.close();
    await new Promise((r) => (bare ? bare.close(r) : r()));
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
