/**
 * What every route module is given and builds with: the API's options,
 * resolved once ({@link ApiContext}), a sub-app that registers handlers by
 * their route table entry behind the entry's permission check
 * ({@link routeModule}), the runtime guard and the JSON answer the runtime's
 * routes share.
 * @module
 */
import { Hono, type Handler, type MiddlewareHandler } from 'hono';
import type { McpHttpHandler } from '../mcp/http.js';
import type { Recheck } from '../mcp/stream-credential.js';
import type { RankWeights } from '../query/rank.js';
import { NO_HEALTH, type HealthSource } from '../query/views.js';
import type { Registry } from '../registry/registry.js';
import type { Principal } from '../runtime/identity/principal.js';
import type { ProbeAdapters } from '../runtime/probes/adapters.js';
import type { LearnedTools } from '../runtime/learned/learned-tools.js';
import type { Runtime } from '../runtime/runtime.js';
import type { WebhookOptions } from './webhook-options.js';
import type { ConsoleOptions } from './console/options.js';
import { authorize, type ApiAuth, type PrincipalEnv } from './auth.js';
import { sameOriginGet } from './host-guard.js';
import type { ParameterProblem } from '../query/params.js';
import { ApiProblem, badParameters, problem } from './problem.js';
import { honoPath, type Route } from './route-table.js';

export interface ApiOptions {
  /** Runs calls and approvals (`POST /tools/{name}/call`, `/approvals`, `/metrics`); its health book feeds `/tools`. Without it those answer 501. */
  runtime?: Runtime;
  /** Observed health per tool. @default the runtime's, else every tool unknown */
  health?: HealthSource;
  /** Largest request body, bytes. @default 1048576 */
  maxBodyBytes?: number;
  /**
   * The MCP gateway's Streamable HTTP handler, served at `/mcp`; it is told
   * the authenticated principal. One with a `direct` lane (`mcpHttpHandler`'s)
   * answers POSTs to its open sessions straight off the socket under `listen()`.
   * A GET (the session's event stream) is also given `recheck`, which
   * authenticates its credential again, so the stream can end with it.
   */
  mcp?: ((request: Request, context: { principal?: Principal; lengthHeld?: boolean; hangUp?: AbortSignal; recheck?: Recheck }) => Promise<Response>) & Partial<Pick<McpHttpHandler, 'direct'>>;
  /**
   * Who is asking. Every route but `/health`, `/openapi.json` and
   * `/.well-known/oauth-protected-resource` needs a principal whose roles
   * allow the route's action. Absent: no authentication at all (a trusted
   * in-process caller; the library's default). Local mode is an
   * `authenticate` that always answers the local principal.
   */
  auth?: ApiAuth;
  /** Host header values served (`localhost:4317`; an entry without a port matches any port); another is 421. @default no check */
  allowedHosts?: readonly string[];
  /** Origin header values allowed (`http://localhost:4317`); a request with another Origin is 403. @default no check */
  allowedOrigins?: readonly string[];
  /** Ranking weights for `/search` (the config's `ranking.weights`). @default DEFAULT_RANK_WEIGHTS */
  weights?: Partial<RankWeights>;
  /** Task risk when a request gives no `task_risk` (the config's `ranking.taskRisk`). @default 1 */
  taskRisk?: number;
  /** Bodies kept for repeated queries against the same snapshot. @default 256 */
  cacheEntries?: number;
  /** Reported in /openapi.json. */
  version?: string;
  /** The probe adapters of `GET /tasks/snapshot`. @default the built-in ones (`mapping`, `file`) */
  probeAdapters?: ProbeAdapters;
  /** Webhooks of tools with workflowRoutes (`POST /hooks/{toolId}`); absent: every webhook is 404. */
  webhooks?: WebhookOptions;
  /** The learned tools (`PUT`/`DELETE /tools/{name}`, `GET /tools/learned`); without them those answer 501. */
  learned?: LearnedTools;
  /** Told of every 5xx (the error, the request); must not throw. @default process.emitWarning */
  onError?: (error: unknown, request: Request) => void;
  /** Told, in one line, of a client that went away mid-request (not an error of ours: no stack). @default nothing */
  warn?: (message: string) => void;
  /** Serve the web console at `/` (and `/ui/...`), behind the same authentication. @default off */
  console?: ConsoleOptions;
}

/** The options as route modules read them: defaults applied once. */
export interface ApiContext {
  readonly registry: Registry;
  readonly runtime: Runtime | undefined;
  readonly health: HealthSource;
  readonly maxBodyBytes: number;
  readonly options: ApiOptions;
}

/** Resolve the options against their defaults. */
export function apiContext(registry: Registry, options: ApiOptions): ApiContext {
  return { registry, runtime: options.runtime, health: options.health ?? options.runtime?.health ?? NO_HEALTH, maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024, options };
}

/**
 * Request variables: the runtime, once {@link withRuntime} has let the
 * request through, and the authenticated principal (absent without `auth`).
 */
export interface ApiEnv {
  Variables: PrincipalEnv['Variables'] & { runtime: Runtime };
}

/** A sub-app mounted at `base` whose handlers are registered by route table entry. */
export interface RouteModule {
  readonly base: string;
  readonly app: Hono<ApiEnv>;
}

type Step = MiddlewareHandler<ApiEnv> | Handler<ApiEnv>;

/**
 * The query parameters a route takes one value of: those its table entry
 * declares `in: query` with a schema that is not an array (`persona` of
 * `/tools` is an array; `persona` of `/tasks/snapshot` is not).
 */
export function singleQueryParameters(route: Route): string[] {
  return (route.parameters ?? [])
    .filter((p) => p['in'] === 'query' && (p['schema'] as { type?: unknown } | undefined)?.type !== 'array')
    .map((p) => String(p['name']));
}

/**
 * Refuse a repeated single-valued query parameter (400 BAD_PARAMETER naming
 * each), for every route alike: `URLSearchParams.get` and Hono's
 * `c.req.query` answer the first value, so `?persona=a&persona=b` would
 * silently act as `a` while a proxy or log in front may have read `b`.
 */
function singleQuery(names: readonly string[]): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const repeated = repeatedParameters(new URL(c.req.url).searchParams, names);
    if (repeated.length > 0) throw badParameters(repeated);
    await next();
  };
}

/**
 * Which of `names` the query gives more than once, each as a problem naming it: the one check behind the API's
 * 400 BAD_PARAMETER ({@link singleQueryParameters}) and the console's 400 page for the same mistake.
 * @example repeatedParameters(new URLSearchParams('status=a&status=b'), ['status']) // [{ parameter: 'status', message: '"status" may be given once.' }]
 */
export function repeatedParameters(params: URLSearchParams, names: readonly string[]): ParameterProblem[] {
  return names.filter((name) => params.getAll(name).length > 1).map((name) => ({ parameter: name, message: `"${name}" may be given once.` }));
}

/**
 * A route module at `base` and its `on(route, ...handlers)`, which takes
 * method and path from the table entry (the path less the base) and puts the
 * entry's permission check ({@link authorize}) before the handlers, so no
 * handler can be registered without one. A query parameter the entry
 * declares single-valued and the request repeats is a 400 before any
 * handler runs ({@link singleQueryParameters}).
 * @example const { app, on } = routeModule('/approvals', ctx); on(ROUTES.deny, withRuntime(ctx), deny);
 */
export function routeModule(base: string, ctx: ApiContext): RouteModule & { on(route: Route, ...steps: Step[]): void } {
  // `/tools/` is `/tools`
  const app = new Hono<ApiEnv>({ strict: false });
  return {
    base,
    app,
    on(route, ...steps) {
      const path = honoPath(route.path);
      if (!path.startsWith(base)) throw new Error(`route ${route.path} is not under ${base}`);
      // a GET that calls tools is no safe method: another site must not start it (an <img> sends no Origin)
      const guard: Step[] = route.method === 'GET' && route.action === 'call' ? [sameOriginGet()] : [];
      const single = singleQueryParameters(route);
      const once: Step[] = single.length > 0 ? [singleQuery(single)] : [];
      app.on(route.method, path.slice(base.length) || '/', ...([...guard, authorize<ApiEnv>(ctx.options.auth, route.action), ...once, ...steps] as [MiddlewareHandler<ApiEnv>]));
    },
  };
}

/** Let the request through only if the API has a runtime (`c.var.runtime`); 501 NO_RUNTIME otherwise. */
export function withRuntime(ctx: ApiContext): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (!ctx.runtime) throw new ApiProblem(problem('NO_RUNTIME', 'This server serves the catalog only; start it with a runtime (toolcap serve does) to run tools.'));
    c.set('runtime', ctx.runtime);
    await next();
  };
}

/** `application/json; charset=utf-8`, what every JSON answer says. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer that must not be cached (calls, approvals, audit, health). */
export function noStoreJson(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...headers } });
}
