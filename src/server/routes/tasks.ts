/**
 * `GET /tasks/snapshot`: probe every task-source tool the caller's persona
 * may call, through the runtime, and report each source `ok`, `stale`,
 * `error` or `unsupported` (runtime/probes/snapshot.ts). It runs tools, so
 * it needs the `call` action; each probe is a call of its own in /audit.
 * @module
 */
import { ProbeAdapters } from '../../runtime/probes/adapters.js';
import { taskSnapshot } from '../../runtime/probes/snapshot.js';
import { principalOf } from '../auth.js';
import { noStoreJson, routeModule, withRuntime, type ApiContext, type RouteModule } from '../context.js';
import { badParameters } from '../problem.js';
import { ROUTES } from '../route-table.js';

/** The tasks route, mounted at `/tasks`. */
export function taskRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/tasks', ctx);
  const adapters = ctx.options.probeAdapters ?? new ProbeAdapters();

  on(ROUTES.taskSnapshot, withRuntime(ctx), async (c) => {
    const params = new URL(c.req.url).searchParams;
    const unknown = [...new Set(params.keys())].filter((k) => k !== 'persona');
    if (unknown.length > 0) throw badParameters(unknown.map((k) => ({ parameter: k, message: `Unknown parameter "${k}". Known: persona.` })));
    const principal = principalOf(c);
    const persona = params.get('persona') ?? undefined;
    const snapshot = await taskSnapshot(c.var.runtime, ctx.registry, adapters, {
      ...(principal ? { principal } : {}),
      ...(persona !== undefined ? { persona } : {}),
      ...(principal ? {} : { caller: 'http:tasks-snapshot' }),
      signal: c.req.raw.signal,
    });
    return noStoreJson(snapshot);
  });

  return module;
}
