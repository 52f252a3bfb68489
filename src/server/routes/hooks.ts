/**
 * `POST /hooks/{toolId}?workflowType=…`: a webhook for a tool with Xena
 * `workflowRoutes`. The request proves its sender with the tool's HMAC
 * signature or key (webhook-signature.ts; no principal: the route is
 * public and the actor is `webhook:<toolId>`), its `workflowType` selects
 * the route, and the event is dispatched with the route's `dispatchMode`
 * and `bootstrap` (runtime/dispatch). The idempotency key is
 * `webhookIdempotencyKey()` (webhook-signature.ts: the event's id in the
 * body, else a keyed hook's `X-Toolcap-Event-Id` header, else the body's
 * sha256): a replay is answered `duplicate: true` and not dispatched again.
 * Every outcome is audited, redacted.
 * @module
 */
import type { Tool } from '../../model/schema.js';
import { createRedactor, redactedExcerpt } from '../../runtime/containment/redact.js';
import { DispatchUnavailableError, WORKFLOW_ID_PATTERN, WorkflowNotRunningError, type DispatchRequest, type Dispatcher } from '../../runtime/dispatch/dispatcher.js';
import { inboxDispatcher } from '../../runtime/dispatch/inbox.js';
import type { Runtime } from '../../runtime/runtime.js';
import { StoreUnavailableError } from '../../store/types.js';
import type { InboxStore, WorkflowInbox } from '../../store/workflow-inbox.js';
import { noStoreJson, routeModule, type ApiContext, type RouteModule } from '../context.js';
import { jsonBody, readJsonObject } from '../json-body.js';
import { ApiProblem, problem } from '../problem.js';
import { ROUTES } from '../route-table.js';
import { effectiveToleranceSec, valueAtPointer, verifyWebhook, webhookIdempotencyKey } from '../webhook-signature.js';
import type { WebhookOptions } from '../webhook-options.js';

export type { WebhookOptions };

/** The store's inbox, when the runtime's store keeps one. */
export function inboxOf(runtime: Runtime | undefined): WorkflowInbox | undefined {
  return (runtime?.store as Partial<InboxStore> | undefined)?.workflowInbox;
}

/** The hooks route, mounted at `/hooks`. */
export function hookRoutes(ctx: ApiContext): RouteModule {
  const { on, ...module } = routeModule('/hooks', ctx);
  const settings = ctx.options.webhooks;
  const now = settings?.now ?? (() => new Date());
  let inboxDefault: Dispatcher | undefined;
  const dispatcherOf = (): Dispatcher | undefined => {
    if (settings?.dispatcher) return settings.dispatcher;
    const inbox = inboxOf(ctx.runtime);
    inboxDefault ??= inbox ? inboxDispatcher(inbox, now) : undefined;
    return inboxDefault;
  };

  /** A sender's text (a path's tool id, a workflowType) in a problem body: redacted, then cut to 100 characters. */
  const tokenShapes = createRedactor();
  const echo = (text: string): string => redactedExcerpt(text, (ctx.runtime?.redactor ?? tokenShapes).redactText, 100);

  on(ROUTES.webhook, jsonBody(ctx.maxBodyBytes), async (c) => {
    const toolId = c.req.param('toolId') ?? '';
    const tool: Tool | undefined = ctx.registry.snapshot().tools.find((t) => t.name === toolId || t.id === toolId);
    const hook = tool ? (settings?.tools[toolId] ?? settings?.tools[tool.name] ?? (tool.id !== undefined ? settings?.tools[tool.id] : undefined)) : undefined;
    if (!tool || !hook || !tool.workflowRoutes?.length) throw new ApiProblem(problem('NOT_FOUND', `No webhook for "${echo(toolId)}": the tool must have workflowRoutes and a webhooks.tools entry in the config.`));

    const raw = await c.req.text();
    const dispatcher = dispatcherOf();
    // a signed request is held to what the dispatcher's dedupe can cover: a replay within the tolerance must still be a duplicate
    const refusal = verifyWebhook({ ...hook, toleranceSec: effectiveToleranceSec(hook, dispatcher?.dedupeWindowSec) }, c.req.raw.headers, raw, now());
    if (refusal) throw new ApiProblem(problem('UNAUTHENTICATED', `The webhook of "${toolId}" was refused (${refusal}). Sign it (X-Toolcap-Timestamp, X-Toolcap-Signature: sha256=<hex>) or send X-Toolcap-Webhook-Key, per the config.`, { reason: refusal }));

    const known = tool.workflowRoutes.map((r) => r.workflowType).filter((t): t is string => t !== undefined);
    const workflowType = c.req.query('workflowType');
    const route = tool.workflowRoutes.find((r) => r.workflowType !== undefined && r.workflowType === workflowType);
    if (!route) {
      const asked = workflowType === undefined ? 'No workflowType' : `No route for workflowType "${echo(workflowType)}"`;
      throw new ApiProblem(problem('UNKNOWN_WORKFLOW_TYPE', `${asked}; known: ${known.join(', ')}.`, { known }));
    }

    const event = await readJsonObject(c);
    const idPointer = hook.workflowIdPointer ?? '/workflowId';
    const workflowId = valueAtPointer(event, idPointer);
    if (typeof workflowId !== 'string' || !WORKFLOW_ID_PATTERN.test(workflowId)) {
      throw new ApiProblem(problem('BAD_BODY', `The event must carry the workflow id at ${idPointer}: 1-200 characters of A-Z a-z 0-9 _ : -, starting with a letter or digit.`, { pointer: idPointer }));
    }
    const idempotencyKey = webhookIdempotencyKey(hook, c.req.raw.headers, event, raw);

    if (!dispatcher) throw new ApiProblem(problem('NO_RUNTIME', 'No dispatcher: configure webhooks.dispatcher, or serve with a store (toolcap serve does).'));
    const request: DispatchRequest = {
      workflowId,
      workflowType: route.workflowType!,
      workflowName: route.workflowName ?? route.workflowType!,
      signalName: route.signalName ?? 'event',
      mode: route.dispatchMode ?? 'signalWithStart',
      bootstrap: route.bootstrap ?? 'none',
      payload: event,
      idempotencyKey,
    };
    const audit = (kind: string, detail: Record<string, unknown>) => {
      const runtime = ctx.runtime;
      if (!runtime) return Promise.resolve();
      const redacted = runtime.redactor.redact({ workflowType: request.workflowType, workflowId, mode: request.mode, idempotencyKey, dispatcher: dispatcher.kind, event, ...detail });
      return runtime.store.appendAudit({ at: now().toISOString(), kind, tool: tool.name, callId: null, persona: null, actor: `webhook:${toolId}`, detail: redacted }).then(() => undefined);
    };
    try {
      const result = await dispatcher.dispatch(request);
      await audit(result.duplicate ? 'webhook.duplicate' : 'webhook.dispatched', { started: result.started, ...(result.seq !== undefined ? { seq: result.seq } : {}) });
      return noStoreJson({ ...result, workflowType: request.workflowType, dispatcher: dispatcher.kind });
    } catch (err) {
      if (err instanceof WorkflowNotRunningError) {
        await audit('webhook.not_running', {});
        throw new ApiProblem(problem('WORKFLOW_NOT_RUNNING', err.message, { workflowId }));
      }
      if (err instanceof DispatchUnavailableError) throw new ApiProblem(problem('DISPATCH_UNAVAILABLE', ctx.runtime ? ctx.runtime.redactor.redactText(err.message) : 'The dispatcher is unreachable.'), { 'retry-after': '5' });
      if (err instanceof StoreUnavailableError) throw new ApiProblem(problem('STORE_UNAVAILABLE', 'The store is unavailable; the event was not kept. Retry.'), { 'retry-after': '5' });
      throw err;
    }
  });

  return module;
}
