/**
 * The catalog reads: `/tools`, `/tools/{name}`, `/search`, `/skills`,
 * `/agents`, `/jobs`, `/summary`. Each is a snapshot read answered through
 * the body cache (ETag, 304); what each one answers is shared with the CLI
 * (`query/views.ts`, `registry/summary.ts`).
 * @module
 */
import { parseFilter } from '../../query/params.js';
import { getTool, listTools, searchAnswer, searchTools } from '../../query/views.js';
import { summarizeCatalog, summarizeJobs } from '../../registry/summary.js';
import type { BodyCache } from '../body-cache.js';
import { noParameters, onePersona, parseSearch } from '../catalog-params.js';
import { routeModule, type ApiContext, type RouteModule } from '../context.js';
import { ApiProblem, badParameters, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';

/** The catalog reads, mounted at `/`. */
export function catalogRoutes(ctx: ApiContext, cache: BodyCache): RouteModule {
  const { health, runtime, options } = ctx;
  const { on, ...module } = routeModule('/');

  on(ROUTES.listTools, (c) =>
    cache.answer(c, (snap, params) => {
      const parsed = parseFilter(params);
      if ('problems' in parsed) throw badParameters(parsed.problems);
      return listTools(snap, parsed.filter, health);
    }),
  );

  on(ROUTES.getTool, (c) =>
    cache.answer(c, (snap, params) => {
      const persona = onePersona(params);
      const name = c.req.param('name') ?? '';
      const found = getTool(snap, name, persona, health);
      if (!found) {
        throw new ApiProblem(problem('TOOL_NOT_FOUND', persona === undefined ? `No tool named "${name}".` : `No tool named "${name}" that persona "${persona}" can see.`));
      }
      return { version: snap.version, ...found, ...(runtime ? { providerHealth: runtime.health.providers(name) } : {}) };
    }),
  );

  on(ROUTES.search, (c) =>
    cache.answer(c, (snap, params) => {
      const { search, filter } = parseSearch(params);
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
        },
        health,
      );
      return searchAnswer(result, search.explain);
    }),
  );

  on(ROUTES.skills, (c) => cache.answer(c, (snap, params) => ({ version: snap.version, skills: snap.documentFor(onePersona(params)).skills })));
  on(ROUTES.agents, (c) => cache.answer(c, (snap, params) => ({ version: snap.version, agents: snap.documentFor(onePersona(params)).agents })));
  on(ROUTES.jobs, (c) => cache.answer(c, (snap, params) => ({ version: snap.version, jobs: summarizeJobs(snap, onePersona(params)) })));
  on(ROUTES.summary, (c) =>
    cache.answer(c, (snap, params) => {
      noParameters(params);
      return summarizeCatalog(snap);
    }),
  );

  return module;
}
