/**
 * `POST /tools/{name}/call`: run a tool through the runtime. A call that
 * needs approval answers 202 with where to approve it.
 * @module
 */
import { routeModule, withRuntime, noStoreJson, type ApiContext, type RouteModule } from '../context.js';
import { jsonBody, optionalString, readJsonObject } from '../json-body.js';
import { ApiProblem, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';

const CALL_FIELDS = ['arguments', 'persona', 'caller', 'job', 'idempotencyKey'];

/** The call route, mounted at `/tools`. */
export function callRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/tools');

  on(ROUTES.callTool, withRuntime(ctx), jsonBody(ctx.maxBodyBytes), async (c) => {
    const b = await readJsonObject(c);
    const unknown = Object.keys(b).filter((k) => !CALL_FIELDS.includes(k));
    if (unknown.length > 0) {
      throw new ApiProblem(problem('BAD_BODY', `Unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `"${k}"`).join(', ')}; known: ${CALL_FIELDS.join(', ')}.`, { pointer: `/${unknown[0]}` }));
    }
    const persona = optionalString(b, 'persona');
    const caller = optionalString(b, 'caller') ?? c.req.header('x-toolcap-caller');
    const job = optionalString(b, 'job');
    const idempotencyKey = optionalString(b, 'idempotencyKey') ?? c.req.header('idempotency-key');
    const result = await c.var.runtime.call(c.req.param('name') ?? '', 'arguments' in b ? b['arguments'] : {}, {
      ...(persona !== undefined ? { persona } : {}),
      ...(caller !== undefined ? { caller } : {}),
      ...(job !== undefined ? { job } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      signal: c.req.raw.signal,
    });
    if (result.status === 'pending_approval') {
      const id = result.approval.id;
      return noStoreJson({ ...result, approve: `POST /approvals/${id}/approve`, deny: `POST /approvals/${id}/deny` }, 202, { location: `/approvals/${id}` });
    }
    return noStoreJson(result);
  });

  return module;
}
