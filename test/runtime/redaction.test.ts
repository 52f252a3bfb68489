/**
 * Secrets never leave (issue 12): a secret planted in every provider
 * failure path the runtime reaches (a fake provider's error, a command
 * printing it on stderr, an http provider answering 500 or 400 with it in
 * the body, a module throwing it) and in a store failure, then every sink
 * scanned: the CallError and its wire body, the audit rows, the spans
 * (attributes and status), the trace file, the warnings. Arguments are
 * recorded only per traceAttrs, never a sensitive parameter.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callErrorWire } from '../../src/runtime/errors.js';
import { ProviderTypes } from '../../src/runtime/providers/provider-types.js';
import { JsonLinesSpanExporter } from '../../src/runtime/trace-file.js';
import { StoreUnavailableError, type Store } from '../../src/store/types.js';
import { callError, closeAll, FakeProviders, fakeTool, harness, manifest, type Harness } from './helpers.js';

/** Matches a token shape (sk-live-…) and is named by the manifests' auth.envs. */
const TOKEN = 'sk-live-4f9a8b7c6d5e4f3a2b1c';
/** Matches no token shape: only the known-value redaction finds it. */
const PASS = 'correct-horse-battery-9931';
const SECRETS = [TOKEN, PASS];

const ENV = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', TOOLCAP_TEST_TOKEN: TOKEN, TOOLCAP_TEST_PASS: PASS };

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(req.url?.includes('reject') ? 400 : 500, { 'content-type': 'text/plain' });
    res.end(`upstream says: token ${TOKEN} and password ${PASS} refused`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(closeAll);

/** A write tool naming both secrets, with a traced field, a sensitive one, and one not traced. */
function secretTool(name: string, providers: unknown[]) {
  return fakeTool(name, {
    effects: { mode: 'write', sideEffects: 'write', risk: 'medium', reversible: 'none' },
    auth: { envs: { TOOLCAP_TEST_TOKEN: { required: true } } },
    inputSchema: { type: 'object', properties: { repo: { type: 'string' }, password: { type: 'string', 'x-sensitive': true }, body: { type: 'string' } } },
    observability: { traceAttrs: ['repo', 'password'] },
    execution: { timeoutSec: 10, retryClass: 'never', allowParallel: true },
    providers: providers.map((p) => ({ priority: 0, ...(p as object), config: { requiredEnv: ['TOOLCAP_TEST_PASS'], ...((p as { config: object }).config) } })),
  });
}

const ARGS = { repo: `acme/api?token=${TOKEN}`, password: PASS, body: `body ${TOKEN}` };

interface Sinks {
  h: Harness;
  spans: InMemorySpanExporter;
  traceFile: string;
  shutdown(): Promise<void>;
}

async function sinks(tools: unknown[], fakes?: FakeProviders): Promise<Sinks> {
  const spans = new InMemorySpanExporter();
  const h0 = { dir: '' };
  const traceFile = () => join(h0.dir, 'traces.jsonl');
  const fileExporter = { current: undefined as JsonLinesSpanExporter | undefined };
  const provider = new BasicTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(spans),
      new SimpleSpanProcessor({
        export: (s, done) => (fileExporter.current ??= new JsonLinesSpanExporter(traceFile())).export(s, done),
        shutdown: async () => fileExporter.current?.shutdown(),
        forceFlush: async () => fileExporter.current?.forceFlush(),
      }),
    ],
  });
  const types = new ProviderTypes();
  if (fakes) types.register(fakes.type());
  const h = await harness(manifest(tools as Array<Record<string, unknown>>), {
    providers: types,
    tracer: provider.getTracer('test'),
    environment: { env: ENV, egress: { allow: ['127.0.0.1'] } },
  });
  h0.dir = h.dir;
  return { h, spans, traceFile: traceFile(), shutdown: () => provider.forceFlush() };
}

/** Every sink's text, and the places a secret was found. */
async function leaks(s: Sinks, error: unknown): Promise<string[]> {
  await s.h.flush();
  await s.shutdown();
  const texts: Array<[string, string]> = [];
  if (error) {
    texts.push(['error', JSON.stringify({ message: (error as Error).message, extra: (error as { extra?: unknown }).extra, cause: String((error as Error).cause ?? '') })]);
    texts.push(['wire', JSON.stringify(callErrorWire(error as never))]);
  }
  texts.push(['audit', JSON.stringify(await s.h.sqlite.listAudit({ limit: 1000 }))]);
  texts.push(['spans', JSON.stringify(s.spans.getFinishedSpans().map((x) => ({ attributes: x.attributes, status: x.status, events: x.events })))]);
  texts.push(['trace file', existsSync(s.traceFile) ? readFileSync(s.traceFile, 'utf8') : '']);
  texts.push(['warnings', s.h.warnings.join('\n')]);
  return texts.flatMap(([sink, text]) => SECRETS.filter((secret) => text.includes(secret) || text.includes(encodeURIComponent(secret))).map((secret) => `${sink}: ${secret}`));
}

describe('a secret planted in a failure path reaches no sink', () => {
  it('a fake provider whose error carries both secrets', async () => {
    const fakes = new FakeProviders().on('p1', async () => {
      throw new Error(`auth failed with token ${TOKEN} (password ${PASS})`);
    });
    const s = await sinks([secretTool('fake.fail', [{ name: 'p1', config: { type: 'fake' } }])], fakes);
    const e = await callError(s.h.runtime.call('fake.fail', ARGS));
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(e.message).toContain('[REDACTED]');
    expect(await leaks(s, e)).toEqual([]);
    // the traced field is recorded (redacted), the sensitive one never, the untraced one never
    const attributes = s.spans.getFinishedSpans()[0]!.attributes;
    expect(attributes['toolcap.arg.repo']).toBe('acme/api?token=[REDACTED]');
    expect(Object.keys(attributes).filter((k) => k.startsWith('toolcap.arg.'))).toEqual(['toolcap.arg.repo']);
  });

  it.skipIf(process.platform === 'win32')('a command that prints the token on stderr and fails', async () => {
    const s0 = await sinks([]);
    const script = join(s0.h.dir, 'manifests', 'fail.sh');
    writeFileSync(script, '#!/bin/sh\necho "auth failed with token $TOOLCAP_TEST_TOKEN, password $TOOLCAP_TEST_PASS" >&2\nexit 3\n');
    chmodSync(script, 0o755);
    await s0.h.rewrite(manifest([secretTool('cmd.fail', [{ name: 'cmd', config: { type: 'command', command: './fail.sh' } }])]));
    const e = await callError(s0.h.runtime.call('cmd.fail', ARGS));
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(await leaks(s0, e)).toEqual([]);
  });

  it.each([
    ['500 (a provider fault)', 'fail', 'PROVIDER_ERROR'],
    ['400 (the caller\'s fault)', 'reject', 'TOOL_REJECTED'],
  ])('an http provider answering %s with both secrets in the body', async (_label, path, code) => {
    const s = await sinks([secretTool('http.fail', [{ name: 'api', config: { type: 'http', baseUrl: base, path: `/${path}`, method: 'POST' } }])]);
    const e = await callError(s.h.runtime.call('http.fail', ARGS));
    expect(e.code).toBe(code);
    expect(await leaks(s, e)).toEqual([]);
  });

  it('a module that throws the token', async () => {
    const s0 = await sinks([]);
    writeFileSync(join(s0.h.dir, 'manifests', 'fail.mjs'), 'export default () => { throw new Error(`auth failed with token ${process.env.TOOLCAP_TEST_TOKEN ?? "sk-live-4f9a8b7c6d5e4f3a2b1c"} / correct-horse-battery-9931`); };\n');
    await s0.h.rewrite(manifest([secretTool('mod.fail', [{ name: 'mod', config: { type: 'module', module: './fail.mjs' } }])]));
    const e = await callError(s0.h.runtime.call('mod.fail', ARGS));
    expect(e.code).toBe('PROVIDER_ERROR');
    expect(await leaks(s0, e)).toEqual([]);
  });

  it('a store failure whose message carries the password is a redacted warning', async () => {
    const s = await sinks([fakeTool('read.it', { auth: { envs: { TOOLCAP_TEST_PASS: {} } } })], new FakeProviders());
    const refuse = async () => {
      throw new Error(`connect postgres://app:${PASS}@db/toolcap failed`);
    };
    Object.assign(s.h.store, { recordCall: refuse, recordOutcomes: refuse } satisfies Partial<Store>);
    await s.h.runtime.call('read.it', {});
    await s.h.flush();
    expect(s.h.warnings.join('\n')).toMatch(/could not record/);
    expect(await leaks(s, undefined)).toEqual([]);
  });
});

describe('a store failure behind an approval look-up', () => {
  // the approval-status tool and GET /approvals answer with these errors: a driver's message may hold a connection string
  it.each([
    ['getApproval', (h: Harness) => h.runtime.getApproval('apr_x')],
    ['listApprovals', (h: Harness) => h.runtime.listApprovals()],
    ['waitForApproval', (h: Harness) => h.runtime.waitForApproval('apr_x', 10)],
  ])('%s is refused with the password redacted', async (_method, look) => {
    const s = await sinks([fakeTool('read.it', { auth: { envs: { TOOLCAP_TEST_PASS: {} } } })], new FakeProviders());
    const refuse = async () => {
      throw new StoreUnavailableError(`connect postgres://app:${PASS}@db/toolcap failed`);
    };
    Object.assign(s.h.store, { getApproval: refuse, listApprovals: refuse } satisfies Partial<Store>);
    const error = await look(s.h).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/connect postgres/);
    expect(await leaks(s, error)).toEqual([]);
  });
});

describe('the redactor option', () => {
  it('replaces the default, and runtime.redactor is what the host hands to its logs', async () => {
    const { createRedactor } = await import('../../src/runtime/containment/redact.js');
    const fakes = new FakeProviders().on('p1', async () => {
      throw new Error('leaked internal-codename-zeta');
    });
    const h = await harness([fakeTool('x.fail')], { providers: new ProviderTypes({ empty: true }).register(fakes.type()), redactor: createRedactor({ patterns: [/internal-codename-\w+/] }) });
    const e = await callError(h.runtime.call('x.fail', {}));
    expect(e.message).not.toContain('zeta');
    expect(h.runtime.redactor.redactText('internal-codename-zeta')).toBe('[REDACTED]');
  });
});
