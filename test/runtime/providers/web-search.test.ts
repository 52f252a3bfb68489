/**
 * The ATLAS provider names as provider types: `google_cse` and `serpapi`
 * (config, whose fault an error is, egress), `openai` and
 * `internal_http_client` (mappings onto `http`), and which credentials each
 * entry needs (credentials.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Provider, Tool } from '../../../src/model/schema.js';
import { credentialNeeds, credentialRefusal, providerCredentials } from '../../../src/runtime/credentials.js';
import { secretEnvNames } from '../../../src/runtime/secrets.js';
import { ProviderTypes } from '../../../src/runtime/providers/provider-types.js';
import { ENGINES } from '../../../src/runtime/providers/web-search-engines.js';
import { googleCseProviderType, readWebSearchConfig } from '../../../src/runtime/providers/web-search.js';
import { createRedactor } from '../../../src/runtime/containment/redact.js';
import type { ProviderEnvironment } from '../../../src/runtime/providers/types.js';
import { contextFor, rejection } from './contract.js';

const SEARCH: Tool = { name: 'google_search', auth: { envs: { GOOGLE_API_KEY: { required: true }, GOOGLE_CSE_ID: { required: true }, SERPAPI_KEY: { optional: true } } } };
const env = (vars: Record<string, string>): ProviderEnvironment => ({ env: vars, baseDir: process.cwd() });

describe('whose fault an engine\'s error answer is', () => {
  const google = (code: number, message: string, reason: string) => ({ error: { code, message, errors: [{ reason }] } });
  it.each<[string, number, unknown, 'provider' | 'caller']>([
    ['google_cse', 429, google(429, 'Quota exceeded for quota metric', 'rateLimitExceeded'), 'provider'],
    ['google_cse', 403, google(403, 'This project has exceeded its daily quota.', 'dailyLimitExceeded'), 'provider'],
    ['google_cse', 400, google(400, 'API key not valid. Please pass a valid API key.', 'badRequest'), 'provider'],
    ['google_cse', 503, google(503, 'Backend Error', 'backendError'), 'provider'],
    ['google_cse', 400, google(400, 'Invalid Value', 'invalid'), 'caller'],
    ['serpapi', 401, { error: 'Invalid API key.' }, 'provider'],
    ['serpapi', 429, { error: 'Your account has run out of searches.' }, 'provider'],
    ['serpapi', 500, { error: 'Internal error.' }, 'provider'],
    ['serpapi', 400, { error: 'Missing query `q` parameter.' }, 'caller'],
  ])('%s HTTP %i -> %s', (engine, status, body, fault) => {
    expect(ENGINES[engine]!.classify(status, body).fault).toBe(fault);
  });
});

describe('web-search config', () => {
  it.each<[string, Provider, Record<string, string>]>([
    ['defaults from the declared auth.envs', { name: 'google_cse' }, { key: 'GOOGLE_API_KEY', cx: 'GOOGLE_CSE_ID' }],
    ['names from config (ATLAS keys)', { name: 'google_cse', config: { api_key_env: 'G_KEY', cse_id_env: 'G_CX' } }, { key: 'G_KEY', cx: 'G_CX' }],
  ])('google_cse: %s', (_label, entry, envs) => {
    expect(readWebSearchConfig(ENGINES['google_cse']!, entry, SEARCH).envs).toEqual(envs);
  });

  it('a literal cx is not a credential; the key still is', () => {
    const config = readWebSearchConfig(ENGINES['google_cse']!, { name: 'google_cse', config: { cx: 'abc123' } }, SEARCH);
    expect(config).toMatchObject({ envs: { key: 'GOOGLE_API_KEY' }, fixed: { cx: 'abc123' }, baseUrl: 'https://www.googleapis.com' });
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a key in the manifest', { api_key: 'secret' }, /must not hold a credential/],
    ['a relative baseUrl', { baseUrl: 'localhost:8080' }, /not an absolute http\(s\) URL/],
    ['num above the API\'s maximum', { num: 11 }, /config\.num must be a whole number from 1 to 10/],
  ])('refuses %s', (_label, config, message) => {
    const [slot] = new ProviderTypes().instantiate({ ...SEARCH, providers: [{ name: 'google_cse', config }] }, env({}));
    expect(slot?.instance).toBeUndefined();
    expect(slot?.error).toMatch(message);
  });

  it('the operator\'s base URL (runtime.providerBaseUrls) wins over the manifest\'s', async () => {
    const instance = googleCseProviderType.create({ name: 'google_cse', config: { baseUrl: 'https://manifest.example' } }, SEARCH, { ...env({}), baseUrls: { google_cse: 'https://proxy.example' } });
    expect(await instance.codeIdentity?.()).toBe(await googleCseProviderType.create({ name: 'google_cse', config: { baseUrl: 'https://proxy.example' } }, SEARCH, env({})).codeIdentity?.());
  });

  it('an operator egress list without the API\'s host makes the provider not ready', () => {
    const instance = googleCseProviderType.create({ name: 'google_cse' }, SEARCH, { ...env({ GOOGLE_API_KEY: 'k', GOOGLE_CSE_ID: 'c' }), egress: { allow: ['serpapi.com'] } });
    expect(instance.ready?.()).toMatchObject({ healthy: false, reason: expect.stringMatching(/^egress refused/) });
  });

  it('a call without a query is the caller\'s fault, before anything is sent', async () => {
    const instance = googleCseProviderType.create({ name: 'google_cse', config: { baseUrl: 'http://127.0.0.1:9' } }, SEARCH, env({ GOOGLE_API_KEY: 'k', GOOGLE_CSE_ID: 'c' }));
    const e = await rejection(instance.call({ q: '  ' }, contextFor()));
    expect({ fault: e.fault, beforeEffect: e.beforeEffect }).toEqual({ fault: 'caller', beforeEffect: true });
  });
});

describe('which credentials a provider entry needs', () => {
  it.each<[string, Provider, Tool, string[]]>([
    ['google_cse by default', { name: 'google_cse' }, SEARCH, ['GOOGLE_API_KEY', 'GOOGLE_CSE_ID']],
    ['serpapi, as the manifest declares it', { name: 'serpapi' }, SEARCH, ['SERPAPI_KEY']],
    ['serpapi with SerpAPI\'s own variable name declared', { name: 'serpapi' }, { name: 't', auth: { envs: { SERPAPI_API_KEY: {} } } }, ['SERPAPI_API_KEY']],
    ['openai', { name: 'openai', config: { model: 'gpt-4o-mini' } }, { name: 't' }, ['OPENAI_API_KEY']],
    ['http with auth.env', { name: 'api', config: { type: 'http', baseUrl: 'https://x.test', auth: { type: 'bearer', env: 'X_TOKEN' } } }, { name: 't' }, ['X_TOKEN']],
    ['any type naming requiredEnv', { name: 'cli', config: { type: 'command', command: 'x', requiredEnv: ['GH_HOST'] } }, { name: 't' }, ['GH_HOST']],
    ['an unknown type naming nothing', { name: 'grpc' }, { name: 't' }, []],
  ])('%s', (_label, entry, tool, names) => {
    expect(providerCredentials(entry, tool)).toEqual(names);
  });

  it('the variables a type reads by default are secrets to redact, declared or not', () => {
    expect(secretEnvNames({ name: 't', providers: [{ name: 'google_cse' }, { name: 'serpapi' }, { name: 'openai', config: { model: 'm' } }] })).toEqual(['GOOGLE_API_KEY', 'GOOGLE_CSE_ID', 'OPENAI_API_KEY', 'SERPAPI_KEY']);
  });

  it('a required auth.envs variable no provider claims is needed by every provider: a module tool is refused', () => {
    const tool: Tool = { name: 'gh', auth: { envs: { GITHUB_TOKEN: { required: true }, GH_DEBUG: { optional: true } } }, providers: [{ name: 'module', config: { module: './x.js' } }] };
    expect(credentialNeeds(tool).toolWide).toEqual(['GITHUB_TOKEN']);
    const slots = [{ entry: tool.providers![0]!, priority: 0, instance: { name: 'module', type: 'module', call: async () => null } }];
    expect(credentialRefusal(tool, slots, {})?.extra).toMatchObject({ missing: ['GITHUB_TOKEN'] });
    expect(credentialRefusal(tool, slots, { GITHUB_TOKEN: 't' })).toBeUndefined();
    expect(credentialRefusal({ ...tool, auth: { ...tool.auth, required: false } }, slots, {})).toBeUndefined();
  });
});

describe('openai and internal_http_client map onto http', () => {
  let server: Server;
  let base = '';
  const seen: Array<{ path: string; auth: string | undefined; body: any }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', auth: req.headers.authorization, body: text ? JSON.parse(text) : undefined });
        res.writeHead(200, { 'content-type': 'application/json' });
        if (req.url === '/v1/chat/completions') res.end(JSON.stringify({ id: 'c1', choices: [{ index: 0, message: { role: 'assistant', content: 'found it' } }] }));
        else if (req.url === '/v1/responses') res.end(JSON.stringify({ id: 'r1', output: [{ type: 'message', content: [{ type: 'output_text', text: 'done' }] }] }));
        else res.end(JSON.stringify({ path: req.url }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const tool: Tool = { name: 'browser_lookup', description: 'Open a page and find text on it.', auth: { envs: { OPENAI_API_KEY: { required: true } } } };

  it('openai: chat completions POST with the bearer key from the declared variable; the model\'s text back', async () => {
    const [slot] = new ProviderTypes().instantiate({ ...tool, providers: [{ name: 'openai', priority: 10, config: { model: 'gpt-4o-mini', baseUrl: base } }] }, env({ OPENAI_API_KEY: 'sk-test-123' }));
    await expect(slot!.instance!.call({ url: 'https://example.com', text: 'x' }, contextFor())).resolves.toMatchObject({ text: 'found it', response: { id: 'c1' } });
    expect(seen.at(-1)).toEqual({
      path: '/v1/chat/completions',
      auth: 'Bearer sk-test-123',
      body: { model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Open a page and find text on it.' }, { role: 'user', content: '{"url":"https://example.com","text":"x"}' }] },
    });
  });

  it('openai: the responses endpoint', async () => {
    const [slot] = new ProviderTypes().instantiate({ ...tool, providers: [{ name: 'openai', config: { model: 'gpt-4o-mini', endpoint: 'responses', baseUrl: base } }] }, env({ OPENAI_API_KEY: 'k' }));
    await expect(slot!.instance!.call({ input: 'hello' }, contextFor())).resolves.toMatchObject({ text: 'done' });
    expect(seen.at(-1)).toMatchObject({ path: '/v1/responses', body: { model: 'gpt-4o-mini', instructions: 'Open a page and find text on it.', input: 'hello' } });
  });

  it('openai without a model is a config error; without its key it is not ready', () => {
    const [bad] = new ProviderTypes().instantiate({ ...tool, providers: [{ name: 'openai' }] }, env({}));
    expect(bad?.error).toMatch(/config\.model/);
    const [unready] = new ProviderTypes().instantiate({ ...tool, providers: [{ name: 'openai', config: { model: 'm', baseUrl: base } }] }, env({}));
    expect(unready?.instance?.ready?.()).toEqual({ healthy: false, reason: 'OPENAI_API_KEY is not set' });
  });

  it('internal_http_client: the http provider with ATLAS\'s url', async () => {
    const [slot] = new ProviderTypes().instantiate({ name: 'webpage_fetch', providers: [{ name: 'internal_http_client', config: { url: `${base}/fetch`, method: 'GET' } }] }, env({}));
    expect(slot?.instance?.type).toBe('internal_http_client');
    await expect(slot!.instance!.call({ page: '1' }, contextFor())).resolves.toEqual({ path: '/fetch?page=1' });
  });
});

describe('an engine\'s error text is redacted before it is cut', () => {
  // The text is cut to 300 characters (MAX_ENGINE_MESSAGE). Cut first, a secret the cut went through kept its start, which
  // neither its known value nor a token shape matches any more, so the redaction that runs later let it through.
  const KEY = 'AIzaSyD-known-key-value-0123456789abcdef';
  const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
  const CUT = 300;
  let server: Server;
  let base: string;
  let answer: { status: number; body: unknown } = { status: 400, body: {} };
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const search = async (engine: 'google_cse' | 'serpapi', body: unknown, status = 400) => {
    answer = { status, body };
    const type = new ProviderTypes().get(engine)!;
    const vars = engine === 'google_cse' ? { GOOGLE_API_KEY: KEY, GOOGLE_CSE_ID: 'cse-id' } : { SERPAPI_KEY: KEY };
    const instance = type.create({ name: engine, config: { baseUrl: base } }, SEARCH, env(vars));
    return rejection(instance.call({ q: 'padded' }, contextFor()));
  };
  // the secret starts 20 characters before the cut: its first 20 survived a cut-then-redact
  const straddling = (secret: string) => `${'x'.repeat(CUT - 21)} ${secret} and more`;

  it.each([
    ['a token shape (google_cse)', 'google_cse', TOKEN],
    ['the API key it was sent (google_cse)', 'google_cse', KEY],
    ['a token shape (serpapi)', 'serpapi', TOKEN],
    ['the API key it was sent (serpapi)', 'serpapi', KEY],
  ] as const)('%s on the cut', async (_label, engine, secret) => {
    const message = straddling(secret);
    const e = await search(engine, engine === 'google_cse' ? { error: { code: 400, message } } : { error: message });
    // what later sinks do with it: the token shapes again
    const shown = createRedactor().redactText(e.message);
    expect(shown).not.toContain(secret.slice(0, 12));
    expect(shown).toContain('[REDACTED]');
    expect(e.message.length).toBeLessThan(CUT + 100);
  });

  it('an error SerpAPI answers with 200 too', async () => {
    const e = await search('serpapi', { error: straddling(TOKEN) }, 200);
    expect(e.code).toBe('BAD_RESPONSE');
    expect(createRedactor().redactText(e.message)).not.toContain(TOKEN.slice(0, 12));
  });
});
