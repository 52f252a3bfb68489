/**
 * The approval queue, `/ui/approvals`: the requests this principal may see
 * (the list `GET /approvals` answers), each with the tool, persona, who
 * asked, the exact arguments, the manifest hash it is bound to and whether
 * the serving manifest still has it, and when it expires; approve or deny
 * with a reason. The runtime decides as it does for `POST
 * /approvals/{id}/approve`: four eyes, grants, a changed manifest voids.
 * `/ui/approvals/events` is a server-sent event stream that says when the
 * queue changed; the page's script then fetches the queue again.
 * @module
 */
import { createHmac } from 'node:crypto';
import { toolHash } from '../../model/hash.js';
import { isMember } from '../../model/vocabulary.js';
import type { ApprovalView } from '../../runtime/approval-records.js';
import { CallError } from '../../runtime/errors.js';
import { can, mayDecide, type Principal } from '../../runtime/identity/principal.js';
import type { Runtime } from '../../runtime/runtime.js';
import { APPROVAL_STATUSES, type ApprovalStatus } from '../../store/types.js';
import { visibleApprovals } from '../routes/approvals.js';
import type { PageEnv, PageResult } from './page.js';
import { h, pretty, queryString, select, type Safe } from './html.js';
import { CONSOLE_HEADERS } from './layout.js';
import { sameToken } from './session.js';

/** Requests shown at most. */
const SHOWN = 100;

function noRuntime(): PageResult {
  return { title: 'Approvals', status: 501, body: h`<h1>Approvals</h1><p>This server serves the catalog only; it has no runtime, so nothing asks for approval.</p>` };
}

/**
 * The seal of a decision's message on its way back to the queue in the URL:
 * keyed with the session's secret form token, so a link from elsewhere
 * cannot put its own words in the console's notice.
 */
const seal = (csrf: string, key: string, message: string): string => createHmac('sha256', csrf).update(`${key}\n${message}`).digest('base64url');

/** A decision's message from the URL, when this session's decision sealed it. */
function sealedMessage(env: PageEnv, key: 'done' | 'error'): string | null {
  const message = env.url.searchParams.get(key);
  const sig = env.url.searchParams.get('sig');
  if (message === null || sig === null || env.user.csrf === '') return null;
  return sameToken(sig, seal(env.user.csrf, key, message)) ? message : null;
}

/** Whether the serving manifest still hashes as the one the request was bound to. */
function manifestState(runtime: Runtime, a: ApprovalView): { matches: boolean; current?: string } {
  try {
    const current = toolHash(runtime.resolve(a.tool, a.persona ?? undefined));
    return { matches: current === a.manifestHash, current };
  } catch {
    return { matches: false };
  }
}

/** Whether a principal's grants cover the request (its own request passes here: the runtime answers four eyes). */
function decidableBy(principal: Principal, a: ApprovalView): boolean {
  const m = mayDecide(principal, a);
  return m.ok || m.reason !== 'FORBIDDEN';
}

function card(runtime: Runtime, a: ApprovalView, principal: Principal | undefined, csrf: string): Safe {
  const manifest = manifestState(runtime, a);
  const expired = Date.parse(a.expiresAt) <= Date.now();
  const own = principal !== undefined && a.requestedByPrincipal === principal.id;
  const decidable = a.status === 'pending' && !expired && (principal === undefined || (can(principal, 'approvals.decide') && decidableBy(principal, a)));
  const headingId = `apr-${a.id}`;
  return h`<article class="card" aria-labelledby="${headingId}"><h2 id="${headingId}"><a href="/ui/tools/${encodeURIComponent(a.tool)}${a.persona ? `?persona=${encodeURIComponent(a.persona)}` : ''}">${a.tool}</a> <span class="tag">${a.status}</span></h2>
<dl class="kv"><dt>Requested by</dt><dd>${a.requestedByPrincipal ?? a.requestedBy ?? 'unknown'}</dd><dt>Persona</dt><dd>${a.persona ?? 'none'}</dd>
<dt>Why approval</dt><dd>${a.reason}</dd><dt>Asked</dt><dd>${a.createdAt}</dd><dt>Expires</dt><dd>${expired ? h`<span class="bad">expired ${a.expiresAt}</span>` : a.expiresAt}</dd>
<dt>Manifest hash</dt><dd><code>${a.manifestHash}</code> ${manifest.matches ? h`<span class="ok">matches the serving manifest</span>` : h`<span class="bad">no longer matches${manifest.current ? h` (now <code>${manifest.current}</code>)` : ' (the tool is gone)'}: approving voids it</span>`}</dd>
${a.codeHash ? h`<dt>Code hash</dt><dd><code>${a.codeHash}</code></dd>` : ''}<dt>Arguments hash</dt><dd><code>${a.argumentsHash}</code></dd>
${a.decidedBy ? h`<dt>Decided by</dt><dd>${a.decidedByPrincipal ?? a.decidedBy} at ${a.decidedAt}${a.note ? h`: ${a.note}` : ''}</dd>` : ''}</dl>
<p><strong>Exact arguments</strong></p><pre>${pretty(a.arguments)}</pre>
${
  decidable
    ? h`<form method="post" action="/ui/approvals/${encodeURIComponent(a.id)}/approve"><input type="hidden" name="csrf" value="${csrf}">
${own ? h`<p class="notice">You asked for this call: unless self-approval is configured, another approver must decide (four eyes).</p>` : ''}
<label for="note-${a.id}">Reason (recorded in the audit log)</label><textarea id="note-${a.id}" name="note" rows="2" maxlength="2000"></textarea>
<p><button type="submit">Approve and run</button> <button type="submit" class="danger" formaction="/ui/approvals/${encodeURIComponent(a.id)}/deny">Deny</button></p></form>`
    : ''
}</article>`;
}

/** The queue's HTML (the page's, and the fragment the script fetches). */
async function queue(env: PageEnv, runtime: Runtime, status: ApprovalStatus | undefined): Promise<Safe> {
  const list = await visibleApprovals(runtime, env.user.principal, { ...(status ? { status } : {}), limit: SHOWN });
  if (list.length === 0) return h`<p>No ${status ?? ''} requests${env.user.principal ? ' you can see' : ''}.</p>`;
  return h`<p>${list.length} request${list.length === 1 ? '' : 's'}, newest first.</p>${list.map((a) => card(runtime, a, env.user.principal, env.user.csrf))}`;
}

function statusOf(url: URL): ApprovalStatus | undefined {
  const s = url.searchParams.get('status') ?? 'pending';
  return isMember(APPROVAL_STATUSES, s) ? s : undefined;
}

/** `GET /ui/approvals` (and `?fragment=1`, the queue alone). */
export async function approvalsPage(env: PageEnv): Promise<PageResult> {
  const runtime = env.ctx.runtime;
  if (!runtime) return noRuntime();
  const status = statusOf(env.url);
  const items = await queue(env, runtime, status);
  if (env.url.searchParams.get('fragment') === '1') return new Response(items.text, { headers: CONSOLE_HEADERS as Record<string, string> });
  const done = sealedMessage(env, 'done');
  const error = sealedMessage(env, 'error');
  const fragment = `/ui/approvals${queryString([['fragment', '1'], ['status', status ?? '']])}`;
  const body = h`<h1>Approvals</h1>
${done ? h`<p class="notice" role="status">${done}</p>` : ''}${error ? h`<p class="diag" role="alert">${error}</p>` : ''}
<form class="filters" method="get" action="/ui/approvals">${select('status', 'Status', APPROVAL_STATUSES, env.url.searchParams.get('status') ?? 'pending')}<button type="submit">Show</button></form>
<p id="live" role="status" aria-live="polite" class="muted">New requests appear here as they arrive.</p>
<div id="queue" data-events="/ui/approvals/events" data-fragment="${fragment}">${items}</div>`;
  return { title: 'Approvals', body };
}

/** `POST /ui/approvals/{id}/approve|deny`: the runtime decides; back to the queue with what happened. */
export async function decide(env: PageEnv): Promise<PageResult> {
  const runtime = env.ctx.runtime;
  if (!runtime) return noRuntime();
  const id = env.c.req.param('id') ?? '';
  const verb = env.c.req.param('decision') === 'deny' ? 'deny' : 'approve';
  const form = await env.c.req.parseBody();
  const note = typeof form['note'] === 'string' && form['note'].trim() !== '' ? form['note'].trim() : undefined;
  const decision = { ...(env.user.principal ? { principal: env.user.principal, channel: 'http' as const } : { by: 'console' }), ...(note !== undefined ? { note } : {}) };
  const back = (key: 'done' | 'error', message: string) => new Response(null, { status: 303, headers: { location: `/ui/approvals?${new URLSearchParams({ [key]: message, sig: seal(env.user.csrf, key, message) })}` } });
  try {
    if (verb === 'deny') {
      const approval = await runtime.deny(id, decision);
      return back('done', `Denied ${approval.tool} (${approval.id}).`);
    }
    const outcome = await runtime.approve(id, decision);
    if (outcome.error) return back('error', `Approved ${outcome.approval.tool}, but the call failed: ${outcome.error.code}: ${outcome.error.message}`);
    return back('done', `Approved ${outcome.approval.tool} (${outcome.approval.id}); the call ran: ${outcome.approval.status}.`);
  } catch (error) {
    if (error instanceof CallError) return back('error', `${error.code}: ${error.message}`);
    throw error;
  }
}

/** Event streams one principal may hold open at once (a few tabs); each polls the store. */
export const MAX_STREAMS_PER_PRINCIPAL = 4;
const openStreams = new Map<string, number>();

/** `GET /ui/approvals/events`: `event: approvals` whenever the pending requests this principal sees change. */
export function approvalsEvents(env: PageEnv): PageResult {
  const runtime = env.ctx.runtime;
  if (!runtime) return noRuntime();
  const who = env.user.principal?.id ?? '';
  const open = openStreams.get(who) ?? 0;
  if (open >= MAX_STREAMS_PER_PRINCIPAL) {
    return new Response(`At most ${MAX_STREAMS_PER_PRINCIPAL} approval streams at once; close another tab.`, { status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '30' } });
  }
  openStreams.set(who, open + 1);
  const pollMs = env.options.pollMs ?? 2000;
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  let last: string | undefined;
  let counted = true;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (counted) {
      counted = false;
      const left = (openStreams.get(who) ?? 1) - 1;
      if (left > 0) openStreams.set(who, left);
      else openStreams.delete(who);
    }
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const look = async () => {
        try {
          // a revoked key or an expired token ends the stream, as it ends the session
          if (!(await env.stillSignedIn())) {
            stop();
            controller.close();
            return;
          }
          const pending = await visibleApprovals(runtime, env.user.principal, { status: 'pending', limit: SHOWN });
          const sig = pending.map((a) => a.id).join(',');
          if (last !== undefined && sig !== last) controller.enqueue(encoder.encode(`event: approvals\ndata: ${pending.length}\n\n`));
          else controller.enqueue(encoder.encode(': waiting\n\n'));
          last = sig;
        } catch {
          // the store hiccuped: try again next time; the stream stays open
        }
      };
      controller.enqueue(encoder.encode('retry: 3000\n\n'));
      void look();
      timer = setInterval(() => void look(), pollMs);
      env.c.req.raw.signal.addEventListener('abort', () => {
        stop();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel: stop,
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
}
