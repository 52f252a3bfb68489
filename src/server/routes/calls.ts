/**
 * `POST /tools/{name}/call`: run a tool through the runtime. A call that
 * needs approval answers 202 with where to approve it; with `Prefer:
 * wait=N` it waits up to N seconds for the decision and the run, and answers
 * the outcome (RFC 7240). With a principal, the principal is the caller
 * (the body's `caller` and `X-Toolcap-Caller` are ignored) and the runtime
 * resolves its persona.
 * @module
 */
import type { ApprovalView } from '../../runtime/approvals.js';
import type { CallResult } from '../../runtime/runtime.js';
import { authFailure, principalOf, type ApiAuth } from '../auth.js';
import { routeModule, withRuntime, noStoreJson, type ApiContext, type RouteModule } from '../context.js';
import { jsonBody, optionalString, readJsonObject } from '../json-body.js';
import { ApiProblem, PROBLEM_CODES, problem, type ProblemCode } from '../problem.js';
import { ROUTES } from '../route-table.js';
import { SELECTION_ID } from '../../runtime/selections.js';

const CALL_FIELDS = ['arguments', 'persona', 'agent', 'caller', 'job', 'idempotencyKey', 'selection'];

/** The longest `Prefer: wait` honoured, seconds (a longer one is cut to it). */
export const MAX_WAIT_SEC = 60;

/**
 * The seconds of a `Prefer: wait=N`, at most {@link MAX_WAIT_SEC}; undefined
 * without one (or with a malformed one, which RFC 7240 says to ignore).
 * @example preferWait('respond-async, wait=10') // 10
 */
export function preferWait(header: string | undefined): number | undefined {
  const m = header === undefined ? null : /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?\s*(?:[,;]|$)/i.exec(header);
  return m ? Math.min(Number(m[1]), MAX_WAIT_SEC) : undefined;
}

/** The answer of a pending call once waited for: the run's result (200), its failure (problem), or still pending (202). */
function settled(pending: CallResult & { status: 'pending_approval' }, view: ApprovalView, applied: Record<string, string>): Response {
  const { outcome } = view;
  if (outcome?.status === 'ok') {
    const { result, provider, attempts, durationMs } = outcome;
    return noStoreJson({ status: 'ok', callId: pending.callId, tool: pending.tool, provider, attempts, durationMs, result, approval: view }, 200, applied);
  }
  if (outcome?.status === 'error') {
    const code: ProblemCode = outcome.code in PROBLEM_CODES ? (outcome.code as ProblemCode) : 'PROVIDER_ERROR';
    throw new ApiProblem(problem(code, outcome.message, { approval: view }), applied);
  }
  if (view.status === 'denied' || view.status === 'expired' || view.status === 'void') {
    throw new ApiProblem(problem('APPROVAL_CONFLICT', `The approval is ${view.status}; the call did not run.`, { approval: view }), applied);
  }
  return pendingAnswer(pending, view, applied);
}

/** 202 with the approval and where to decide it. */
function pendingAnswer(pending: CallResult & { status: 'pending_approval' }, approval: ApprovalView, headers: Record<string, string> = {}): Response {
  const id = approval.id;
  return noStoreJson({ ...pending, approval, approve: `POST /approvals/${id}/approve`, deny: `POST /approvals/${id}/deny` }, 202, { location: `/approvals/${id}`, ...headers });
}

/**
 * A wait may outlast the credential it began with (a key revoked, a token
 * expired meanwhile): the outcome goes only to one still valid, as if asked
 * for anew (`GET /approvals/{id}` would be), else the request's 401.
 */
async function stillAuthenticated(auth: ApiAuth | undefined, request: Request): Promise<void> {
  if (!auth) return;
  const outcome = await auth.authenticate(request);
  if (!outcome.ok) throw authFailure(auth, outcome, request.url);
}

/** The call route, mounted at `/tools`. */
export function callRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/tools', ctx);

  on(ROUTES.callTool, withRuntime(ctx), jsonBody(ctx.maxBodyBytes), async (c) => {
    const b = await readJsonObject(c);
    const unknown = Object.keys(b).filter((k) => !CALL_FIELDS.includes(k));
    if (unknown.length > 0) {
      throw new ApiProblem(problem('BAD_BODY', `Unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `"${k}"`).join(', ')}; known: ${CALL_FIELDS.join(', ')}.`, { pointer: `/${unknown[0]}` }));
    }
    const principal = principalOf(c);
    const persona = optionalString(b, 'persona') ?? c.req.header('x-toolcap-persona');
    const agent = optionalString(b, 'agent') ?? c.req.header('x-toolcap-agent');
    // the actor is the principal when there is one, never a name the caller writes
    const caller = principal ? undefined : (optionalString(b, 'caller') ?? c.req.header('x-toolcap-caller'));
    const job = optionalString(b, 'job');
    const idempotencyKey = optionalString(b, 'idempotencyKey') ?? c.req.header('idempotency-key');
    // the id of the search answer (its toolcap-selection header) the tool was chosen from
    const selection = optionalString(b, 'selection');
    if (selection !== undefined && !SELECTION_ID.test(selection)) throw new ApiProblem(problem('BAD_BODY', 'The selection is not a selection id (the toolcap-selection header of a /search answer).', { pointer: '/selection' }));
    const wait = preferWait(c.req.header('prefer'));
    const runtime = c.var.runtime;
    const result = await runtime.call(c.req.param('name') ?? '', 'arguments' in b ? b['arguments'] : {}, {
      ...(principal ? { principal } : {}),
      ...(persona !== undefined ? { persona } : {}),
      ...(agent !== undefined ? { agent } : {}),
      ...(caller !== undefined ? { caller } : {}),
      ...(job !== undefined ? { job } : {}),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      ...(selection !== undefined ? { selection } : {}),
      signal: c.req.raw.signal,
    });
    if (result.status !== 'pending_approval') return noStoreJson(result);
    if (wait === undefined || wait === 0) return pendingAnswer(result, result.approval);
    const view = await runtime.waitForApproval(result.approval.id, wait * 1000, c.req.raw.signal);
    await stillAuthenticated(ctx.options.auth, c.req.raw);
    return settled(result, view, { 'preference-applied': `wait=${wait}` });
  });

  return module;
}
