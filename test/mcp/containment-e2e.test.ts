/**
 * Containment end to end with real MCP servers (issue 12). An approval for
 * a tool run by an MCP server is bound to what the server lists: when the
 * server's listed input schema changes between request and approval, the
 * approval is void (APPROVAL_VOID) and nothing runs, whether the change
 * reaches the manifest (a discovered tool) or only the server's identity (a
 * reviewed manifest pinning the schema, so only McpClients.identity and the
 * mcp provider's codeIdentity can see it). And a secret named by a tool's
 * manifest (auth.envs), planted in the environment and handed to the server,
 * which echoes it back in an isError result, a JSON-RPC error and its stderr
 * before it crashes, reaches no sink: the CallError and its wire body, the
 * gateway's tool result, the HTTP problem, the audit rows, the spans, the
 * warnings; and, through the host, its warnings, the health it serves
 * beside the server's tools and the trace file.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createToolcap, type Toolcap, type ToolcapOpenError } from '../../src/host.js';
import { McpClients } from '../../src/mcp/clients.js';
import type { McpServerConfig } from '../../src/mcp/config.js';
import { createGatewayServer } from '../../src/mcp/server.js';
import { Registry } from '../../src/registry/registry.js';
import { CallError, callErrorWire } from '../../src/runtime/errors.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { createApi } from '../../src/server/app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/types.js';
import { mcpConfig, nodeServer, removeTemps, ROOT, tempDir, waitFor } from './helpers.js';
import { ALICE } from './principals.js';

const T = 30_000;
const FAMILY = join(import.meta.dirname, 'fixtures', 'family.mjs');

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});
afterAll(removeTemps);

/** A started registry, store and runtime over `layers`, the mcp provider calling through `clients`. */
async function wire(clients: McpClients, layers: ConstructorParameters<typeof Registry>[0]['paths'], options: { tracer?: ReturnType<BasicTracerProvider['getTracer']>; warnings?: string[] } = {}) {
  const registry = new Registry({ paths: layers });
  const first = await registry.start();
  if (first.kind !== 'reloaded') throw new Error(`registry did not load: ${JSON.stringify(first)}`);
  const store: Store = await openSqliteStore(join(tempDir('toolcap-e2e-store-'), 'toolcap.db'));
  const runtime = new Runtime({
    registry,
    store,
    providers: new ProviderTypes({ mcpConnector: clients }),
    retryBaseMs: 0,
    onWarning: (m) => options.warnings?.push(m),
    ...(options.tracer ? { tracer: options.tracer } : {}),
  });
  closers.push(() => store.close(), () => registry.close(), () => runtime.close());
  return { registry, store, runtime };
}

/** MCP clients for `servers`, started, closed after the test. */
async function started(servers: McpServerConfig[], cacheDir: string): Promise<McpClients> {
  const clients = new McpClients(mcpConfig(servers), { cacheDir, killGraceMs: 200, backoff: { initialMs: 20, maxMs: 100 } });
  closers.push(() => clients.close());
  await clients.start();
  return clients;
}

describe('an approval for an MCP tool is void when the server lists another input schema', () => {
  const FIRST = { type: 'object', properties: { a: { type: 'string' } } };
  const CHANGED = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string', description: 'new: where to send a copy' } } };

  /** The family server, whose `probe` schema is read from a file at every tools/list. */
  function familyServer(dir: string): { server: McpServerConfig; schemaFile: string } {
    const schemaFile = join(dir, 'probe-schema.json');
    writeFileSync(schemaFile, JSON.stringify(FIRST));
    return { server: nodeServer('family', FAMILY, [], { env: { FAMILY_SCHEMA_FILE: schemaFile } }), schemaFile };
  }

  /** A reviewed manifest for the server's probe, pinning the schema it was reviewed with. */
  function reviewed(dir: string): string {
    const manifests = join(dir, 'manifests');
    mkdirSync(manifests, { recursive: true });
    writeFileSync(
      join(manifests, 'probe.yaml'),
      JSON.stringify({
        toolcap: 1,
        tools: [
          {
            name: 'mcp.family.probe',
            version: '1.0.0',
            description: 'Probe, as reviewed.',
            inputSchema: FIRST,
            effects: { mode: 'write', sideEffects: 'network', risk: 'medium', reversible: 'none' },
            approval: { required: true },
            providers: [{ name: 'mcp', priority: 0, config: { server: 'family', tool: 'probe' } }],
          },
        ],
      }),
    );
    return manifests;
  }

  /** The probe's runs in the audit log (a run is started, then ok or error). */
  const ranProbe = async (store: Store) => (await store.listAudit({ tool: 'mcp.family.probe', limit: 100 })).filter((a) => ['call.started', 'call.ok', 'call.error'].includes(a.kind));

  it('a reviewed manifest pins the schema: the server identity alone voids it, nothing runs; unchanged, it runs', { timeout: T }, async () => {
    const dir = tempDir();
    const { server, schemaFile } = familyServer(dir);
    const cacheDir = join(dir, 'cache');
    const clients = await started([server], cacheDir);
    const { runtime, store } = await wire(clients, [{ path: cacheDir, discovered: true }, reviewed(dir)]);

    const asked = await runtime.call('mcp.family.probe', { a: 'x' });
    if (asked.status !== 'pending_approval') throw new Error('expected an approval');
    writeFileSync(schemaFile, JSON.stringify(CHANGED));
    await clients.discover('family');

    const e = await runtime.approve(asked.approval.id, { by: 'reviewer' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(e).toBeInstanceOf(CallError);
    expect(e).toMatchObject({ code: 'APPROVAL_VOID', message: expect.stringMatching(/code .* changed since it was reviewed/) });
    expect((await runtime.getApproval(asked.approval.id)).status).toBe('void');
    await runtime.flush();
    expect(await ranProbe(store)).toEqual([]);

    // asked again against what the server lists now, approved unchanged: it runs
    const again = await runtime.call('mcp.family.probe', { a: 'y' });
    if (again.status !== 'pending_approval') throw new Error('expected an approval');
    const done = await runtime.approve(again.approval.id, { by: 'reviewer' });
    expect(done.approval.status).toBe('executed');
  });

  it('through createToolcap (the host), a discovered tool: the changed schema voids it', { timeout: T }, async () => {
    const dir = tempDir();
    const { server, schemaFile } = familyServer(dir);
    const toolcap = await hostOf(dir, server);
    const asked = await toolcap.runtime.call('mcp.family.probe', { a: 'x' }, { principal: ALICE });
    if (asked.status !== 'pending_approval') throw new Error('a discovered tool asks for consent');
    writeFileSync(schemaFile, JSON.stringify(CHANGED));
    await toolcap.mcp!.discover('family');
    await toolcap.registry.refresh();
    await expect(toolcap.runtime.approve(asked.approval.id, { channel: 'cli', by: 'reviewer' })).rejects.toMatchObject({ code: 'APPROVAL_VOID' });
    expect((await toolcap.runtime.getApproval(asked.approval.id)).status).toBe('void');
    await toolcap.runtime.flush();
    expect(await ranProbe(toolcap.store)).toEqual([]);
  });

  it('through createToolcap (the host), a reviewed manifest pinning the schema: the server identity alone voids it', { timeout: T }, async () => {
    const dir = tempDir();
    const { server, schemaFile } = familyServer(dir);
    reviewed(dir);
    const toolcap = await hostOf(dir, server);
    const asked = await toolcap.runtime.call('mcp.family.probe', { a: 'x' });
    if (asked.status !== 'pending_approval') throw new Error('expected an approval');
    writeFileSync(schemaFile, JSON.stringify(CHANGED));
    await toolcap.mcp!.discover('family');
    await toolcap.registry.refresh();
    await expect(toolcap.runtime.approve(asked.approval.id, { by: 'reviewer' })).rejects.toMatchObject({ code: 'APPROVAL_VOID' });
    await toolcap.runtime.flush();
    expect(await ranProbe(toolcap.store)).toEqual([]);
  });

  /** A toolcap from a config naming the server, with a manifests/ source, closed after the test. */
  async function hostOf(dir: string, server: McpServerConfig): Promise<Toolcap> {
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    const config = join(dir, 'toolcap.config.yaml');
    const env = Object.entries(server.env)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join(', ');
    writeFileSync(
      config,
      `sources: [manifests/]\nmcp:\n  servers:\n    ${server.name}:\n      command: ${JSON.stringify(server.command)}\n      args: ${JSON.stringify(server.args)}\n      env: { ${env} }\nstore: { path: .toolcap/toolcap.db }\n`,
    );
    const toolcap = await createToolcap(config, { traces: false, warn: () => undefined }).catch((error: unknown) => {
      throw new Error(`${String(error)} ${JSON.stringify((error as ToolcapOpenError).diagnostics)}`);
    });
    closers.push(() => toolcap.close());
    return toolcap;
  }
});

describe('a secret the MCP server echoes back reaches no sink', () => {
  /** Named by the manifests' auth.envs; no token shape, so only the known-value redaction can find it. */
  const SECRET = 'correct-horse-mcp-7731';
  const NAME = 'TOOLCAP_E2E_ECHO_TOKEN';
  const sdk = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm', path)).href);
  /** A server handed the token (explicitly: its environment is an allow-list) that echoes it in every failure it has. */
  const ECHO = `import { Server } from ${sdk('server/index.js')};
import { StdioServerTransport } from ${sdk('server/stdio.js')};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${sdk('types.js')};
const token = process.env.${NAME} ?? '(none)';
const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: ['reject', 'throw', 'crash'].map((name) => ({ name, inputSchema: { type: 'object' } })) }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  switch (request.params.name) {
    case 'reject': return { isError: true, content: [{ type: 'text', text: 'upstream refused token ' + token }] };
    case 'throw': throw new Error('auth failed with token ' + token);
    default: process.stderr.write('fatal: token ' + token + ' revoked\\n'); process.exit(1);
  }
});
await server.connect(new StdioServerTransport());
`;

  const tool = (name: string) => ({
    // named as discovery names it: the host shows the server's state beside mcp.<server>.* tools
    name: `mcp.echo.${name}`,
    version: '1.0.0',
    description: `The echo server's ${name}.`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false },
    effects: { mode: 'read', sideEffects: 'read_external_service', risk: 'low', reversible: 'full' },
    execution: { timeoutSec: 10, retryClass: 'never', allowParallel: true },
    approval: { required: false },
    auth: { envs: { [NAME]: { required: true } } },
    providers: [{ name: 'mcp', priority: 0, config: { server: 'echo', tool: name } }],
  });

  /** The echo server's script and the manifests of its three tools, in a new folder. */
  function project(): { dir: string; server: McpServerConfig } {
    const dir = tempDir();
    const script = join(dir, 'echo.mjs');
    writeFileSync(script, ECHO);
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(join(dir, 'manifests', 'echo.yaml'), JSON.stringify({ toolcap: 1, tools: ['reject', 'throw', 'crash'].map(tool) }));
    return { dir, server: nodeServer('echo', script, [], { env: { [NAME]: SECRET } }) };
  }

  /** The sink texts that hold the secret, by sink name. */
  const leaks = (texts: Array<[string, string]>) => texts.filter(([, text]) => text.includes(SECRET)).map(([sink]) => sink);
  const httpCall = (name: string) => new Request(`http://toolcap.test/tools/mcp.echo.${name}/call`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ arguments: { q: 'http' } }) });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('the call should fail'),
      (error: unknown) => error as CallError,
    );

  beforeAll(() => {
    process.env[NAME] = SECRET;
  });
  afterAll(() => {
    delete process.env[NAME];
  });

  it.each([
    ['an isError result (the caller’s fault)', 'reject', /^TOOL_REJECTED$/],
    ['a JSON-RPC error', 'throw', /^(PROVIDER_ERROR|TOOL_REJECTED)$/],
    ['stderr, then a crash mid-call', 'crash', /^PROVIDER_/],
  ])('%s: the CallError and its wire body, the MCP result, the HTTP problem, audit rows, spans, warnings', { timeout: T }, async (_label, name, code) => {
    const { dir, server } = project();
    const warnings: string[] = [];
    const spans = new InMemorySpanExporter();
    const tracing = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    const clients = await started([server], join(dir, 'cache'));
    const { registry, runtime, store } = await wire(clients, [join(dir, 'manifests')], { tracer: tracing.getTracer('e2e'), warnings });
    const gateway = createGatewayServer({ registry, runtime, principal: ALICE });
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const [c, s] = InMemoryTransport.createLinkedPair();
    await gateway.server.connect(s);
    await client.connect(c);
    closers.push(() => client.close(), () => gateway.close());

    const error = await failure(runtime.call(`mcp.echo.${name}`, { q: 'hi' }));
    expect(error).toBeInstanceOf(CallError);
    expect(error.code).toMatch(code);
    // the server's words reach the caller, with the secret replaced
    if (name !== 'crash') expect(error.message).toContain('[REDACTED]');
    const texts: Array<[string, string]> = [
      ['CallError', JSON.stringify({ message: error.message, extra: error.extra, cause: String(error.cause ?? '') })],
      ['wire', JSON.stringify(callErrorWire(error))],
    ];
    // the crashed server is back for the next calls
    if (name === 'crash') expect(await waitFor(() => clients.ready('echo').healthy)).toBe(true);
    const viaMcp = await client.callTool({ name: `mcp.echo.${name}`, arguments: { q: 'again' } });
    expect(viaMcp.isError).toBe(true);
    texts.push(['MCP tool result', JSON.stringify(viaMcp)]);
    if (name === 'crash') expect(await waitFor(() => clients.ready('echo').healthy)).toBe(true);
    const viaHttp = await createApi(registry, { runtime, onError: () => undefined }).fetch(httpCall(name));
    expect(viaHttp.status).toBeGreaterThanOrEqual(400);
    texts.push(['HTTP problem', await viaHttp.text()]);

    await runtime.flush();
    await tracing.forceFlush();
    texts.push(['audit', JSON.stringify(await store.listAudit({ limit: 1000 }))]);
    texts.push(['spans', JSON.stringify(spans.getFinishedSpans().map((x) => ({ name: x.name, attributes: x.attributes, status: x.status, events: x.events })))]);
    texts.push(['runtime warnings', warnings.join('\n')]);
    expect(spans.getFinishedSpans().length).toBeGreaterThan(0);
    expect(leaks(texts)).toEqual([]);
  });

  it('through createToolcap (the host): a crash with the secret on stderr reaches neither its warnings, the health it serves, nor the trace file', { timeout: T }, async () => {
    const { dir, server } = project();
    const config = join(dir, 'toolcap.config.yaml');
    writeFileSync(config, `sources: [manifests/]\nmcp:\n  servers:\n    echo:\n      command: ${JSON.stringify(server.command)}\n      args: ${JSON.stringify(server.args)}\n      env: { ${NAME}: ${JSON.stringify(SECRET)} }\n      defaults: { consent: false }\nstore: { path: .toolcap/toolcap.db }\n`);
    const warnings: string[] = [];
    const toolcap = await createToolcap(config, { warn: (m) => warnings.push(m) });
    closers.push(() => toolcap.close());

    const error = await failure(toolcap.runtime.call('mcp.echo.crash', {}));
    expect(error.code).toMatch(/^PROVIDER_/);
    // the server is down (with why) until it is back: what /tools shows of its tools meanwhile
    expect(await waitFor(() => toolcap.mcp!.status()[0]!.state !== 'up', 100, 10)).toBe(true);
    const health = JSON.stringify(toolcap.health.lookup('mcp.echo.crash') ?? null);
    const listed = await (await createApi(toolcap.registry, { runtime: toolcap.runtime, health: toolcap.health }).fetch(new Request('http://toolcap.test/tools/mcp.echo.crash'))).text();
    await toolcap.close();
    expect(warnings.join('\n')).toMatch(/MCP server "echo" is down/);
    expect(leaks([
      ['CallError', JSON.stringify(callErrorWire(error))],
      ['warnings', warnings.join('\n')],
      ['health', health],
      ['GET /tools/mcp.echo.crash', listed],
      ['trace file', readFileSync(toolcap.traceFile!, 'utf8')],
    ])).toEqual([]);
  });
});
