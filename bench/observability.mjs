// Issue 17 benchmark: what the observability costs a request, in process
// (`app.fetch`, no sockets). The same catalog served by two APIs in the same
// run: the baseline without a runtime (no HTTP metrics middleware, no
// selection kept per search) and the one `toolcap serve` makes (with both),
// interleaved rounds, median of each. Also the cost of a call span exported
// to OTLP/protobuf (a local node:http receiver) against no tracing. Prints CPU
// time and load average next to the figures: the machine is shared.
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from '../dist/index.js';
import { createApi } from '../dist/entries/server.js';
import { createTracing, Runtime, ProviderTypes, traceSettings } from '../dist/entries/runtime.js';
import { openSqliteStore } from '../dist/store/sqlite.js';
import { benchTools } from './query.mjs';
import { fmt } from './stats.mjs';

const COUNT = 2_000;
const REQUESTS = 2_000;
const ROUNDS = 5;

async function perRequest(app, path) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) {
    const res = await app.fetch(new Request(`http://toolcap.test${path}`));
    await res.arrayBuffer();
  }
  return Number(process.hrtime.bigint() - started) / 1e3 / REQUESTS; // µs
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'toolcap-bench-obs-'));
  const file = join(dir, 'catalog.json');
  writeFileSync(file, JSON.stringify({ toolcap: 1, tools: benchTools(COUNT) }));
  const registry = new Registry({ paths: [file] });
  const store = await openSqliteStore(join(dir, 'toolcap.db'));
  let received = 0;
  const receiver = createServer((req, res) => req.resume().on('end', () => (received++, res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end())));
  try {
    if ((await registry.start()).kind !== 'reloaded') throw new Error('the bench catalog did not build');
    const runtime = new Runtime({ registry, store, providers: new ProviderTypes(), onWarning: () => undefined });
    const bare = createApi(registry);
    const observed = createApi(registry, { runtime });
    const cpu0 = process.cpuUsage();
    console.log(`\n## Observability cost per request, in process, ${COUNT} tools, ${REQUESTS} requests x ${ROUNDS} rounds (median), load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}`);
    console.log('| request | baseline µs (no runtime) | with metrics + selections µs | ratio |');
    console.log('| --- | --- | --- | --- |');
    for (const path of ['/tools?limit=20', '/search?q=list%20open%20incidents&limit=10', '/health']) {
      await perRequest(bare, path);
      await perRequest(observed, path);
      const a = [];
      const b = [];
      for (let r = 0; r < ROUNDS; r++) {
        a.push(await perRequest(bare, path));
        b.push(await perRequest(observed, path));
      }
      console.log(`| GET ${path} | ${fmt(median(a), 1)} | ${fmt(median(b), 1)} | ${(median(b) / median(a)).toFixed(2)}x |`);
    }
    const metrics = await observed.fetch(new Request('http://toolcap.test/metrics'));
    const text = await metrics.text();
    console.log(`/metrics after the run: ${text.length} bytes, ${text.split('\n').filter((l) => l && !l.startsWith('#')).length} samples; selections held: ${runtime.selections.size}`);
    const cpu = process.cpuUsage(cpu0);
    console.log(`CPU: user ${fmt(cpu.user / 1e6, 2)} s, system ${fmt(cpu.system / 1e6, 2)} s`);
    await runtime.close();

    // a call span to OTLP (protobuf, batched) against no tracing, on a tool that runs in process (a module export)
    await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${receiver.address().port}`;
    const tracing = createTracing(traceSettings({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: url }, {}), { scheduledDelayMillis: 200 });
    const echoDir = join(dir, 'echo');
    mkdirSync(echoDir);
    writeFileSync(join(echoDir, 'echo.mjs'), 'export function echo(args) { return args; }\n');
    writeFileSync(
      join(echoDir, 'echo.json'),
      JSON.stringify({ toolcap: 1, tools: [{ name: 'bench.echo', version: '1.0.0', description: 'Echo the arguments back.', inputSchema: { type: 'object' }, effects: { mode: 'read', sideEffects: 'compute', risk: 'low', reversible: 'full' }, approval: { required: false }, cost: { lane: 'free', estimatedDollars: 0 }, providers: [{ name: 'local', priority: 0, config: { type: 'module', module: './echo.mjs', export: 'echo' } }] }] }),
    );
    const echoRegistry = new Registry({ paths: [join(echoDir, 'echo.json')] });
    if ((await echoRegistry.start()).kind !== 'reloaded') throw new Error('the echo catalog did not build');
    const plain = new Runtime({ registry: echoRegistry, store, providers: new ProviderTypes(), onWarning: () => undefined });
    const traced = new Runtime({ registry: echoRegistry, store, providers: new ProviderTypes(), tracer: tracing.tracer, onWarning: () => undefined });
    console.log('\n## A call (module tool, in process) with its span exported over OTLP/protobuf vs no tracing');
    const calls = async (rt) => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 500; i++) {
        const r = await rt.call('bench.echo', { i });
        if (r.status !== 'ok') throw new Error('the echo call failed');
      }
      return Number(process.hrtime.bigint() - started) / 1e3 / 500;
    };
    await calls(plain);
    await calls(traced);
    const p = [];
    const t = [];
    for (let r = 0; r < ROUNDS; r++) {
      p.push(await calls(plain));
      t.push(await calls(traced));
    }
    await tracing.flush();
    console.log(`spans received by the OTLP receiver: ${received} requests`);
    console.log('| runtime | µs per call (median) | ratio |');
    console.log('| --- | --- | --- |');
    console.log(`| no tracing (baseline) | ${fmt(median(p), 1)} | 1.00x |`);
    console.log(`| OTLP/protobuf, batch | ${fmt(median(t), 1)} | ${(median(t) / median(p)).toFixed(2)}x |`);
    await plain.close();
    await traced.close();
    await tracing.shutdown();
    await echoRegistry.close();
  } finally {
    receiver.close();
    await registry.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
