/**
 * `/approvals`: list and read approval requests, approve (which runs exactly
 * the reviewed call) or deny them. With a principal, a caller sees only the
 * approvals it asked for (another's answers 404, as an unknown id does), an
 * approver those and the ones within its grants, an admin every one; a
 * decision is the principal's over
 * the `http` channel: the body's `by` is ignored, and the runtime refuses a
 * principal deciding its own request (four eyes) or one outside its grants.
 * @module
 */
import type { Context } from 'hono';
import { isMember } from '../../model/vocabulary.js';
import type { ParameterProblem } from '../../query/params.js';
import { can, mayDecide, type ApprovalSubject, type Principal } from '../../runtime/identity/principal.js';
import type { Decision } from '../../runtime/approval-policy.js';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../../store/types.js';
import type { ApprovalView } from '../../runtime/approval-records.js';
import type { Runtime } from '../../runtime/runtime.js';
import { principalOf } from '../auth.js';
import { routeModule, withRuntime, noStoreJson, type ApiContext, type ApiEnv, type RouteModule } from '../context.js';
import { jsonBody, optionalString, readJsonObject } from '../json-body.js';
import { ApiProblem, badParameters, callProblem, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';


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

/**
 * Whether a principal may see an approval: its own; or, reading all, one it
 * could decide. An approver granted one persona's approvals must not read
 * another persona's tools and arguments through them (persona-scoped tools
 * are shown only to their personas). No principal: a trusted caller.
 */
export function visible(principal: Principal | undefined, approval: ApprovalSubject): boolean {
  if (principal === undefined || approval.requestedByPrincipal === principal.id) return true;
  return can(principal, 'approvals.read.all') && mayDecide(principal, approval).ok;
}

/** Approvals a reviewer with narrower grants sees are filtered from this many, newest first. */
const SCAN_LIMIT = 1000;

/**
 * The approvals a principal may see, newest first (the list `GET /approvals`
 * answers, and the console's queue): every one for an admin or a trusted
 * caller, its own for a caller, those within its grants for an approver.
 */
export async function visibleApprovals(runtime: Runtime, principal: Principal | undefined, query: { status?: ApprovalStatus; tool?: string; limit: number }): Promise<ApprovalView[]> {
  if (principal === undefined || principal.roles.includes('admin')) return runtime.listApprovals(query);
  if (!can(principal, 'approvals.read.all')) return runtime.listApprovals({ ...query, requestedBy: principal.id });
  const scanned = await runtime.listApprovals({ ...query, limit: SCAN_LIMIT });
  return scanned.filter((a) => visible(principal, a)).slice(0, query.limit);
}

/** The decision a request makes: the principal's over HTTP, else (library use) the `by` it names. */
async function decisionOf(c: Context<ApiEnv>): Promise<Decision> {
  const b = await readJsonObject(c);
  const note = optionalString(b, 'note');
  const principal = principalOf(c);
  if (principal) return { principal, channel: 'http', ...(note !== undefined ? { note } : {}) };
  const by = optionalString(b, 'by') ?? c.req.header('x-toolcap-caller');
  return { ...(by !== undefined ? { by } : {}), ...(note !== undefined ? { note } : {}) };
}

/** The approval routes, mounted at `/approvals`. */
export function approvalRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/approvals', ctx);
  const runtime = withRuntime(ctx);
  const body = jsonBody(ctx.maxBodyBytes);

  on(ROUTES.listApprovals, runtime, async (c) => {
    const query = parseListParams(new URL(c.req.url).searchParams);
    return noStoreJson({ approvals: await visibleApprovals(c.var.runtime, principalOf(c), query) });
  });

  on(ROUTES.getApproval, runtime, async (c) => {
    const id = c.req.param('id') ?? '';
    const approval = await c.var.runtime.getApproval(id);
    const principal = principalOf(c);
    // another's approval answers as a missing one: its existence is not the caller's business
    if (!visible(principal, approval)) throw new ApiProblem(problem('APPROVAL_NOT_FOUND', `No approval "${id}".`));
    return noStoreJson(approval);
  });

  on(ROUTES.approve, runtime, body, async (c) => {
    const outcome = await c.var.runtime.approve(c.req.param('id') ?? '', await decisionOf(c));
    if (outcome.error) throw callProblem(outcome.error, { approval: outcome.approval });
    return noStoreJson(outcome);
  });

  on(ROUTES.deny, runtime, body, async (c) => noStoreJson({ approval: await c.var.runtime.deny(c.req.param('id') ?? '', await decisionOf(c)) }));

  return module;
}
