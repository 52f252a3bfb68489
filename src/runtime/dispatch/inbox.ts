/**
 * The embedded dispatcher: the store's durable workflow inbox
 * (store/workflow-inbox.ts). Workers read pending signals and acknowledge
 * them over the HTTP API (`/workflows/{id}/signals`).
 * @module
 */
import type { WorkflowInbox } from '../../store/workflow-inbox.js';
import { WorkflowNotRunningError, type DispatchRequest, type DispatchResult, type Dispatcher } from './dispatcher.js';

/**
 * A dispatcher over a store's inbox.
 * @example const dispatcher = inboxDispatcher(store.workflowInbox);
 */
export function inboxDispatcher(inbox: WorkflowInbox, now: () => Date = () => new Date()): Dispatcher {
  return {
    kind: 'inbox',
    async dispatch(r: DispatchRequest): Promise<DispatchResult> {
      const out = await inbox.deliver({
        workflowId: r.workflowId,
        workflowType: r.workflowType,
        workflowName: r.workflowName,
        bootstrap: r.bootstrap,
        signalName: r.signalName,
        start: r.mode === 'signalWithStart',
        payload: r.payload,
        idempotencyKey: r.idempotencyKey,
        at: now().toISOString(),
      });
      if (out.outcome === 'not_running') throw new WorkflowNotRunningError(r.workflowId);
      return { workflowId: r.workflowId, started: out.started, duplicate: out.outcome === 'duplicate', seq: out.seq };
    },
  };
}
