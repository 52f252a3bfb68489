/**
 * The catalog reads: `/tools`, `/tools/{name}`, `/search`, `/skills`,
 * `/agents`, `/jobs`, `/summary`. Each is a snapshot read answered through
 * the body cache (ETag, 304); what each one answers is shared with the CLI
 * (`query/views.ts`, `registry/summary.ts`). With a principal, every read
 * is answered for its personas (`personas.ts`): persona-scoped tools are
 * never shown to a principal without that persona. `/tools` and `/search`
 * take `agent`, narrowing the answer to that agent's view (`agent-param.ts`).
 * @module
 */
import type { Context } from 'hono';
import { listingFilter, parseFilter } from '../../query/params.js';
import { listToolsJson } from '../../query/tools-json.js';
import { getTool, searchAnswer, searchTools } from '../../query/views.js';
import { summarizeCatalog, summarizeJobs } from '../../registry/summary.js';
import { ALL } from '../../runtime/identity/principal.js';
import { selectionCandidate, selectionOwner, type SelectionCandidate, type Selections } from '../../runtime/selections.js';
import { principalOf } from '../auth.js';
import { jobsWithHealth, summaryWithHealth } from '../health-views.js';
import { agentFor, takeAgent } from '../agent-param.js';
import type { BodyCache } from '../body-cache.js';
import { onePersona, parseSearch } from '../catalog-params.js';
import { routeModule, type ApiContext, type ApiEnv, type RouteModule } from '../context.js';
import { scopedQuery, shownPersona } from '../personas.js';
import { ApiProblem, badParameters, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';

/** The most rankings kept for cached answers (as many as the body cache holds by default). */
const MAX_RANKINGS = 256;

/**
 * The search answer with the selection it is kept as: its id in the
 * `toolcap-selection` header (the body stays the cached, ETagged ranking),
 * bound to the principal that asked.
 */
function withSelection(c: Context<ApiEnv>, response: Response, ranked: SelectionCandidate[] | undefined, rankings: Map<string, SelectionCandidate[]>, selections: Selections): Response {
  const etag = response.headers.get('etag') ?? '';
  if (ranked) {
    rankings.delete(etag);
    rankings.set(etag, ranked);
    if (rankings.size > MAX_RANKINGS) rankings.delete(rankings.keys().next().value as string);
  }
  const candidates = ranked ?? rankings.get(etag) ?? [];
  const id = selections.record(selectionOwner(principalOf(c)), new URL(c.req.url).searchParams.get('q') ?? '', candidates);
  response.headers.set(SELECTION_HEADER, id);
  return response;
}

/** The header a search answer's selection id is in. */
export const SELECTION_HEADER = 'toolcap-selection';

/** The catalog reads, mounted at `/`. */
export function catalogRoutes(ctx: ApiContext, cache: BodyCache): RouteModule {
  const { health, runtime, options, registry } = ctx;
  const { on, ...module } = routeModule('/', ctx);
  /** The query answered: the request's, with the principal's personas written in. */
  const scoped = (c: Context<ApiEnv>, many: boolean) => scopedQuery(registry, runtime, principalOf(c), new URL(c.req.url).searchParams, many);

  on(ROUTES.listTools, (c) =>
    cache.answer(
      c,
      (snap, params) => {
        const { agent, rest } = takeAgent(params);
        const parsed = parseFilter(rest);
        if ('problems' in parsed) throw badParameters(parsed.problems);
        return listToolsJson(snap, listingFilter(parsed.filter, rest), health, agent === undefined ? undefined : agentFor(snap, agent, parsed.filter.personas));
      },
      scoped(c, true),
    ),
  );

  on(ROUTES.getTool, (c) =>
    cache.answer(
      c,
      (snap, params) => {
        const persona = onePersona(params);
        const name = c.req.param('name') ?? '';
        const found = getTool(snap, name, persona, health);
        if (!found) throw new ApiProblem(problem('TOOL_NOT_FOUND', persona === undefined ? `No tool named "${name}".` : `No tool named "${name}" that ${shownPersona(persona)} can see.`));
        if (!runtime) return { version: snap.version, ...found };
        const last = runtime.health.lastSuccess(name);
        // ATLAS's "last successful provider": which provider answered the latest successful call
        const lastSuccessfulProvider = last ? { provider: last.provider, at: new Date(last.at).toISOString() } : null;
        return { version: snap.version, ...found, providerHealth: runtime.health.providers(name), lastSuccessfulProvider };
      },
      scoped(c, false),
    ),
  );

  // the ranking of each cached answer, by its ETag: a search answered from the cache is kept as a selection too
  const rankings = new Map<string, SelectionCandidate[]>();
  on(ROUTES.search, (c) => {
    let ranked: SelectionCandidate[] | undefined;
    const response = cache.answer(c, (snap, params) => {
      const { agent, rest } = takeAgent(params);
      const { search, filter } = parseSearch(rest);
      const taskRisk = search.taskRisk ?? options.taskRisk;
      const result = searchTools(
        snap,
        {
          query: search.q,
          filter,
          limit: search.limit,
          ...(search.intent !== undefined ? { intent: search.intent } : {}),
          ...(taskRisk !== undefined ? { taskRisk } : {}),
          ...(options.weights ? { weights: options.weights } : {}),
          ...(agent !== undefined ? { agent: agentFor(snap, agent, filter.personas) } : {}),
        },
        health,
      );
      if (runtime) ranked = searchAnswer(result, true).candidates.map(selectionCandidate);
      return searchAnswer(result, search.explain);
    }, scoped(c, true));
    return runtime ? withSelection(c, response, ranked, rankings, runtime.selections) : response;
  });

  on(ROUTES.skills, (c) => cache.answer(c, (snap, params) => ({ version: snap.version, skills: snap.documentFor(onePersona(params)).skills }), scoped(c, false)));
  on(ROUTES.agents, (c) => cache.answer(c, (snap, params) => ({ version: snap.version, agents: snap.documentFor(onePersona(params)).agents }), scoped(c, false)));
  on(ROUTES.jobs, (c) => cache.answer(c, (snap, params) => ({ version: snap.version, jobs: jobsWithHealth(summarizeJobs(snap, onePersona(params)), snap, runtime) }), scoped(c, false)));
  on(ROUTES.summary, (c) => {
    // without a persona the summary counts and names every persona's tools: only for those who may see them all
    const principal = principalOf(c);
    const perPersona = new URL(c.req.url).searchParams.has('persona');
    if (principal && !principal.personas.includes(ALL) && !perPersona) {
      throw new ApiProblem(problem('FORBIDDEN', `The summary covers every persona; "${principal.id}" is not granted all. Ask /summary?persona=<one of yours>, /tools or /jobs, which answer for its personas.`));
    }
    return cache.answer(c, (snap, params) => summaryWithHealth(summarizeCatalog(snap, onePersona(params)), snap, health, runtime), perPersona ? scoped(c, false) : undefined);
  });

  return module;
}
