/**
 * Three toolcap instances (three hosts, as `toolcap serve` wires them) on one
 * fresh PostgreSQL database at 127.0.0.1:5432, calling one real HTTP
 * upstream: a tool learned on A is listed on B and C (over the HTTP API) and
 * callable there; the calls B and C ran count in A's observed health; a caller waiting
 * on A for an approval B approves gets the outcome; an outage A sees backs off B and C without them calling
 * the upstream; a tool forgotten on B is gone everywhere; B's LISTEN
 * connection killed by the server comes back, and what was written
 * meanwhile reaches B. Behaviour is awaited by polling; the measured
 * propagation delays are printed, never asserted.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolcap, type Toolcap } from '../src/host.js';
import { CallError } from '../src/runtime/errors.js';
import type { Principal } from '../src/runtime/identity/principal.js';
import { createApi } from '../src/server/app.js';
import { cleanFolders, folder, until as poll } from './server/helpers.js';
import { freshDatabase, probePostgres } from './store/pg-helpers.js';

const probe = await probePostgres();
if (!probe.reachable) console.warn(`[toolcap] skipping the three-instance tests: ${probe.reason}`);

/** Poll until `check` holds (a bound of 20 s, not a timing assertion). */
const until = <T>(check: () => Promise<T> | T, what: string) => poll(check as () => Promise<T | false>, 20_000, what);

const ADMIN: Principal = { id: 'workflow-admin', roles: ['admin'], personas: ['*'], via: 'api-key' };

const MANIFEST = (port: number) => `toolcap: 1
tools:
  - name: status.check
    version: 1.0.0
    description: Read the status of the upstream service.
    inputSchema: { type: object, properties: {}, additionalProperties: false }
    effects: { mode: read, sideEffects: read_external_service, risk: low, reversible: full }
    approval: { required: false }
    execution: { timeoutSec: 5, retryClass: never, idempotent: true }
    providers:
      - { name: upstream, priority: 0, config: { type: http, baseUrl: 'http://127.0.0.1:${port}', method: GET, path: /status } }
  - name: status.restart
    version: 1.0.0
    description: Restart the upstream service (needs approval).
    inputSchema: { type: object, properties: {}, additionalProperties: false }
    effects: { mode: write, sideEffects: network, risk: medium, reversible: partial }
    approval: { required: true }
    execution: { timeoutSec: 5, retryClass: never, idempotent: false }
    providers:
      - { name: upstream, priority: 0, config: { type: http, baseUrl: 'http://127.0.0.1:${port}', method: POST, path: /restart } }
`;

/** A learned entry (toolcap dialect) for `name`. */
const learnedEntry = (name: string, description: string) =>
  JSON.stringify({ name, description, inputSchema: { type: 'object' }, effects: { mode: 'read', sideEffects: 'none', risk: 'low', reversible: 'full' } });

interface Instance {
  name: string;
  toolcap: Toolcap;
  fetch: (path: string, init?: RequestInit) => Promise<Response>;
}

let upstream: Server | undefined;
let upstreamDown = false;
let upstreamHits = 0;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let instances: Instance[] = [];
const warnings: string[] = [];

async function open(name: string, config: string): Promise<Instance> {
  // a long backoff, so "B is backing off" does not end while the test looks at it
  const toolcap = await createToolcap(config, { traces: false, mcp: false, backoff: { baseMs: 600_000 }, clusterRereadMs: 100, warn: (m) => warnings.push(`${name}: ${m}`) });
  const app = createApi(toolcap.registry, { runtime: toolcap.runtime, learned: toolcap.learned, auth: { authenticate: async () => ({ ok: true, principal: ADMIN }) } });
  return { name, toolcap, fetch: async (path, init) => app.fetch(new Request(`http://localhost${path}`, init)) };
}

const put = (body: string): RequestInit => ({ method: 'PUT', headers: { 'content-type': 'application/json' }, body });
const listed = async (i: Instance, tool: string) => (await i.fetch(`/tools/${tool}`)).status === 200;
const description = async (i: Instance, tool: string) => ((await (await i.fetch(`/tools/${tool}`)).json()) as { tool?: { description?: string } }).tool?.description;
const codeOf = async (work: Promise<unknown>): Promise<string> => work.then(() => 'ok', (e: unknown) => (e instanceof CallError ? e.code : String(e)));

beforeAll(async () => {
  if (!probe.reachable) return;
  const server = createServer((req, res) => {
    upstreamHits++;
    res.writeHead(upstreamDown ? 503 : 200, { 'content-type': 'application/json' });
    res.end(upstreamDown ? '{"error":"down"}' : '{"status":"green"}');
  });
  upstream = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  db = await freshDatabase('toolcap_cluster');
  const root = folder('toolcap-cluster-');
  mkdirSync(join(root, 'manifests'));
  writeFileSync(join(root, 'manifests', 'status.yaml'), MANIFEST((server.address() as AddressInfo).port));
  writeFileSync(join(root, 'toolcap.config.yaml'), `sources:\n  - manifests/\nstore:\n  url: ${db.url}\n`);
  const config = join(root, 'toolcap.config.yaml');
  // one after the other: the first migrates, the others find it done
  for (const name of ['A', 'B', 'C']) instances.push(await open(name, config));
}, 60_000);

afterAll(async () => {
  for (const i of instances) await i.toolcap.close();
  instances = [];
  const server = upstream;
  if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  await db?.drop();
  cleanFolders();
}, 60_000);

describe.skipIf(!probe.reachable)('three instances on one PostgreSQL store (server reachable)', () => {
  it('every instance shares the store through a cluster sync', () => {
    expect(instances.map((i) => i.toolcap.cluster?.status().listening)).toEqual([true, true, true]);
    expect(new Set(instances.map((i) => i.toolcap.cluster?.status().instance)).size).toBe(3);
  });

  it('a tool learned on A is listed on B and C, and a learned entry over a reviewed tool is served and callable there', async () => {
    const [a, b, c] = instances as [Instance, Instance, Instance];
    expect(await listed(b, 'status.summary')).toBe(false);
    const started = performance.now();
    const res = await a.fetch('/tools/status.summary', put(learnedEntry('status.summary', 'A summary a workflow learned.')));
    expect(res.status, await res.clone().text()).toBe(200);
    const delays = await Promise.all([b, c].map((i) => until(() => listed(i, 'status.summary'), `${i.name} lists status.summary`).then(() => performance.now() - started)));
    console.log(`learned tool propagation after A's PUT returned: B ${delays[0]!.toFixed(1)} ms, C ${delays[1]!.toFixed(1)} ms`);
    expect(((await (await c.fetch('/tools/learned')).json()) as { tools: Array<{ id: string }> }).tools.map((t) => t.id)).toEqual(['status.summary']);

    // a learned description of the reviewed tool: B and C serve it, and run it through the reviewed provider
    expect((await a.fetch('/tools/status.check', put(learnedEntry('status.check', 'Status, as the workflow describes it.')))).status).toBe(200);
    for (const i of [b, c]) await until(async () => (await description(i, 'status.check')) === 'Status, as the workflow describes it.', `${i.name} serves the learned description`);
    for (const i of [b, c]) {
      const result = await i.toolcap.runtime.call('status.check', {});
      expect(result).toMatchObject({ status: 'ok', result: expect.objectContaining({ status: 'green' }) });
    }
    // the audit has the write once, by A's principal
    expect((await b.toolcap.store.listAudit({ tool: 'status.summary' })).map((r) => [r.kind, r.actor])).toEqual([['tool.learned', 'workflow-admin']]);
  });

  it("the calls B and C ran count in A's observed health, once each", async () => {
    const [a] = instances as [Instance];
    // B and C each called status.check once above; A has not called it
    await until(() => a.toolcap.health.lookup('status.check')?.calls === 2, "A's health counts B's and C's calls");
    expect(a.toolcap.health.lookup('status.check')).toMatchObject({ status: 'ok', successRate: 1, calls: 2 });
    // later re-reads do not count them again
    const reads = a.toolcap.cluster!.status().callsRead;
    await until(() => a.toolcap.cluster!.status().callsRead === reads && a.toolcap.health.lookup('status.check')?.calls === 2, 'A keeps counting them once');
  });

  it('an outage A sees backs off B and C: they refuse without calling the upstream', async () => {
    const [a, b, c] = instances as [Instance, Instance, Instance];
    upstreamDown = true;
    try {
      const called = performance.now();
      expect(await codeOf(a.toolcap.runtime.call('status.check', {}))).toBe('PROVIDER_ERROR');
      const started = performance.now();
      const seen = a.toolcap.runtime.health.circuit('status.check', 'upstream');
      expect(seen.backoffUntil).toBeGreaterThan(0);
      const delays = await Promise.all(
        [b, c].map((i) => until(() => i.toolcap.runtime.health.circuit('status.check', 'upstream').backoffUntil === seen.backoffUntil, `${i.name} takes A's circuit`).then(() => performance.now() - started)),
      );
      console.log(`A's failed call took ${(started - called).toFixed(1)} ms; circuit propagation after it returned: B ${delays[0]!.toFixed(1)} ms, C ${delays[1]!.toFixed(1)} ms`);
      const hits = upstreamHits;
      for (const i of [b, c]) {
        const error = await i.toolcap.runtime.call('status.check', {}).then(() => undefined, (e: unknown) => e as CallError);
        expect(error).toBeInstanceOf(CallError);
        expect(error?.code).toBe('NO_HEALTHY_PROVIDER');
        expect(error?.message).toMatch(/backing off/);
      }
      expect(upstreamHits).toBe(hits);
      // the shared row says who saw it
      expect(await b.toolcap.cluster!.status().circuitsMerged).toBeGreaterThan(0);
      expect(c.toolcap.cluster!.status().circuitsMerged).toBeGreaterThan(0);
    } finally {
      upstreamDown = false;
    }
  });

  it('a caller waiting on A for an approval that B approves and runs gets the outcome', async () => {
    const [a, b] = instances as [Instance, Instance];
    const pending = await a.toolcap.runtime.call('status.restart', {});
    expect(pending).toMatchObject({ status: 'pending_approval' });
    const id = (pending as { approval: { id: string } }).approval.id;
    const waited = a.toolcap.runtime.waitForApproval(id, 20_000);
    const { approval } = await b.toolcap.runtime.approve(id, { by: 'ana' });
    const decided = performance.now();
    expect(approval.status).toBe('executed');
    expect(await waited).toMatchObject({ id, status: 'executed' });
    console.log(`approval settled on B reached A's waiter after ${(performance.now() - decided).toFixed(1)} ms (the store poll alone: up to 250 ms)`);
  });

  it('a tool forgotten on B is gone on A and C', async () => {
    const [a, b, c] = instances as [Instance, Instance, Instance];
    expect((await b.fetch('/tools/status.summary', { method: 'DELETE' })).status).toBe(200);
    for (const i of [a, c]) await until(async () => !(await listed(i, 'status.summary')), `${i.name} no longer lists status.summary`);
    expect(a.toolcap.learned.list().map((t) => t.id)).toEqual(['status.check']);
  });

  it("B's LISTEN connection killed by the server comes back, and what A wrote meanwhile reaches B", async () => {
    const [a, b] = instances as [Instance, Instance];
    const before = b.toolcap.cluster!.status().reconnects;
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const killed = await admin.query('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
        `toolcap:${b.toolcap.cluster!.status().instance}`.slice(0, 63),
      ]);
      expect(killed.rows).toEqual([{ ok: true }]);
    } finally {
      await admin.end();
    }
    // written while B may still be reconnecting: its notice may be lost, the re-read on reconnect is not
    expect((await a.fetch('/tools/status.during_drop', put(learnedEntry('status.during_drop', 'Written while B reconnects.')))).status).toBe(200);
    await until(() => b.toolcap.cluster!.status().reconnects > before && b.toolcap.cluster!.status().listening, 'B listens again');
    await until(() => listed(b, 'status.during_drop'), 'B lists the tool written during the drop');
    // and the channel works again afterwards
    expect((await a.fetch('/tools/status.during_drop', { method: 'DELETE' })).status).toBe(200);
    await until(async () => !(await listed(b, 'status.during_drop')), 'B sees the forget after reconnecting');
    expect(warnings.some((w) => w.startsWith('B: cluster: lost the LISTEN connection'))).toBe(true);
  });
});
