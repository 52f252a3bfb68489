/**
 * The HTTP API: a Hono app over a {@link Registry}. It speaks Web
 * `Request`/`Response`, so tests call `app.fetch(request)` in-process and
 * `listen()` puts the same app on a socket.
 *
 * Every answer is read from one snapshot, taken once per request: a reload
 * that lands mid-request changes the next answer, never half of this one.
 * GET answers carry a strong ETag (a hash of the body) and honour
 * If-None-Match with 304. Because snapshots are immutable, a body is a
 * function of (snapshot version and etag, health version, path and query)
 * and is kept in a small LRU cache keyed by those.
 * @module
 */
import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { isMember } from '../model/vocabulary.js';
import { parseFilter, type ParameterProblem } from '../query/params.js';
import { RegistryNotReadyError, type Registry } from '../registry/registry.js';
import type { Snapshot } from '../registry/snapshot.js';
import { summarizeCatalog, summarizeJobs } from '../registry/summary.js';
import { getTool, listTools, NO_HEALTH, searchAnswer, searchTools, stringifyWithTools, type HealthSource } from '../query/views.js';
import type { RankWeights } from '../query/rank.js';
import { openApiDocument } from './openapi.js';
import { CallError } from '../runtime/errors.js';
import type { Runtime } from '../runtime/runtime.js';
import type { ApprovalStatus } from '../store/types.js';
import { DEFAULT_LIMITS } from '../source/source.js';
import { problem, problemResponse, type Problem } from './problem.js';
import { errorMessage } from '../model/errors.js';

export interface ApiOptions {
  /** Runs calls and approvals (`POST /tools/{name}/call`, `/approvals`, `/metrics`); its health book feeds `/tools`. Without it those answer 501. */
  runtime?: Runtime;
  /** Observed health per tool. @default the runtime's, else every tool unknown */
  health?: HealthSource;
  /** Largest request body, bytes. @default 1048576 */
  maxBodyBytes?: number;
  /** The MCP gateway's Streamable HTTP handler, served at `/mcp`. */
  mcp?: (request: Request) => Promise<Response>;
  /** Ranking weights for `/search` (the config's `ranking.weights`). @default DEFAULT_RANK_WEIGHTS */
  weights?: Partial<RankWeights>;
  /** Task risk when a request gives no `task_risk` (the config's `ranking.taskRisk`). @default 1 */
  taskRisk?: number;
  /** Bodies kept for repeated queries against the same snapshot. @default 256 */
  cacheEntries?: number;
  /** Reported in /openapi.json. */
  version?: string;
  /** Told of every 5xx (the error, the request); must not throw. @default process.emitWarning */
  onError?: (error: unknown, request: Request) => void;
}

/** Longest `q` accepted by /search, in characters. */
export const MAX_QUERY_LENGTH = 1000;
/** Most candidates /search returns. */
export const MAX_SEARCH_LIMIT = 100;

/** The routes and the methods they answer (everything else: 404 or 405). */
const ROUTES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/tools\/?$/, 'GET, HEAD'],
  [/^\/tools\/[^/]+\/?$/, 'GET, HEAD'],
  [/^\/(search|skills|agents|jobs|summary|health|openapi\.json|metrics|approvals|audit)\/?$/, 'GET, HEAD'],
  [/^\/approvals\/[^/]+\/?$/, 'GET, HEAD'],
  [/^\/tools\/[^/]+\/call\/?$/, 'POST'],
  [/^\/approvals\/[^/]+\/(approve|deny)\/?$/, 'POST'],
];

class BadParameters extends Error {
  constructor(readonly problems: ParameterProblem[]) {
    super(problems.map((p) => `${p.parameter}: ${p.message}`).join(' '));
  }
}

/** A problem to answer as is. */
class ProblemError extends Error {
  constructor(readonly body: Problem) {
    super(body.detail);
  }
}

const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'void', 'executed', 'failed'] as const;

/** A call error as a problem: its code, status, and what the caller needs (pointer, retry time, providers). */
function callProblem(error: CallError, extra: Record<string, unknown> = {}): Response {
  const { pointer, problems, retryAfterMs, providers, callId } = error.extra;
  const body = problem(error.code, error.message, {
    ...(pointer !== undefined ? { pointer } : {}),
    ...(problems !== undefined ? { problems } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(providers !== undefined ? { providers } : {}),
    ...(callId !== undefined ? { callId } : {}),
    ...extra,
  });
  const headers: Record<string, string> = retryAfterMs !== undefined ? { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } : {};
  return problemResponse(body, headers);
}

/** JSON.parse that refuses nesting deeper than the manifest limit (a deep body must not blow the stack later). */
function parseJsonSafely(text: string): unknown {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++;
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) max = Math.max(max, ++depth);
    else if (ch === 125 || ch === 93) depth--;
  }
  if (max > DEFAULT_LIMITS.maxDepth) throw new Error(`nesting is ${max} levels deep; at most ${DEFAULT_LIMITS.maxDepth}`);
  return JSON.parse(text);
}

class NotFound extends Error {
  constructor(readonly body: Problem) {
    super(body.detail);
  }
}

/** A bounded map that forgets the least recently used entry. */
class Lru<V> {
  readonly #map = new Map<string, V>();
  constructor(readonly capacity: number) {}
  get(key: string): V | undefined {
    const v = this.#map.get(key);
    if (v !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value as string);
  }
}

interface Cached {
  /** UTF-8 bytes, encoded once. */
  body: Uint8Array;
  etag: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const ENCODER = new TextEncoder();

/** Does If-None-Match name this etag (weak comparison, or `*`)? */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || bare(t) === etag);
}

const strongEtag = (body: Uint8Array) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;

/** Query parameters in a stable order, so equal queries share a cache entry. */
function canonicalQuery(url: URL): string {
  const pairs = [...url.searchParams].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return new URLSearchParams(pairs).toString();
}

/** One persona, or none; a second one is a 400. */
function onePersona(params: URLSearchParams): string | undefined {
  const problems: ParameterProblem[] = [];
  for (const name of new Set(params.keys())) {
    if (name !== 'persona') problems.push({ parameter: name, message: `Unknown parameter "${name}". Known: persona.` });
  }
  const personas = params.getAll('persona');
  if (personas.length > 1) problems.push({ parameter: 'persona', message: '"persona" may be given once here.' });
  if (personas[0] === '') problems.push({ parameter: 'persona', message: 'The persona is empty.' });
  if (problems.length > 0) throw new BadParameters(problems);
  return personas[0];
}

interface SearchParams {
  q: string;
  limit: number;
  explain: boolean;
  intent?: 'read' | 'write' | 'unknown';
  taskRisk?: number;
}

const SEARCH_OWN = ['q', 'explain', 'intent', 'task_risk'] as const;

/** `/search` parameters: its own, plus the `/tools` filters (paging aside). */
function parseSearch(params: URLSearchParams) {
  const problems: ParameterProblem[] = [];
  const own = new URLSearchParams();
  const rest = new URLSearchParams();
  for (const [k, v] of params) ((SEARCH_OWN as readonly string[]).includes(k) || k === 'limit' ? own : rest).append(k, v);
  for (const k of new Set(own.keys())) if (own.getAll(k).length > 1) problems.push({ parameter: k, message: `"${k}" may be given once.` });
  for (const k of ['cursor', 'offset']) if (rest.has(k)) problems.push({ parameter: k, message: `/search returns one ranked list; "${k}" is for /tools.` });
  rest.delete('cursor');
  rest.delete('offset');
  const q = own.get('q');
  if (q === null || q.trim() === '') problems.push({ parameter: 'q', message: 'Say what the task is: q=<words>.' });
  else if (q.length > MAX_QUERY_LENGTH) problems.push({ parameter: 'q', message: `The query is ${q.length} characters; at most ${MAX_QUERY_LENGTH}.` });
  const search: SearchParams = { q: q ?? '', limit: 10, explain: false };
  const limit = own.get('limit');
  if (limit !== null) {
    const n = /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
    if (n >= 1 && n <= MAX_SEARCH_LIMIT) search.limit = n;
    else problems.push({ parameter: 'limit', message: `"${limit}" is not a whole number from 1 to ${MAX_SEARCH_LIMIT}.` });
  }
  const explain = own.get('explain');
  if (explain !== null) {
    if (explain === '1' || explain === 'true' || explain === '') search.explain = true;
    else if (explain !== '0' && explain !== 'false') problems.push({ parameter: 'explain', message: `"${explain}" is not 1, 0, true or false.` });
  }
  const intent = own.get('intent');
  if (intent !== null) {
    if (isMember(['read', 'write', 'unknown'] as const, intent)) search.intent = intent;
    else problems.push({ parameter: 'intent', message: `"${intent}" is not one of read, write, unknown.` });
  }
  const risk = own.get('task_risk');
  if (risk !== null) {
    const n = risk.trim() === '' ? Number.NaN : Number(risk);
    if (n >= 0 && n <= 10) search.taskRisk = n;
    else problems.push({ parameter: 'task_risk', message: `"${risk}" is not a number from 0 to 10.` });
  }
  const parsed = parseFilter(rest);
  if ('problems' in parsed) problems.push(...parsed.problems);
  if (problems.length > 0) throw new BadParameters(problems);
  return { search, filter: 'filter' in parsed ? parsed.filter : {} };
}

/**
 * The API as a Hono app.
 * @example
 * const app = createApi(registry);
 * const res = await app.fetch(new Request('http://x/tools?persona=atlas&max_risk=medium'));
 */
export function createApi(registry: Registry, options: ApiOptions = {}): Hono {
  const runtime = options.runtime;
  const health = options.health ?? runtime?.health ?? NO_HEALTH;
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const cache = new Lru<Cached>(options.cacheEntries ?? 256);
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(`toolcap http: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
  // `/tools/` is `/tools`
  const app = new Hono({ strict: false });

  /**
   * Answer a GET from the snapshot, through the cache, with ETag and 304.
   * The cache is looked up by the raw path and query first (what a client
   * repeating a request sends), then by the canonical query.
   */
  const answer = (c: Context, build: (snap: Snapshot, params: URLSearchParams) => unknown): Response => {
    const snap = registry.snapshot();
    const raw = c.req.url;
    const start = raw.indexOf('/', raw.indexOf('//') + 2);
    const prefix = `${snap.version}|${snap.etag}|${health.version()}|`;
    let hit = cache.get(prefix + raw.slice(start));
    if (!hit) {
      const url = new URL(raw);
      const key = `${prefix}${url.pathname}?${canonicalQuery(url)}`;
      hit = cache.get(key);
      if (!hit) {
        const body = ENCODER.encode(stringifyWithTools(build(snap, url.searchParams)));
        hit = { body, etag: strongEtag(body) };
        cache.set(key, hit);
      }
      cache.set(prefix + raw.slice(start), hit);
    }
    const headers = { etag: hit.etag, 'cache-control': 'no-cache', 'x-toolcap-version': String(snap.version) };
    if (etagMatches(c.req.header('if-none-match'), hit.etag)) return new Response(null, { status: 304, headers });
    return new Response(hit.body, { status: 200, headers: { 'content-type': JSON_TYPE, ...headers } });
  };

  app.get('/tools', (c) =>
    answer(c, (snap, params) => {
      const parsed = parseFilter(params);
      if ('problems' in parsed) throw new BadParameters(parsed.problems);
      return listTools(snap, parsed.filter, health);
    }),
  );

  app.get('/tools/:name', (c) =>
    answer(c, (snap, params) => {
      const persona = onePersona(params);
      const name = c.req.param('name');
      const found = getTool(snap, name, persona, health);
      if (!found) {
        throw new NotFound(problem('TOOL_NOT_FOUND', persona === undefined ? `No tool named "${name}".` : `No tool named "${name}" that persona "${persona}" can see.`));
      }
      return { version: snap.version, ...found, ...(runtime ? { providerHealth: runtime.health.providers(name) } : {}) };
    }),
  );

  app.get('/search', (c) =>
    answer(c, (snap, params) => {
      const { search, filter } = parseSearch(params);
      const result = searchTools(
        snap,
        {
          query: search.q,
          filter,
          limit: search.limit,
          ...(search.intent !== undefined ? { intent: search.intent } : {}),
          ...((search.taskRisk ?? options.taskRisk) !== undefined ? { taskRisk: search.taskRisk ?? options.taskRisk } : {}),
          ...(options.weights ? { weights: options.weights } : {}),
        },
        health,
      );
      return searchAnswer(result, search.explain);
    }),
  );

  app.get('/skills', (c) => answer(c, (snap, params) => ({ version: snap.version, skills: snap.documentFor(onePersona(params)).skills })));
  app.get('/agents', (c) => answer(c, (snap, params) => ({ version: snap.version, agents: snap.documentFor(onePersona(params)).agents })));
  app.get('/jobs', (c) => answer(c, (snap, params) => ({ version: snap.version, jobs: summarizeJobs(snap, onePersona(params)) })));
  app.get('/summary', (c) =>
    answer(c, (snap, params) => {
      const unknown = [...new Set(params.keys())];
      if (unknown.length > 0) throw new BadParameters(unknown.map((parameter) => ({ parameter, message: 'The summary covers every persona; it takes no parameters.' })));
      return summarizeCatalog(snap);
    }),
  );

  app.get('/health', () => {
    const status = registry.status();
    const state = status.version === 0 ? 'starting' : status.ok ? 'ok' : 'degraded';
    const body = { status: state, ...status };
    return new Response(JSON.stringify(body), { status: status.version === 0 ? 503 : 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store' } });
  });

  const openapi = JSON.stringify(openApiDocument(options.version ?? '0.0.0'));
  app.get('/openapi.json', () => new Response(openapi, { headers: { 'content-type': JSON_TYPE } }));

  // --- MCP gateway (Streamable HTTP) ----------------------------------------
  const mcp = options.mcp;
  if (mcp) app.all('/mcp', (c) => mcp(c.req.raw));

  // --- calls and approvals (the runtime) ---------------------------------

  const needRuntime = (): Runtime => {
    if (!runtime) throw new ProblemError(problem('NO_RUNTIME', 'This server serves the catalog only; start it with a runtime (toolcap serve does) to run tools.'));
    return runtime;
  };
  /** A JSON object body, at most maxBody bytes; anything else is a 4xx problem. */
  const body = async (c: Context): Promise<Record<string, unknown>> => {
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) throw new ProblemError(problem('UNSUPPORTED_MEDIA_TYPE', `Send the body as application/json (got ${type || 'no content type'}).`));
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (declared > maxBody) throw new ProblemError(problem('PAYLOAD_TOO_LARGE', `The body is ${declared} bytes; at most ${maxBody}.`));
    const reader = c.req.raw.body?.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
      if (chunk.done) break;
      size += chunk.value.byteLength;
      if (size > maxBody) {
        await reader?.cancel();
        throw new ProblemError(problem('PAYLOAD_TOO_LARGE', `The body is over ${maxBody} bytes.`));
      }
      chunks.push(chunk.value);
    }
    const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
    if (text.trim() === '') return {};
    let value: unknown;
    try {
      value = parseJsonSafely(text);
    } catch (error) {
      throw new ProblemError(problem('BAD_BODY', `The body is not JSON: ${errorMessage(error)}.`));
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ProblemError(problem('BAD_BODY', 'The body must be a JSON object.'));
    return value as Record<string, unknown>;
  };
  const optionalString = (b: Record<string, unknown>, name: string): string | undefined => {
    const v = b[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string' || v === '') throw new ProblemError(problem('BAD_BODY', `"${name}" must be a non-empty string.`, { pointer: `/${name}` }));
    return v;
  };
  const json = (value: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(value), { status, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...headers } });

  app.post('/tools/:name/call', async (c) => {
    const rt = needRuntime();
    const b = await body(c);
    const known = new Set(['arguments', 'persona', 'caller', 'job', 'idempotencyKey']);
    const unknown = Object.keys(b).filter((k) => !known.has(k));
    if (unknown.length > 0) throw new ProblemError(problem('BAD_BODY', `Unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `"${k}"`).join(', ')}; known: ${[...known].join(', ')}.`, { pointer: `/${unknown[0]}` }));
    const persona = optionalString(b, 'persona');
    const caller = optionalString(b, 'caller') ?? c.req.header('x-toolcap-caller');
    const job = optionalString(b, 'job');
    const idempotencyKey = optionalString(b, 'idempotencyKey') ?? c.req.header('idempotency-key');
    const result = await rt.call(c.req.param('name'), 'arguments' in b ? b['arguments'] : {}, {
      ...(persona !== undefined ? { persona } : {}),
      ...(caller !== undefined ? { caller } : {}),
      ...(job !== undefined ? { job } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      signal: c.req.raw.signal,
    });
    if (result.status === 'pending_approval') {
      const id = result.approval.id;
      return json({ ...result, approve: `POST /approvals/${id}/approve`, deny: `POST /approvals/${id}/deny` }, 202, { location: `/approvals/${id}` });
    }
    return json(result);
  });

  app.get('/approvals', async (c) => {
    const rt = needRuntime();
    const params = new URL(c.req.url).searchParams;
    const problems: ParameterProblem[] = [];
    for (const k of new Set(params.keys())) if (!['status', 'tool', 'limit'].includes(k)) problems.push({ parameter: k, message: `Unknown parameter "${k}". Known: status, tool, limit.` });
    const status = params.get('status') ?? undefined;
    if (status !== undefined && !isMember(APPROVAL_STATUSES, status)) problems.push({ parameter: 'status', message: `"${status}" is not one of ${APPROVAL_STATUSES.join(', ')}.` });
    const limit = params.get('limit');
    const n = limit === null ? 100 : /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
    if (!(n >= 1 && n <= 1000)) problems.push({ parameter: 'limit', message: `"${limit}" is not a whole number from 1 to 1000.` });
    if (problems.length > 0) throw new BadParameters(problems);
    const tool = params.get('tool') ?? undefined;
    return json({ approvals: await rt.listApprovals({ ...(status ? { status: status as ApprovalStatus } : {}), ...(tool ? { tool } : {}), limit: n }) });
  });
  app.get('/approvals/:id', async (c) => json(await needRuntime().getApproval(c.req.param('id'))));
  app.post('/approvals/:id/approve', async (c) => {
    const rt = needRuntime();
    const b = await body(c);
    const by = optionalString(b, 'by') ?? c.req.header('x-toolcap-caller');
    const note = optionalString(b, 'note');
    const outcome = await rt.approve(c.req.param('id'), { ...(by !== undefined ? { by } : {}), ...(note !== undefined ? { note } : {}) });
    if (outcome.error) return callProblem(outcome.error, { approval: outcome.approval });
    return json(outcome);
  });
  app.post('/approvals/:id/deny', async (c) => {
    const rt = needRuntime();
    const b = await body(c);
    const by = optionalString(b, 'by') ?? c.req.header('x-toolcap-caller');
    const note = optionalString(b, 'note');
    return json({ approval: await rt.deny(c.req.param('id'), { ...(by !== undefined ? { by } : {}), ...(note !== undefined ? { note } : {}) }) });
  });
  app.get('/audit', async (c) => {
    const rt = needRuntime();
    const params = new URL(c.req.url).searchParams;
    const problems: ParameterProblem[] = [];
    for (const k of new Set(params.keys())) if (!['tool', 'call_id', 'after', 'limit'].includes(k)) problems.push({ parameter: k, message: `Unknown parameter "${k}". Known: tool, call_id, after, limit.` });
    const whole = (name: string, min: number, max: number, fallback: number) => {
      const v = params.get(name);
      const n = v === null ? fallback : /^\d+$/.test(v) ? Number(v) : Number.NaN;
      if (!(n >= min && n <= max)) problems.push({ parameter: name, message: `"${v}" is not a whole number from ${min} to ${max}.` });
      return n;
    };
    const limit = whole('limit', 1, 1000, 100);
    const after = whole('after', 0, Number.MAX_SAFE_INTEGER, 0);
    if (problems.length > 0) throw new BadParameters(problems);
    const tool = params.get('tool') ?? undefined;
    const callId = params.get('call_id') ?? undefined;
    let records;
    try {
      await rt.flush(); // read your own writes: calls answered before this request are in the log
      records = await rt.store.listAudit({ afterSeq: after, limit, ...(tool ? { tool } : {}), ...(callId ? { callId } : {}) });
    } catch (error) {
      throw new ProblemError(problem('STORE_UNAVAILABLE', `The store is unavailable: ${errorMessage(error)}`));
    }
    const last = records.at(-1);
    return json({ audit: records, ...(last && records.length === limit ? { next: `/audit?after=${last.seq}&limit=${limit}` } : {}) });
  });

  app.get('/metrics', async () => {
    const rt = needRuntime();
    rt.metrics.snapshotVersion.set(registry.status().version);
    return new Response(await rt.metrics.text(), { headers: { 'content-type': rt.metrics.contentType, 'cache-control': 'no-store' } });
  });

  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const route = ROUTES.find(([pattern]) => pattern.test(path));
    if (route) {
      return problemResponse(problem('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${path}; use ${route[1]}.`), { allow: route[1] });
    }
    return problemResponse(problem('NOT_FOUND', `No route ${path}. See /openapi.json.`));
  });

  app.onError((error, c) => {
    if (error instanceof ProblemError) return problemResponse(error.body);
    if (error instanceof CallError) return callProblem(error);
    if (error instanceof BadParameters) {
      return problemResponse(problem('BAD_PARAMETER', error.message, { problems: error.problems }));
    }
    if (error instanceof NotFound) return problemResponse(error.body);
    if (error instanceof RegistryNotReadyError) {
      return problemResponse(problem('NOT_READY', `${error.message} See /health.`), { 'retry-after': '1' });
    }
    try {
      onError(error, c.req.raw);
    } catch {
      // a broken logger must not turn a 500 into a dropped connection
    }
    return problemResponse(problem('INTERNAL', 'The server failed to answer; this is a toolcap bug. The error was logged.'));
  });

  return app;
}
