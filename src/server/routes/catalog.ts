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
import { parseFilter } from '../../query/params.js';
import { listToolsJson } from '../../query/tools-json.js';
import { getTool, searchAnswer, searchTools } from '../../query/views.js';
import { summarizeCatalog, summarizeJobs } from '../../registry/summary.js';
import { ALL } from '../../runtime/identity/principal.js';
import { principalOf } from '../auth.js';
import { jobsWithHealth, summaryWithHealth } from '../health-views.js';
import { agentFor, takeAgent } from '../agent-param.js';
import type { BodyCache } from '../body-cache.js';
import { onePersona, parseSearch } from '../catalog-params.js';
import { routeModule, type ApiContext, type ApiEnv, type RouteModule } from '../context.js';
import { scopedQuery, shownPersona } from '../personas.js';
import { ApiProblem, badParameters, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';

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
        return listToolsJson(snap, parsed.filter, health, agent === undefined ? undefined : agentFor(snap, agent, parsed.filter.personas));
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

  on(ROUTES.search, (c) =>
    cache.answer(c, (snap, params) => {
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
      return searchAnswer(result, search.explain);
    }, scoped(c, true)),
  );

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
