/**
 * The `http` provider's config: reading and checking one manifest entry,
 * with the OpenAPI fallback (method, path, server, parameters and content
 * type read from the entry the openapi dialect wrote). See ./http.ts for
 * the keys.
 * @module
 */
import type { Provider, Tool } from '../../model/schema.js';
import { ProviderConfigError } from './types.js';

/** Where an argument goes in the request. */
export type HttpParameterLocation = 'path' | 'query' | 'header' | 'cookie' | 'body' | 'formData';

/** Where the credential comes from and how it is sent. */
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
/** A JSON object. */
export type Json = Record<string, unknown>;

/** True for a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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

/** `path` under `base` (one slash between them); an absolute http(s) `path` as is. */
export function joinUrl(base: string, path: string): string {
  if (path === '') return base;
  if (/^https?:\/\//i.test(path)) return path;
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
