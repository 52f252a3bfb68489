/**
 * The Temporal dispatcher, over `@temporalio/client`: `signalWithStart`
 * routes call `client.workflow.signalWithStart(workflowName, { workflowId,
 * taskQueue, signal, signalArgs, args })` (Temporal's default conflict
 * policy signals a running workflow rather than starting another);
 * `signalOnly` routes call `client.workflow.getHandle(workflowId).signal()`,
 * and Temporal's `WorkflowNotFoundError` becomes
 * {@link WorkflowNotRunningError}.
 *
 * Temporal does not drop a repeated signal by itself, so the signal's
 * arguments are `[event, { idempotencyKey }]`: the workflow's handler drops
 * a key it has seen. Tested against an injected client only: no Temporal
 * server ran here (docs/dialects/xena.md says so).
 * @module
 */
import { DispatchUnavailableError, WorkflowNotRunningError, type DispatchRequest, type DispatchResult, type Dispatcher } from './dispatcher.js';

/** The part of `@temporalio/client`'s `WorkflowClient` this dispatcher uses (a real `Client['workflow']` fits). */
export interface TemporalWorkflows {
  signalWithStart(
    workflowType: string,
    options: { workflowId: string; taskQueue: string; signal: string; signalArgs: unknown[]; args: unknown[] },
  ): Promise<unknown>;
  getHandle(workflowId: string): { signal(signalName: string, ...args: unknown[]): Promise<void> };
}

/** Options of {@link temporalDispatcher}. */
export interface TemporalDispatcherOptions {
  /** `client.workflow` of a connected `@temporalio/client` Client (or a test double). */
  workflows: TemporalWorkflows;
  /** The task queue workflows are started on. */
  taskQueue: string;
  /** Start arguments per bootstrap name. @default `none` → `[]`; any other → `[{ bootstrap, event }]` */
  bootstrapArgs?: (bootstrap: string, payload: unknown) => unknown[];
  /** Called by `close()` (the connection's close). */
  onClose?: () => Promise<void>;
}

const defaultBootstrap = (bootstrap: string, payload: unknown): unknown[] => (bootstrap === 'none' ? [] : [{ bootstrap, event: payload }]);

/** Temporal's error for an unknown workflow id, told by its name (the class lives in @temporalio/common, which the client re-exports). */
const isNotFound = (err: unknown): boolean => err instanceof Error && err.name === 'WorkflowNotFoundError';

/**
 * A dispatcher over a Temporal client.
 * @example
 * const client = new Client({ connection: await Connection.connect({ address }), namespace });
 * const d = temporalDispatcher({ workflows: client.workflow, taskQueue: 'xena' });
 */
export function temporalDispatcher(options: TemporalDispatcherOptions): Dispatcher {
  const bootstrapArgs = options.bootstrapArgs ?? defaultBootstrap;
  return {
    kind: 'temporal',
    async dispatch(r: DispatchRequest): Promise<DispatchResult> {
      const signalArgs = [r.payload, { idempotencyKey: r.idempotencyKey }];
      try {
        if (r.mode === 'signalWithStart') {
          await options.workflows.signalWithStart(r.workflowName, {
            workflowId: r.workflowId,
            taskQueue: options.taskQueue,
            signal: r.signalName,
            signalArgs,
            args: bootstrapArgs(r.bootstrap, r.payload),
          });
        } else {
          await options.workflows.getHandle(r.workflowId).signal(r.signalName, ...signalArgs);
        }
      } catch (err) {
        if (isNotFound(err)) throw new WorkflowNotRunningError(r.workflowId, { cause: err });
        throw new DispatchUnavailableError(`Temporal refused the ${r.mode} of ${r.workflowId}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      // Temporal does not say whether signalWithStart started the workflow or signalled a running one
      return { workflowId: r.workflowId, started: false, duplicate: false };
    },
    ...(options.onClose ? { close: options.onClose } : {}),
  };
}

/**
 * Connect to a Temporal frontend and make a dispatcher (the client is loaded
 * only here, so nobody else pays for it).
 */
export async function connectTemporal(options: { address: string; namespace?: string; taskQueue: string }): Promise<Dispatcher> {
  const { Client, Connection } = await import('@temporalio/client');
  let connection: Awaited<ReturnType<typeof Connection.connect>>;
  try {
    connection = await Connection.connect({ address: options.address });
  } catch (err) {
    throw new DispatchUnavailableError(`Temporal at ${options.address} is not reachable: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const client = new Client({ connection, namespace: options.namespace ?? 'default' });
  return temporalDispatcher({ workflows: client.workflow as unknown as TemporalWorkflows, taskQueue: options.taskQueue, onClose: () => connection.close() });
}
