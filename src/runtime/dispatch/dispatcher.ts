/**
 * Workflow dispatch: what a webhook route does with an event. A
 * {@link Dispatcher} starts-or-signals a workflow by id, with the route's
 * `dispatchMode` (`signalWithStart` starts the workflow when it is not
 * running, then signals; `signalOnly` signals a running one, else
 * {@link WorkflowNotRunningError}) and drops an event whose idempotency key
 * it has already seen for that workflow. Three implementations: the store's
 * workflow inbox (the embedded default, inbox.ts), NATS JetStream
 * (jetstream.ts) and Temporal (temporal.ts).
 * @module
 */

/** Xena's dispatch modes (`metadata.workflowRoutes[].dispatchMode`). */
export const DISPATCH_MODES = ['signalWithStart', 'signalOnly'] as const;
export type DispatchMode = (typeof DISPATCH_MODES)[number];

/** One event for one workflow. */
export interface DispatchRequest {
  /** The workflow's id (from the event); the key of start-or-signal. */
  workflowId: string;
  /** The route's `workflowType`, the webhook's selector. */
  workflowType: string;
  /** The workflow to start (`workflowName`; Temporal's workflow type). */
  workflowName: string;
  /** The signal to send (`signalName`). */
  signalName: string;
  mode: DispatchMode;
  /** How start arguments are made (`bootstrap`; `none` for no arguments). */
  bootstrap: string;
  /** The event, as received (JSON). */
  payload: unknown;
  /** The event's identity: the same key for the same workflow is dispatched once. */
  idempotencyKey: string;
}

/** What a dispatch did. */
export interface DispatchResult {
  workflowId: string;
  /** This event started the workflow. */
  started: boolean;
  /** The event was seen before and not dispatched again. */
  duplicate: boolean;
  /** Where the signal is in the workflow's order, when the dispatcher numbers them (inbox: per-workflow seq; JetStream: stream seq). */
  seq?: number;
}

/** Starts and signals workflows. */
export interface Dispatcher {
  /** `inbox`, `jetstream` or `temporal`. */
  readonly kind: string;
  /**
   * How long, seconds, a seen idempotency key is remembered, when that is
   * bounded (JetStream: its stream's duplicate window); absent: for the
   * workflow's life (the inbox; Temporal's workflow drops keys itself). A
   * signed webhook is accepted only within half of it (its timestamp
   * tolerance is cut to fit), so a replay inside the tolerance is still a
   * duplicate.
   */
  readonly dedupeWindowSec?: number;
  /** Start-or-signal; rejects with {@link WorkflowNotRunningError} for `signalOnly` to a workflow that is not running. */
  dispatch(request: DispatchRequest): Promise<DispatchResult>;
  /** Let go of connections. */
  close?(): Promise<void>;
}

/** `signalOnly` to a workflow that is not running (the HTTP API answers 409 WORKFLOW_NOT_RUNNING). */
export class WorkflowNotRunningError extends Error {
  override readonly name = 'WorkflowNotRunningError' as const;
  readonly code = 'WORKFLOW_NOT_RUNNING' as const;
  constructor(
    readonly workflowId: string,
    options?: { cause?: unknown },
  ) {
    super(`Workflow "${workflowId}" is not running; its route is signalOnly, so the event does not start it.`, options);
  }
}

/** The dispatcher could not reach its back end (the HTTP API answers 503 DISPATCH_UNAVAILABLE). */
export class DispatchUnavailableError extends Error {
  override readonly name = 'DispatchUnavailableError' as const;
  readonly code = 'DISPATCH_UNAVAILABLE' as const;
}

/** Workflow ids and types: tokens safe in a NATS subject, a URL path and a Temporal id. */
export const WORKFLOW_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_:-]{0,199}$/;
