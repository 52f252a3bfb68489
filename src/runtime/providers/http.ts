/**
 * The `http` provider type: run a tool as one HTTP request with the global
 * `fetch`.
 *
 * Config (see docs/providers.md):
 *
 * | key | meaning |
 * | --- | --- |
 * | `baseUrl` (alias `server`, as the OpenAPI dialect writes it) | where `path` is resolved |
 * | `method`, `path` | the operation; `{name}` in `path` is a path parameter |
 * | `parameters` | `{ <arg>: { in: 'path'\|'query'\|'header'\|'cookie'\|'body', name } }`, as the OpenAPI dialect writes it |
 * | `contentType` | the body's media type (JSON unless form-encoded) |
 * | `headers` | fixed headers |
 * | `auth` | `{ type: 'bearer'\|'header'\|'query', env, name? }`: the credential comes from the env var `env`, never the manifest |
 * | `healthUrl` | `check()` GETs it (relative to `baseUrl` allowed) |
 *
 * When `method`/`path` are missing they are read from the tool's
 * OpenAPI-derived provider entry (another entry of the tool whose config has
 * `method` and `path`, e.g. the `{ name: 'http', config: { server, method,
 * path, parameters, contentType } }` the openapi dialect writes), together
 * with its `server`, `parameters` and `contentType`.
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import {
  ProviderConfigError,
  ProviderError,
  type HealthCheckResult,
  type ProviderCallContext,
  type ProviderEnvironment,
  type ProviderInstance,
  type ProviderType,
} from './types.js';
import { errorMessage } from '../../model/errors.js';

export type HttpParameterLocation = 'path' | 'query' | 'header' | 'cookie' | 'body' | 'formData';

export interface HttpAuthConfig {
  type: 'bearer' | 'header' | 'query';
  /** The environment variable holding the credential. */
  env: string;
  /** Header or query parameter name (required for `header` and `query`). */
  name?: string;
}

/** The `http` entry's config, after validation and the OpenAPI fallback. */
export interface HttpProviderConfig {
  baseUrl?: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  parameters: Record<string, { in: HttpParameterLocation; name: string }>;
  contentType?: string;
  auth?: HttpAuthConfig;
  healthUrl?: string;
  healthCheckIntervalSec?: number;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE']);
const LOCATIONS = new Set<string>(['path', 'query', 'header', 'cookie', 'body', 'formData']);
/** Network failures that prove the request never reached a server. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const DETAIL_LIMIT = 2048;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function messageOf(err: unknown): string {
  return errorMessage(err);
}

/** Another entry of the tool that knows the operation (the OpenAPI-derived one). */
function operationEntry(tool: Tool, self: Provider): Json | undefined {
  for (const p of tool.providers ?? []) {
    if (p === self || !p.config) continue;
    if (typeof p.config['method'] === 'string' && typeof p.config['path'] === 'string') return p.config;
  }
  return undefined;
}

/** Read and check the config of one `http` entry. */
export function readHttpConfig(entry: Provider, tool: Tool): HttpProviderConfig {
  const own = entry.config ?? {};
  const where = `provider "${entry.name}" of tool "${tool.name}"`;
  const fail = (msg: string): never => {
    throw new ProviderConfigError(`${where}: ${msg}`);
  };
  const op = typeof own['method'] === 'string' && typeof own['path'] === 'string' ? undefined : operationEntry(tool, entry);
  const pick = (key: string, ...aliases: string[]): unknown => {
    for (const source of [own, op]) {
      if (!source) continue;
      for (const k of [key, ...aliases]) if (source[k] !== undefined) return source[k];
    }
    return undefined;
  };
  const str = (key: string, value: unknown): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') return fail(`config.${key} must be a non-empty string`);
    return value;
  };

  const method = (str('method', pick('method')) ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) fail(`config.method "${method}" is not an HTTP method`);
  const path = str('path', pick('path')) ?? '';
  const baseUrl = str('baseUrl', pick('baseUrl', 'server'));
  const target = baseUrl === undefined ? path : joinUrl(baseUrl, path);
  if (!/^https?:\/\//i.test(target)) {
    fail(
      baseUrl === undefined
        ? 'no baseUrl (config.baseUrl, or the OpenAPI server) and path is not an absolute http(s) URL'
        : `baseUrl "${baseUrl}" is not an absolute http(s) URL`,
    );
  }

  const headers: Record<string, string> = {};
  const rawHeaders = own['headers'];
  if (rawHeaders !== undefined) {
    if (!isObject(rawHeaders)) fail('config.headers must be an object of strings');
    for (const [k, v] of Object.entries(rawHeaders as Json)) {
      if (typeof v !== 'string') fail(`config.headers.${k} must be a string`);
      headers[k] = v as string;
    }
  }

  const parameters: HttpProviderConfig['parameters'] = {};
  const rawParams = pick('parameters');
  if (rawParams !== undefined) {
    if (!isObject(rawParams)) fail('config.parameters must be an object');
    for (const [arg, route] of Object.entries(rawParams as Json)) {
      if (!isObject(route) || typeof route['in'] !== 'string' || !LOCATIONS.has(route['in'])) {
        fail(`config.parameters.${arg} must be { in: path|query|header|cookie|body, name }`);
      }
      const r = route as Json;
      parameters[arg] = { in: r['in'] as HttpParameterLocation, name: typeof r['name'] === 'string' ? r['name'] : arg };
    }
  }

  const out: HttpProviderConfig = { method, path, headers, parameters };
  if (baseUrl !== undefined) out.baseUrl = baseUrl;
  const contentType = str('contentType', pick('contentType'));
  if (contentType !== undefined) out.contentType = contentType;
  const healthUrl = str('healthUrl', own['healthUrl']);
  if (healthUrl !== undefined) out.healthUrl = healthUrl;
  const interval = own['healthCheckIntervalSec'];
  if (interval !== undefined) {
    if (typeof interval !== 'number' || !(interval > 0)) fail('config.healthCheckIntervalSec must be a positive number');
    out.healthCheckIntervalSec = interval as number;
  }

  const auth = own['auth'];
  if (auth !== undefined) {
    if (!isObject(auth)) return fail('config.auth must be an object');
    const type = auth['type'];
    if (type !== 'bearer' && type !== 'header' && type !== 'query') fail('config.auth.type must be "bearer", "header" or "query"');
    const env = auth['env'];
    if (typeof env !== 'string' || env === '') fail('config.auth.env must name an environment variable');
    if ('value' in auth || 'token' in auth) fail('config.auth must not hold a credential; name its environment variable in config.auth.env');
    const name = auth['name'];
    if (name !== undefined && (typeof name !== 'string' || name === '')) fail('config.auth.name must be a non-empty string');
    if (type !== 'bearer' && name === undefined) fail(`config.auth.name is required for auth type "${String(type)}"`);
    out.auth = { type: type as HttpAuthConfig['type'], env: env as string, ...(typeof name === 'string' ? { name } : {}) };
  } else {
    const derived = bearerFromTool(tool);
    if (derived) out.auth = derived;
  }
  return out;
}

/** A tool whose declared auth is a required bearer token in exactly one env var gets it sent as `Authorization: Bearer`. */
function bearerFromTool(tool: Tool): HttpAuthConfig | undefined {
  const auth = tool.auth;
  if (!auth || auth.type !== 'bearer' || auth.required === false) return undefined;
  const envs = Object.keys(auth.envs ?? {});
  return envs.length === 1 && envs[0] !== undefined ? { type: 'bearer', env: envs[0] } : undefined;
}

function joinUrl(base: string, path: string): string {
  if (path === '') return base;
  if (/^https?:\/\//i.test(path)) return path;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

function scalar(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** The request a call makes (exported for tests and diagnostics). */
export interface BuiltRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | URLSearchParams | FormData;
}

/**
 * Build the request for one call. Routed arguments go where
 * `config.parameters` says; the rest: GET, HEAD, DELETE, OPTIONS -> query,
 * other methods -> properties of a JSON body. `{name}` placeholders in the
 * path take the argument of that name when no route names them.
 */
export function buildHttpRequest(config: HttpProviderConfig, args: Record<string, unknown>, env: ProviderEnvironment['env']): BuiltRequest {
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', ...config.headers };
  const query: Array<[string, string]> = [];
  const pathValues = new Map<string, string>();
  const cookies: string[] = [];
  let body: unknown;
  let bodySet = false;
  let loose: Json | undefined;
  const queryMethod = ['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE'].includes(config.method);
  const placeholders = new Set([...config.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string));
  const routedPath = new Set(Object.values(config.parameters).filter((r) => r.in === 'path').map((r) => r.name));

  const addQuery = (name: string, value: unknown) => {
    if (Array.isArray(value)) for (const v of value) query.push([name, scalar(v)]);
    else query.push([name, scalar(value)]);
  };

  for (const [arg, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const route = config.parameters[arg];
    const where = route?.in ?? (placeholders.has(arg) && !routedPath.has(arg) ? 'path' : queryMethod ? 'query' : 'loose');
    const name = route?.name ?? arg;
    if (value === null && where !== 'body' && where !== 'loose' && where !== 'formData') continue;
    switch (where) {
      case 'path':
        pathValues.set(name, encodeURIComponent(scalar(value)));
        break;
      case 'query':
        addQuery(name, value);
        break;
      case 'header':
        headers[name.toLowerCase()] = scalar(value);
        break;
      case 'cookie':
        cookies.push(`${name}=${encodeURIComponent(scalar(value))}`);
        break;
      case 'body':
        body = value;
        bodySet = true;
        break;
      case 'formData':
      case 'loose':
        (loose ??= {})[name] = value;
        break;
    }
  }
  if (loose) {
    if (!bodySet) {
      body = loose;
      bodySet = true;
    } else if (isObject(body)) body = { ...body, ...loose };
    else for (const [k, v] of Object.entries(loose)) addQuery(k, v);
  }

  const missing = [...placeholders].filter((p) => !pathValues.has(p));
  if (missing.length > 0) {
    throw new ProviderError('PROVIDER_ERROR', `missing path parameter${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, true);
  }
  const path = config.path.replace(/\{([^}]+)\}/g, (_, p: string) => pathValues.get(p) ?? '');

  if (config.auth) {
    const secret = env[config.auth.env];
    if (secret === undefined || secret === '') {
      throw new ProviderError('PROVIDER_UNAVAILABLE', `${config.auth.env} is not set`, true);
    }
    if (config.auth.type === 'bearer') headers['authorization'] = `Bearer ${secret}`;
    else if (config.auth.type === 'header') headers[(config.auth.name as string).toLowerCase()] = secret;
    else query.push([config.auth.name as string, secret]);
  }
  if (cookies.length > 0) headers['cookie'] = cookies.join('; ');

  const url = new URL(config.baseUrl === undefined ? path : joinUrl(config.baseUrl, path));
  for (const [k, v] of query) url.searchParams.append(k, v);
  const request: BuiltRequest = { url: url.href, method: config.method, headers };
  if (bodySet && config.method !== 'GET' && config.method !== 'HEAD') {
    const type = config.contentType ?? 'application/json';
    if (type === 'application/x-www-form-urlencoded' && isObject(body)) {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) form.append(k, scalar(v));
      request.body = form;
      headers['content-type'] = type;
    } else if (type === 'multipart/form-data' && isObject(body)) {
      const form = new FormData();
      for (const [k, v] of Object.entries(body)) if (v !== undefined && v !== null) form.append(k, scalar(v));
      request.body = form; // fetch sets the boundary
    } else if (typeof body === 'string' && !/json/i.test(type)) {
      request.body = body;
      headers['content-type'] = type;
    } else {
      request.body = JSON.stringify(body);
      headers['content-type'] = /json/i.test(type) ? type : 'application/json';
    }
  }
  return request;
}

/** Walk an error's causes for a system error code (AggregateError included: all must agree). */
function networkCode(err: unknown): string | undefined {
  let cur: unknown = err;
  for (let depth = 0; depth < 5 && cur !== undefined && cur !== null; depth++) {
    const e = cur as { code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof e.code === 'string' && NOT_SENT_CODES.has(e.code)) return e.code;
    if (Array.isArray(e.errors) && e.errors.length > 0) {
      const codes = e.errors.map((x) => networkCode(x));
      if (codes.every((c) => c !== undefined)) return codes[0];
    }
    cur = e.cause;
  }
  return undefined;
}

async function readBody(response: Response): Promise<{ value: unknown; json: boolean; text: string }> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const json = /\bjson\b|\+json/i.test(type);
  if (!json) return { value: text, json: false, text };
  if (text.trim() === '') return { value: null, json: true, text };
  return { value: JSON.parse(text) as unknown, json: true, text };
}

class HttpInstance implements ProviderInstance {
  readonly type = 'http';
  declare readonly healthCheckIntervalSec?: number;
  declare readonly check?: (signal: AbortSignal) => Promise<HealthCheckResult>;

  constructor(
    readonly name: string,
    readonly config: HttpProviderConfig,
    private readonly environment: ProviderEnvironment,
  ) {
    if (config.healthCheckIntervalSec !== undefined) this.healthCheckIntervalSec = config.healthCheckIntervalSec;
    const healthUrl = config.healthUrl;
    if (healthUrl !== undefined) this.check = (signal) => this.runCheck(healthUrl, signal);
  }

  ready(): HealthCheckResult {
    const auth = this.config.auth;
    if (auth) {
      const v = this.environment.env[auth.env];
      if (v === undefined || v === '') return { healthy: false, reason: `${auth.env} is not set` };
    }
    return { healthy: true };
  }

  async call(args: Record<string, unknown>, context: ProviderCallContext): Promise<unknown> {
    const { signal } = context;
    const what = `${this.config.method} ${this.config.path || this.config.baseUrl || ''}`.trim();
    if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted before it started`, true, { cause: signal.reason });
    const request = buildHttpRequest(this.config, args, this.environment.env);
    if (context.idempotencyKey !== undefined && request.headers['idempotency-key'] === undefined) {
      request.headers['idempotency-key'] = context.idempotencyKey;
    }
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal,
        redirect: 'follow',
      });
    } catch (err) {
      if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted`, false, { cause: err });
      const code = networkCode(err);
      if (code !== undefined) {
        throw new ProviderError('PROVIDER_UNAVAILABLE', `${what}: cannot reach ${new URL(request.url).host} (${code})`, true, { cause: err });
      }
      const reason = messageOf((err as { cause?: unknown }).cause ?? err);
      // fetch refuses some ports (the WHATWG "bad port" list) before opening a connection: nothing was sent
      if (reason === 'bad port') throw new ProviderError('PROVIDER_UNAVAILABLE', `${what}: fetch refuses to connect to port ${new URL(request.url).port} (a blocked port)`, true, { cause: err });
      throw new ProviderError('PROVIDER_ERROR', `${what}: request failed: ${reason}`, false, { cause: err });
    }

    let body: { value: unknown; json: boolean; text: string };
    try {
      body = await readBody(response);
    } catch (err) {
      if (signal.aborted) throw new ProviderError('ABORTED', `${what}: aborted`, false, { cause: err });
      if (err instanceof SyntaxError) {
        throw new ProviderError('BAD_RESPONSE', `${what}: HTTP ${response.status} with invalid JSON: ${err.message}`, false, { status: response.status, cause: err });
      }
      throw new ProviderError('PROVIDER_ERROR', `${what}: reading the response failed: ${messageOf(err)}`, false, { status: response.status, cause: err });
    }

    if (response.ok) return body.value;
    const retryAfter = response.headers.get('retry-after');
    const notProcessed = (response.status === 429 || response.status === 503) && retryAfter !== null;
    const detail = body.json ? body.value : body.text.length > DETAIL_LIMIT ? `${body.text.slice(0, DETAIL_LIMIT)}...` : body.text;
    throw new ProviderError(
      'PROVIDER_ERROR',
      `${what}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      notProcessed,
      { status: response.status, detail: retryAfter !== null ? { body: detail, retryAfter } : detail },
    );
  }

  private async runCheck(healthUrl: string, signal: AbortSignal): Promise<HealthCheckResult> {
    let url: string;
    try {
      url = new URL(/^https?:\/\//i.test(healthUrl) ? healthUrl : joinUrl(this.config.baseUrl ?? '', healthUrl)).href;
    } catch {
      return { healthy: false, reason: `healthUrl "${healthUrl}" is not a valid URL` };
    }
    try {
      const response = await fetch(url, { method: 'GET', signal });
      await response.body?.cancel();
      return response.ok ? { healthy: true } : { healthy: false, reason: `GET ${url}: HTTP ${response.status}` };
    } catch (err) {
      const code = networkCode(err);
      return { healthy: false, reason: `GET ${url}: ${code ?? messageOf((err as { cause?: unknown }).cause ?? err)}` };
    }
  }
}

/** The `http` provider type. */
export const httpProviderType: ProviderType = {
  type: 'http',
  create(entry: Provider, tool: Tool, environment: ProviderEnvironment): ProviderInstance {
    return new HttpInstance(entry.name, readHttpConfig(entry, tool), environment);
  },
};
