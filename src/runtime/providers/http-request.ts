/**
 * Building the request of one `http` call from its arguments: path, query,
 * header, cookie and body parameters as `config.parameters` routes them,
 * and the credential from the environment.
 * @module
 */
import { isObject, joinUrl, type HttpProviderConfig, type Json } from './http-config.js';
import { ProviderError, type ProviderEnvironment } from './types.js';

function scalar(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** A whole path segment the URL parser resolves away: `.` or `..`, also as `%2e` (WHATWG single- and double-dot segments). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
const dotSegments = (path: string): number => (path.split(/[?#]/, 1)[0] ?? '').split('/').filter((s) => DOT_SEGMENT.test(s)).length;

/** What fetch refuses in a header value: CR, LF, NUL, and anything past Latin-1 (a header is a ByteString). */
const UNSENDABLE_HEADER = /[\r\n\0]|[^\u0000-\u00ff]/;

/**
 * `value` as the value of header `name`, or the caller's fault before anything
 * is sent. fetch would refuse it with a TypeError, read as a failed request:
 * the provider's fault after a possible effect, so bad input moved the circuit.
 */
export function headerValue(name: string, value: string, what: string): string {
  if (UNSENDABLE_HEADER.test(value)) throw new ProviderError('PROVIDER_ERROR', `${what} cannot be sent as header ${name}: it holds a line break, NUL or a character past Latin-1`, true, { fault: 'caller' });
  return value;
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
        headers[name.toLowerCase()] = headerValue(name, scalar(value), `argument "${arg}"`);
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
  // encodeURIComponent leaves "." and "..": as a whole segment the URL parser resolves it, so an
  // argument could climb out of the declared path to another endpoint of the origin, credentials and all
  if (dotSegments(path) > dotSegments(config.path)) {
    throw new ProviderError('PROVIDER_ERROR', `a path argument makes a dot segment ("." or "..") of ${config.path}: refused, it would leave the declared path`, true, { fault: 'caller' });
  }

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
