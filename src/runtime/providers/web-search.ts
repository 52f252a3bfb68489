/**
 * Web-search provider types: `google_cse` (Google Custom Search JSON API)
 * and `serpapi` (SerpAPI's Google engine), the providers ATLAS's search
 * tool names. Each is one HTTP GET, sent through the `http` provider (so
 * the egress policy, the pinned-address dispatcher, the redirect rules and
 * the body limit apply unchanged); the engine (./web-search-engines.ts)
 * says which query parameters to send and how to read the answer.
 *
 * Both answer one result shape, {@link WebSearchResult}:
 * `{ source, query, results: [{ position, title, link, snippet }], totalResults?, nextStart? }`.
 *
 * Config (see docs/providers.md): `baseUrl` (the API's origin; override it
 * for a proxy or a test stand-in; the operator's `runtime.providerBaseUrls`
 * wins over the manifest's), `api_key_env`
 * (`google_cse` also `cx_env`, or a literal `cx`), `num` (results per call
 * unless the call asks), `healthCheckIntervalSec`. The variable names
 * default to what the tool's `auth.envs` declares (see
 * {@link webSearchCredentialEnvs}). The key never comes from the manifest.
 *
 * Errors: rate limits (429), server errors (5xx) and the provider's own
 * credential or quota refusals (401, 403, a 400 about the key) are the
 * provider's fault, so the router fails over to the next provider; other
 * 4xx answers are the caller's (TOOL_REJECTED). A search has no side
 * effects, so every failure but an abort is `beforeEffect`.
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import { errorMessage } from '../../model/errors.js';
import { createRedactor, redactedExcerpt } from '../containment/redact.js';
import { codeIdentityOf } from './identity.js';
import { httpProviderType } from './http.js';
import { ENGINES, type SearchEngine, type SearchInput } from './web-search-engines.js';
import {
  ProviderConfigError,
  ProviderError,
  type HealthCheckResult,
  type ProviderCallContext,
  type ProviderEnvironment,
  type ProviderInstance,
  type ProviderType,
} from './types.js';

export type { SearchEngine } from './web-search-engines.js';

/** One search hit, the same from every engine. */
export interface WebSearchHit {
  /** 1-based rank within the whole result list (`start` counts). */
  position: number;
  title: string;
  link: string;
  snippet: string;
  /** The host as the engine shows it, when it says. */
  displayLink?: string;
}

/**
 * What a web-search provider returns.
 * @example { source: 'serpapi', query: 'toolcap', results: [{ position: 1, title: 'toolcap', link: 'https://…', snippet: '…' }] }
 */
export interface WebSearchResult {
  /** The provider type that answered: `google_cse` or `serpapi`. */
  source: string;
  query: string;
  results: WebSearchHit[];
  /** The engine's estimate of all matches, when it gives one. */
  totalResults?: number;
  /** The `start` of the next page, when there is one. */
  nextStart?: number;
}

/** A web-search entry's config, read and checked. */
export interface WebSearchConfig {
  baseUrl: string;
  /** Query parameter -> the environment variable holding it (the key first). */
  envs: Record<string, string>;
  /** Fixed query parameters (e.g. a literal `cx`). */
  fixed: Record<string, string>;
  num?: number;
  healthCheckIntervalSec?: number;
}

/** First key of `keys` in `config` holding a string, checked non-empty. */
function stringKey(config: Record<string, unknown>, keys: readonly string[], fail: (m: string) => never): string | undefined {
  for (const key of keys) {
    const v = config[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') return fail(`config.${key} must be a non-empty string`);
    return v;
  }
  return undefined;
}

/** The first variable the tool's `auth.envs` declares whose name matches, else `fallback`. */
function declared(tool: Tool, pattern: RegExp, fallback: string): string {
  return Object.keys(tool.auth?.envs ?? {}).find((n) => pattern.test(n)) ?? fallback;
}

/** Read the config of one web-search entry; throws {@link ProviderConfigError}. */
export function readWebSearchConfig(engine: SearchEngine, entry: Provider, tool: Tool, operatorBaseUrl?: string): WebSearchConfig {
  const config = entry.config ?? {};
  const fail = (m: string): never => {
    throw new ProviderConfigError(`provider "${entry.name}" of tool "${tool.name}": ${m}`);
  };
  const own = stringKey(config, ['baseUrl', 'base_url'], fail);
  // the operator's base URL (config runtime.providerBaseUrls) wins over the manifest's
  const baseUrl = operatorBaseUrl ?? own ?? engine.baseUrl;
  if (!/^https?:\/\//i.test(baseUrl)) fail(`baseUrl "${baseUrl}" is not an absolute http(s) URL`);
  if ('api_key' in config || 'apiKey' in config || 'key' in config) fail('config must not hold a credential; name its environment variable in config.api_key_env');
  const envs: Record<string, string> = {};
  const fixed: Record<string, string> = {};
  for (const param of engine.credentials) {
    const literal = param.literal === undefined ? undefined : stringKey(config, [param.literal], fail);
    if (literal !== undefined) fixed[param.query] = literal;
    else envs[param.query] = stringKey(config, param.configKeys, fail) ?? declared(tool, param.declared, param.fallback);
  }
  const out: WebSearchConfig = { baseUrl, envs, fixed };
  const num = config['num'];
  if (num !== undefined) {
    if (typeof num !== 'number' || !Number.isInteger(num) || num < 1 || num > engine.maxNum) fail(`config.num must be a whole number from 1 to ${engine.maxNum}`);
    out.num = num as number;
  }
  const interval = config['healthCheckIntervalSec'];
  if (interval !== undefined) {
    if (typeof interval !== 'number' || !(interval > 0)) fail('config.healthCheckIntervalSec must be a positive number');
    out.healthCheckIntervalSec = interval as number;
  }
  return out;
}

/**
 * The environment variables a web-search entry needs set (key first), or
 * undefined when the entry is not a web-search type or its config is unusable.
 * @example webSearchCredentialEnvs('google_cse', { name: 'google_cse' }, tool) // ['GOOGLE_API_KEY', 'GOOGLE_CSE_ID']
 */
export function webSearchCredentialEnvs(type: string, entry: Provider, tool: Tool): string[] | undefined {
  const engine = ENGINES[type];
  if (!engine) return undefined;
  try {
    return Object.values(readWebSearchConfig(engine, entry, tool).envs);
  } catch {
    return undefined;
  }
}

/** The call's arguments as a search: `query` (or `q`), `num` (or `k`, `max_results`, `count`, `limit`), `start`, and the engine's pass-through keys. */
function searchInput(args: Record<string, unknown>, engine: SearchEngine, config: WebSearchConfig): SearchInput {
  const query = args['query'] ?? args['q'];
  const reject = (m: string): never => {
    throw new ProviderError('PROVIDER_ERROR', `${engine.title}: ${m}`, true, { fault: 'caller' });
  };
  if (typeof query !== 'string' || query.trim() === '') return reject('the call needs a non-empty "query" string');
  const n = args['num'] ?? args['k'] ?? args['max_results'] ?? args['count'] ?? args['limit'];
  const start = args['start'];
  if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 1)) reject('"num" must be a whole number of at least 1');
  if (start !== undefined && (typeof start !== 'number' || !Number.isInteger(start) || start < 1)) reject('"start" must be a whole number of at least 1 (the first result is 1)');
  const extra: Record<string, string> = {};
  for (const key of engine.passThrough) {
    const v = args[key];
    if (typeof v === 'string' || typeof v === 'number') extra[key] = String(v);
  }
  return { query, num: Math.min(engine.maxNum, (n as number | undefined) ?? config.num ?? 10), start: (start as number | undefined) ?? 1, extra };
}

class WebSearchInstance implements ProviderInstance {
  declare readonly healthCheckIntervalSec?: number;
  private readonly http: ProviderInstance;

  constructor(
    readonly name: string,
    readonly type: string,
    private readonly engine: SearchEngine,
    private readonly config: WebSearchConfig,
    tool: Tool,
    private readonly environment: ProviderEnvironment,
  ) {
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
    const [keyParam, keyEnv] = Object.entries(config.envs)[0] ?? [];
    // the key travels as the engine's query parameter; the http provider drops it on a cross-origin redirect
    const auth = keyParam === undefined ? {} : { auth: { type: 'query', env: keyEnv, name: keyParam } };
    const http = { name, config: { baseUrl: config.baseUrl, method: 'GET', path: engine.path, ...auth } };
    this.http = httpProviderType.create(http, tool, environment);
  }

  ready(): HealthCheckResult {
    const missing = Object.values(this.config.envs).filter((n) => (this.environment.env[n] ?? '') === '');
    if (missing.length > 0) return { healthy: false, reason: `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set` };
    return this.http.ready?.() ?? { healthy: true };
  }

  async codeIdentity(): Promise<string> {
    return codeIdentityOf(this.type, { engine: this.engine.type, url: `${this.config.baseUrl}${this.engine.path}`, http: (await this.http.codeIdentity?.()) ?? null });
  }

  async close(): Promise<void> {
    await this.http.close?.();
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<WebSearchResult> {
    const input = searchInput(args, this.engine, this.config);
    const params: Record<string, unknown> = { ...this.engine.query(input), ...this.config.fixed };
    // the key is added by the http provider; every other credential (the CSE id) is a query parameter read here
    for (const [param, env] of Object.entries(this.config.envs).slice(1)) {
      const value = this.environment.env[env];
      if (value === undefined || value === '') throw new ProviderError('PROVIDER_UNAVAILABLE', `${env} is not set`, true);
      params[param] = value;
    }
    let body: unknown;
    try {
      body = await this.http.call(params, context);
    } catch (err) {
      throw this.failure(err);
    }
    const read = this.engine.read(body);
    if ('error' in read) throw new ProviderError('BAD_RESPONSE', `${this.engine.title}: ${this.excerpt(read.error)}`, true, { fault: 'provider' });
    const results = read.results.map((hit, i) => ({ position: input.start + i, ...hit }));
    const out: WebSearchResult = { source: this.type, query: input.query, results };
    if (read.totalResults !== undefined) out.totalResults = read.totalResults;
    if (read.more) out.nextStart = input.start + results.length;
    return out;
  }

  /** An http failure in the engine's terms: whose fault, with the API's own message. */
  private failure(err: unknown): ProviderError {
    if (!(err instanceof ProviderError)) return new ProviderError('PROVIDER_ERROR', `${this.engine.title}: ${errorMessage(err)}`, true, { cause: err });
    if (err.code === 'ABORTED') return err;
    const status = err.status;
    if (status === undefined) return new ProviderError(err.code, `${this.engine.title}: ${err.message}`, true, { cause: err, detail: err.detail });
    const detail = err.detail as { body?: unknown; retryAfter?: unknown } | undefined;
    const body = detail !== null && typeof detail === 'object' && 'retryAfter' in detail ? detail.body : detail;
    const { message, fault } = this.engine.classify(status, body);
    return new ProviderError('PROVIDER_ERROR', `${this.engine.title}: HTTP ${status}: ${this.excerpt(message)}`, true, { cause: err, status, detail: err.detail, fault });
  }

  /**
   * An engine's own error text, redacted and then cut: it may echo the query (the caller's) or the request
   * (its credentials), and a secret the cut went through would keep its start, which no later redaction matches.
   * The redactor knows the credential values this provider sends and the token shapes; built only on a failure.
   */
  private excerpt(text: string): string {
    const secrets = Object.values(this.config.envs).map((name) => this.environment.env[name]);
    return redactedExcerpt(text, createRedactor({ secrets }).redactText, MAX_ENGINE_MESSAGE);
  }
}

/** Most characters of an engine's own error text kept in the error (after redaction: {@link redactedExcerpt}). */
export const MAX_ENGINE_MESSAGE = 300;

/** A provider type for one engine. */
function webSearchType(engine: SearchEngine): ProviderType {
  return {
    type: engine.type,
    create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
      const config = readWebSearchConfig(engine, entry, tool, environment.baseUrls?.[engine.type]);
      return new WebSearchInstance(entry.name, engine.type, engine, config, tool, environment);
    },
  };
}

/** The `google_cse` provider type: Google Custom Search JSON API (`GET /customsearch/v1?key=&cx=&q=&num=&start=`). */
export const googleCseProviderType: ProviderType = webSearchType(ENGINES['google_cse']!);
/** The `serpapi` provider type: SerpAPI (`GET /search.json?engine=google&q=&api_key=&num=&start=`). */
export const serpApiProviderType: ProviderType = webSearchType(ENGINES['serpapi']!);
