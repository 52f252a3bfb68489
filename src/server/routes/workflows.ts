/**
 * The workflow inbox for workers (action `workflows.work`):
 * `GET /workflows/{id}` (the workflow: type, name, bootstrap, signals so
 * far), `GET /workflows/{id}/signals?after=&limit=&all=` (pending signals in
 * order; `all=1` includes acknowledged ones) and
 * `POST /workflows/{id}/signals/{seq}/ack`. Delivery is at least once: a
 * signal stays pending until acknowledged.
 * @module
 */
import { MAX_SIGNALS_PAGE } from '../../store/workflow-inbox.js';
import { StoreUnavailableError } from '../../store/types.js';
import { noStoreJson, routeModule, type ApiContext, type RouteModule } from '../context.js';
import { ApiProblem, badParameters, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';
import { inboxOf } from './hooks.js';

const nonNegative = (name: string, text: string | undefined, max: number, fallback: number): number => {
  if (text === undefined) return fallback;
  const n = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > max) throw badParameters([{ parameter: name, message: `"${name}" must be an integer from 0 to ${max}.` }]);
  return n;
};

/** The workflows routes, mounted at `/workflows`. */
export function workflowRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/workflows', ctx);
  const inbox = () => {
    const found = inboxOf(ctx.runtime);
    if (!found) throw new ApiProblem(problem('NO_RUNTIME', 'This server keeps no workflow inbox; serve with a runtime and its store (toolcap serve does).'));
    return found;
  };
  const storeSafe = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw new ApiProblem(problem('STORE_UNAVAILABLE', 'The store is unavailable. Retry.'), { 'retry-after': '5' });
      throw err;
    }
  };
  const mustExist = async (id: string) => {
    const wf = await storeSafe(() => inbox().getWorkflow(id));
    if (!wf) throw new ApiProblem(problem('WORKFLOW_NOT_FOUND', `No workflow "${id}" in the inbox.`, { workflowId: id }));
    return wf;
  };

  on(ROUTES.getWorkflow, async (c) => noStoreJson({ workflow: await mustExist(c.req.param('id') ?? '') }));

  on(ROUTES.workflowSignals, async (c) => {
    const id = c.req.param('id') ?? '';
    const after = nonNegative('after', c.req.query('after'), Number.MAX_SAFE_INTEGER, 0);
    const limit = Math.max(1, nonNegative('limit', c.req.query('limit'), MAX_SIGNALS_PAGE, 100));
    const all = c.req.query('all');
    await mustExist(id);
    const signals = await storeSafe(() => inbox().listSignals(id, { after, limit, all: all === '1' || all === 'true' }));
    return noStoreJson({ workflowId: id, signals, ...(signals.length === limit ? { next: String(signals.at(-1)!.seq) } : {}) });
  });

  on(ROUTES.ackSignal, async (c) => {
    const id = c.req.param('id') ?? '';
    const seq = nonNegative('seq', c.req.param('seq'), Number.MAX_SAFE_INTEGER, 0);
    const signal = await storeSafe(() => inbox().ackSignal(id, seq, new Date().toISOString()));
    if (!signal) throw new ApiProblem(problem('WORKFLOW_NOT_FOUND', `No signal ${seq} of workflow "${id}".`, { workflowId: id, seq }));
    return noStoreJson({ signal });
  });

  return module;
}
