/**
 * `/approvals`: list and read approval requests, approve (which runs exactly
 * the reviewed call) or deny them.
 * @module
 */
import { isMember } from '../../model/vocabulary.js';
import type { ParameterProblem } from '../../query/params.js';
import type { ApprovalStatus } from '../../store/types.js';
import { routeModule, withRuntime, noStoreJson, type ApiContext, type RouteModule } from '../context.js';
import { jsonBody, optionalString, readJsonObject } from '../json-body.js';
import { badParameters, callProblem } from '../problem.js';
import { ROUTES } from '../route-table.js';

const APPROVAL_STATUSES = ['pending', 'approved', 'denied', 'expired', 'void', 'executed', 'failed'] as const satisfies readonly ApprovalStatus[];

/** `?status&tool&limit`, every bad one reported. */
function parseListParams(params: URLSearchParams): { status?: ApprovalStatus; tool?: string; limit: number } {
  const problems: ParameterProblem[] = [];
  for (const k of new Set(params.keys())) if (!['status', 'tool', 'limit'].includes(k)) problems.push({ parameter: k, message: `Unknown parameter "${k}". Known: status, tool, limit.` });
  const status = params.get('status') ?? undefined;
  if (status !== undefined && !isMember(APPROVAL_STATUSES, status)) problems.push({ parameter: 'status', message: `"${status}" is not one of ${APPROVAL_STATUSES.join(', ')}.` });
  const limit = params.get('limit');
  const n = limit === null ? 100 : /^\d+$/.test(limit) ? Number(limit) : Number.NaN;
  if (!(n >= 1 && n <= 1000)) problems.push({ parameter: 'limit', message: `"${limit}" is not a whole number from 1 to 1000.` });
  if (problems.length > 0) throw badParameters(problems);
  const tool = params.get('tool') ?? undefined;
  return { ...(status ? { status: status as ApprovalStatus } : {}), ...(tool ? { tool } : {}), limit: n };
}

/** The approval routes, mounted at `/approvals`. */
export function approvalRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/approvals');
  const runtime = withRuntime(ctx);
  const body = jsonBody(ctx.maxBodyBytes);

  on(ROUTES.listApprovals, runtime, async (c) => noStoreJson({ approvals: await c.var.runtime.listApprovals(parseListParams(new URL(c.req.url).searchParams)) }));
  on(ROUTES.getApproval, runtime, async (c) => noStoreJson(await c.var.runtime.getApproval(c.req.param('id') ?? '')));

  on(ROUTES.approve, runtime, body, async (c) => {
    const b = await readJsonObject(c);
    const by = optionalString(b, 'by') ?? c.req.header('x-toolcap-caller');
    const note = optionalString(b, 'note');
    const outcome = await c.var.runtime.approve(c.req.param('id') ?? '', { ...(by !== undefined ? { by } : {}), ...(note !== undefined ? { note } : {}) });
    if (outcome.error) throw callProblem(outcome.error, { approval: outcome.approval });
    return noStoreJson(outcome);
  });

  on(ROUTES.deny, runtime, body, async (c) => {
    const b = await readJsonObject(c);
    const by = optionalString(b, 'by') ?? c.req.header('x-toolcap-caller');
    const note = optionalString(b, 'note');
    return noStoreJson({ approval: await c.var.runtime.deny(c.req.param('id') ?? '', { ...(by !== undefined ? { by } : {}), ...(note !== undefined ? { note } : {}) }) });
  });

  return module;
}
