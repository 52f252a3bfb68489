/**
 * `GET /audit`: the append-only audit log, oldest first, paged by `seq`.
 * @module
 */
import { errorMessage } from '../../model/errors.js';
import type { ParameterProblem } from '../../query/params.js';
import { routeModule, withRuntime, noStoreJson, type ApiContext, type RouteModule } from '../context.js';
import { ApiProblem, badParameters, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';

/** `?tool&call_id&after&limit`, every bad one reported. */
function parseAuditParams(params: URLSearchParams): { tool?: string; callId?: string; after: number; limit: number } {
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
  if (problems.length > 0) throw badParameters(problems);
  const tool = params.get('tool') ?? undefined;
  const callId = params.get('call_id') ?? undefined;
  return { ...(tool ? { tool } : {}), ...(callId ? { callId } : {}), after, limit };
}

/** The audit route, mounted at `/audit`. */
export function auditRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/audit', ctx);

  on(ROUTES.audit, withRuntime(ctx), async (c) => {
    const rt = c.var.runtime;
    const { after, limit, tool, callId } = parseAuditParams(new URL(c.req.url).searchParams);
    let records;
    try {
      await rt.flush(); // read your own writes: calls answered before this request are in the log
      records = await rt.store.listAudit({ afterSeq: after, limit, ...(tool ? { tool } : {}), ...(callId ? { callId } : {}) });
    } catch (error) {
      throw new ApiProblem(problem('STORE_UNAVAILABLE', `The store is unavailable: ${errorMessage(error)}`));
    }
    const last = records.at(-1);
    return noStoreJson({ audit: records, ...(last && records.length === limit ? { next: `/audit?after=${last.seq}&limit=${limit}` } : {}) });
  });

  return module;
}
